import { readFile, stat, writeFile } from 'node:fs/promises';
import { HistoryError } from './history-error.js';
import type { HistoryEvent } from './history-event.js';

export interface ParseHistoryOptions<Input, Output> {
  /** Checks each invoke's input (for the key-value model: `isKvInput`). */
  readonly isInput?: (value: unknown) => value is Input;
  /** Checks each ok's output (for the key-value model: `isKvOutput`). */
  readonly isOutput?: (value: unknown) => value is Output;
}

export interface ReadHistoryOptions<Input, Output> extends ParseHistoryOptions<Input, Output> {
  /** A larger file is refused before it is read. Default 256 MiB (about two million events). */
  readonly maxSizeInBytes?: number;
}

const DEFAULT_MAX_FILE_SIZE_IN_BYTES = 256 * 1024 * 1024;
const EVENT_TYPES = new Set(['invoke', 'ok', 'fail', 'info']);

/** JSON lines: one event per line, in recording order, each line ending with a newline. */
export function serializeHistory<Input, Output>(events: readonly HistoryEvent<Input, Output>[]): string {
  let text = '';
  for (const event of events) text += `${JSON.stringify(event)}\n`;
  return text;
}

/** Reads JSON lines back; blank lines are skipped, anything malformed is a `HistoryError`. */
export function parseHistory<Input = unknown, Output = unknown>(
  text: string,
  options: ParseHistoryOptions<Input, Output> = {},
): HistoryEvent<Input, Output>[] {
  const events: HistoryEvent<Input, Output>[] = [];
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    if (line.trim() === '') continue;
    events.push(parseEvent(line, index + 1, options));
  }
  return events;
}

export async function writeHistoryFile<Input, Output>(
  path: string,
  events: readonly HistoryEvent<Input, Output>[],
): Promise<void> {
  await writeFile(path, serializeHistory(events), 'utf8');
}

export async function readHistoryFile<Input = unknown, Output = unknown>(
  path: string,
  options: ReadHistoryOptions<Input, Output> = {},
): Promise<HistoryEvent<Input, Output>[]> {
  const maxSizeInBytes = options.maxSizeInBytes ?? DEFAULT_MAX_FILE_SIZE_IN_BYTES;
  const { size } = await stat(path);
  if (size > maxSizeInBytes) {
    throw new HistoryError('HISTORY_TOO_LARGE', `${path} holds ${size} bytes, more than ${maxSizeInBytes}`);
  }
  return parseHistory(await readFile(path, 'utf8'), options);
}

function parseEvent<Input, Output>(
  line: string,
  lineNumber: number,
  options: ParseHistoryOptions<Input, Output>,
): HistoryEvent<Input, Output> {
  const fail = (reason: string, cause?: unknown): never => {
    throw new HistoryError('INVALID_HISTORY_LINE', `history line ${lineNumber}: ${reason}`, { cause });
  };
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return fail('not JSON', error);
  }
  if (typeof value !== 'object' || value === null) return fail('not an object');
  const event = value as Record<string, unknown>;
  const type = event['type'];
  if (typeof type !== 'string' || !EVENT_TYPES.has(type)) return fail(`unknown type ${JSON.stringify(type)}`);
  for (const field of ['id', 'clientId'] as const) {
    if (!Number.isSafeInteger(event[field])) fail(`${field} is not an integer`);
  }
  if (typeof event['time'] !== 'number' || !Number.isFinite(event['time']))
    fail('time is not a finite number');
  if (type === 'invoke' && !('input' in event)) fail('an invoke without input');
  if (type === 'invoke' && options.isInput !== undefined && !options.isInput(event['input']))
    fail('malformed input');
  if (type === 'ok' && !('output' in event)) fail('an ok without output');
  if (type === 'ok' && options.isOutput !== undefined && !options.isOutput(event['output']))
    fail('malformed output');
  return value as HistoryEvent<Input, Output>;
}
