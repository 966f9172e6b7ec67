import type { FileSystem } from '@kraft/records';
import { InvalidConfigurationError } from '../errors/log-errors.js';
import { readSmallFile, writeFileAtomically } from './atomic-file.js';

export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint';
const CURRENT_VERSION = 0;

/**
 * Kafka's `log-start-offset-checkpoint` in the log directory: `0\n<count>\n` then one
 * `<topic> <partition> <offset>` line per partition. It keeps a log start that moved up inside a
 * segment (after a snapshot) from falling back to the segment's base offset on restart.
 */
export class LogStartOffsetCheckpointFile {
  constructor(
    private readonly fileSystem: FileSystem,
    readonly path: string,
  ) {}

  /** Replaces this partition's entry, keeping any other partitions' lines. */
  write(topicPartition: string, offset: number): void {
    const entries = this.readAllOrUndefined() ?? new Map<string, number>();
    entries.set(topicPartition, offset);
    let text = `${CURRENT_VERSION}\n${entries.size}\n`;
    for (const [name, value] of entries) {
      const split = splitTopicPartition(name);
      text += `${split.topic} ${split.partition} ${value}\n`;
    }
    writeFileAtomically(this.fileSystem, this.path, Buffer.from(text, 'utf8'));
  }

  read(topicPartition: string): number | undefined {
    return this.readAll()?.get(topicPartition);
  }

  /** A corrupt file is replaced rather than blocking the write that repairs it. */
  private readAllOrUndefined(): Map<string, number> | undefined {
    try {
      return this.readAll();
    } catch {
      return undefined;
    }
  }

  private readAll(): Map<string, number> | undefined {
    const bytes = readSmallFile(this.fileSystem, this.path);
    if (bytes === undefined) return undefined;
    const lines = bytes
      .toString('utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
    const fail = (reason: string): never => {
      throw new InvalidConfigurationError(`malformed ${this.path}: ${reason}`);
    };
    if (lines[0]?.trim() !== String(CURRENT_VERSION)) fail(`unsupported version '${lines[0] ?? ''}'`);
    const count = Number(lines[1]);
    if (!Number.isSafeInteger(count) || count !== lines.length - 2)
      fail(`bad entry count '${lines[1] ?? ''}'`);
    const entries = new Map<string, number>();
    for (const line of lines.slice(2)) {
      const fields = line.trim().split(/\s+/);
      const offset = Number(fields[2]);
      if (
        fields.length !== 3 ||
        !/^\d+$/.test(fields[1] ?? '') ||
        !Number.isSafeInteger(offset) ||
        offset < 0
      )
        fail(`bad line '${line}'`);
      entries.set(`${fields[0]}-${fields[1]}`, offset);
    }
    return entries;
  }
}

function splitTopicPartition(name: string): { topic: string; partition: string } {
  const dash = name.lastIndexOf('-');
  if (dash <= 0 || !/^\d+$/.test(name.slice(dash + 1))) {
    throw new InvalidConfigurationError(`'${name}' is not a <topic>-<partition> name`);
  }
  return { topic: name.slice(0, dash), partition: name.slice(dash + 1) };
}
