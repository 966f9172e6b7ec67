import { Uuid } from '@kraft/protocol';
import type { FileSystem } from '@kraft/records';
import { InvalidConfigurationError } from '../errors/log-errors.js';
import { readSmallFile, writeFileAtomically } from './atomic-file.js';

/** The file name of `partition.metadata` inside a partition directory: the topic id it belongs to. */
export const PARTITION_METADATA_FILE = 'partition.metadata';

/**
 * Kafka's `partition.metadata`: exactly `version: 0\ntopic_id: <base64 uuid>` with no trailing
 * newline, written through `.tmp` and an atomic rename (kraft-formats.md §6).
 */
export class PartitionMetadataFile {
  constructor(
    private readonly fileSystem: FileSystem,
    readonly path: string,
  ) {}

  /**
   * Replaces the file with `topicId` atomically (fsynced `.tmp`, rename, directory sync).
   *
   * @throws FileSystemError when a write, sync or rename fails.
   */
  write(topicId: Uuid): void {
    writeFileAtomically(this.fileSystem, this.path, Buffer.from(formatPartitionMetadata(topicId), 'utf8'));
  }

  /**
   * The topic id in the file, or undefined when there is no file.
   *
   * @throws {@link InvalidConfigurationError} when the file is malformed (see {@link parsePartitionMetadata}).
   * @throws FileSystemError when the file cannot be read.
   */
  read(): Uuid | undefined {
    const bytes = readSmallFile(this.fileSystem, this.path);
    return bytes === undefined ? undefined : parsePartitionMetadata(bytes.toString('utf8'), this.path);
  }
}

/** The file's text: `version: 0\ntopic_id: <base64 uuid>`, with no trailing newline, as Kafka writes it. */
export function formatPartitionMetadata(topicId: Uuid): string {
  return `version: 0\ntopic_id: ${topicId.toString()}`;
}

/**
 * Parses `partition.metadata` text: blank lines and spaces around the colon are tolerated, as
 * Kafka's reader does; `path` only names the file in errors.
 *
 * @throws {@link InvalidConfigurationError} unless there are exactly the lines `version: 0` and
 * `topic_id: <uuid>`, with a valid base64 uuid.
 */
export function parsePartitionMetadata(text: string, path = PARTITION_METADATA_FILE): Uuid {
  const fail = (reason: string): never => {
    throw new InvalidConfigurationError(`malformed ${path}: ${reason}`);
  };
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const field = (line: string | undefined, name: string): string => {
    const match = /^\s*([a-z_]+)\s*:\s*(\S+)\s*$/.exec(line ?? '');
    if (match === null || match[1] !== name) return fail(`expected '${name}: <value>', got '${line ?? ''}'`);
    return match[2] as string;
  };
  if (lines.length !== 2) fail(`expected 2 lines, got ${lines.length}`);
  const version = field(lines[0], 'version');
  if (version !== '0') fail(`unsupported version ${version}`);
  try {
    return Uuid.fromString(field(lines[1], 'topic_id'));
  } catch (error) {
    throw new InvalidConfigurationError(`malformed ${path}: bad topic_id (${(error as Error).message})`);
  }
}
