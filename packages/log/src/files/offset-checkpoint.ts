import { InvalidConfigurationError } from '../errors/log-errors.js';

const CURRENT_VERSION = 0;

/**
 * Kafka's offset checkpoint text (`log-start-offset-checkpoint`, `recovery-point-offset-checkpoint`):
 * `0\n<count>\n` then one `<topic> <partition> <offset>` line per partition, keyed here by
 * `<topic>-<partition>`.
 */
export function formatOffsetCheckpoint(entries: ReadonlyMap<string, number>): string {
  let text = `${CURRENT_VERSION}\n${entries.size}\n`;
  for (const [name, value] of entries) {
    const split = splitTopicPartition(name);
    text += `${split.topic} ${split.partition} ${value}\n`;
  }
  return text;
}

/** Parses the text; blank lines are ignored. A malformed file is an `InvalidConfigurationError`. */
export function parseOffsetCheckpoint(bytes: Buffer, path: string): Map<string, number> {
  const lines = bytes
    .toString('utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  const fail = (reason: string): never => {
    throw new InvalidConfigurationError(`malformed ${path}: ${reason}`);
  };
  if (lines[0]?.trim() !== String(CURRENT_VERSION)) fail(`unsupported version '${lines[0] ?? ''}'`);
  const count = Number(lines[1]);
  if (!Number.isSafeInteger(count) || count !== lines.length - 2) fail(`bad entry count '${lines[1] ?? ''}'`);
  const entries = new Map<string, number>();
  for (const line of lines.slice(2)) {
    const fields = line.trim().split(/\s+/);
    const offset = Number(fields[2]);
    if (fields.length !== 3 || !/^\d+$/.test(fields[1] ?? '') || !Number.isSafeInteger(offset) || offset < 0)
      fail(`bad line '${line}'`);
    entries.set(`${fields[0]}-${fields[1]}`, offset);
  }
  return entries;
}

function splitTopicPartition(name: string): { topic: string; partition: string } {
  const dash = name.lastIndexOf('-');
  if (dash <= 0 || !/^\d+$/.test(name.slice(dash + 1))) {
    throw new InvalidConfigurationError(`'${name}' is not a <topic>-<partition> name`);
  }
  return { topic: name.slice(0, dash), partition: name.slice(dash + 1) };
}
