import type { FileSystem } from '@kraft/records';
import { readSmallFile, writeFileAtomically } from './atomic-file.js';
import { formatOffsetCheckpoint, parseOffsetCheckpoint } from './offset-checkpoint.js';

/** The file name of the log start checkpoint inside the log directory (beside the partitions). */
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint';

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
    writeFileAtomically(this.fileSystem, this.path, Buffer.from(formatOffsetCheckpoint(entries), 'utf8'));
  }

  /**
   * The saved log start of `topicPartition` (`<topic>-<partition>`), or undefined when the file
   * or its entry is absent.
   *
   * @throws {@link InvalidConfigurationError} when the file is malformed.
   * @throws FileSystemError when the file cannot be read.
   */
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
    return bytes === undefined ? undefined : parseOffsetCheckpoint(bytes, this.path);
  }
}
