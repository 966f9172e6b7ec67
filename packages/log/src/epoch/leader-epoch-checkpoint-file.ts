import type { FileSystem } from '@kraft/records';
import { InvalidConfigurationError } from '../errors/log-errors.js';
import { readSmallFile, writeFileAtomically, writeFileAtomicallyAsync } from '../files/atomic-file.js';

/** One leader epoch and the offset of its first batch in the log (Kafka's `EpochEntry`). */
export interface EpochEntry {
  /** A leader epoch, >= 0. */
  readonly epoch: number;
  /** Offset of the first batch written in `epoch`. */
  readonly startOffset: number;
}

/** The file name of the leader epoch checkpoint inside a partition directory. */
export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint';
const CURRENT_VERSION = 0;

/**
 * Kafka's `leader-epoch-checkpoint` text file (kraft-formats.md §6): a version line `0`, an entry
 * count, then one `<epoch> <startOffset>` line per entry, each line ending in `\n`. Written through
 * a fsynced `.tmp` file and an atomic rename, so a crash leaves the old or the new file.
 */
export class LeaderEpochCheckpointFile {
  constructor(
    private readonly fileSystem: FileSystem,
    readonly path: string,
  ) {}

  /**
   * Replaces the file with `entries` atomically (fsynced `.tmp`, rename, directory sync), so a
   * crash leaves either the old or the new list.
   *
   * @throws FileSystemError when a write, sync or rename fails.
   */
  write(entries: readonly EpochEntry[]): void {
    writeFileAtomically(this.fileSystem, this.path, bytesOf(entries));
  }

  /**
   * `write` with both syncs off the event loop. When `stillCurrent` answers false once the `.tmp`
   * is synced, a synchronous `write` made meanwhile superseded this one, which then stops before
   * its rename.
   */
  writeAsync(entries: readonly EpochEntry[], stillCurrent?: () => boolean): Promise<void> {
    return writeFileAtomicallyAsync(this.fileSystem, this.path, bytesOf(entries), stillCurrent);
  }

  /** The entries, or undefined when the file does not exist. Malformed content is a typed error. */
  read(): EpochEntry[] | undefined {
    const bytes = readSmallFile(this.fileSystem, this.path);
    return bytes === undefined ? undefined : parseLeaderEpochCheckpoint(bytes.toString('utf8'), this.path);
  }
}

function bytesOf(entries: readonly EpochEntry[]): Buffer {
  return Buffer.from(formatLeaderEpochCheckpoint(entries), 'utf8');
}

/** The checkpoint file's text for `entries`: `0\n<count>\n` then `<epoch> <startOffset>\n` each. */
export function formatLeaderEpochCheckpoint(entries: readonly EpochEntry[]): string {
  let text = `${CURRENT_VERSION}\n${entries.length}\n`;
  for (const entry of entries) text += `${entry.epoch} ${entry.startOffset}\n`;
  return text;
}

/**
 * Parses the checkpoint file's text (see {@link formatLeaderEpochCheckpoint}); `path` only names
 * the file in errors. Fields are trimmed; the entry count must match the entry lines.
 *
 * @throws {@link InvalidConfigurationError} for a version other than 0, a wrong entry count, an
 * entry without exactly two fields, or a field that is not a non-negative safe integer.
 */
export function parseLeaderEpochCheckpoint(text: string, path = LEADER_EPOCH_CHECKPOINT_FILE): EpochEntry[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const fail = (reason: string): never => {
    throw new InvalidConfigurationError(`malformed ${path}: ${reason}`);
  };
  if (lines[0]?.trim() !== String(CURRENT_VERSION)) fail(`unsupported version line '${lines[0] ?? ''}'`);
  const count = parseNonNegative(lines[1], fail);
  if (lines.length !== count + 2) fail(`expected ${count} entries, found ${lines.length - 2}`);
  const entries: EpochEntry[] = [];
  for (let index = 0; index < count; index += 1) {
    const fields = (lines[index + 2] as string).trim().split(/\s+/);
    if (fields.length !== 2) fail(`entry line '${lines[index + 2]}' must have 2 fields`);
    entries.push({
      epoch: parseNonNegative(fields[0], fail),
      startOffset: parseNonNegative(fields[1], fail),
    });
  }
  return entries;
}

function parseNonNegative(text: string | undefined, fail: (reason: string) => never): number {
  const trimmed = text?.trim() ?? '';
  if (!/^\d+$/.test(trimmed)) return fail(`'${text ?? ''}' is not a non-negative integer`);
  const value = Number(trimmed);
  if (!Number.isSafeInteger(value)) return fail(`'${trimmed}' is too large`);
  return value;
}
