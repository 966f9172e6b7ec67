import type { FileSystem } from '@kraft/records';
import { readSmallFile, writeFileAtomically, writeFileAtomicallyAsync } from './atomic-file.js';
import { formatOffsetCheckpoint, parseOffsetCheckpoint } from './offset-checkpoint.js';

/** The file name of the log start checkpoint inside the log directory (beside the partitions). */
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint';

/**
 * Kafka's `log-start-offset-checkpoint` in the log directory: `0\n<count>\n` then one
 * `<topic> <partition> <offset>` line per partition. It keeps a log start that moved up inside a
 * segment (after a snapshot) from falling back to the segment's base offset on restart.
 */
export class LogStartOffsetCheckpointFile {
  /** Bumped by every write: a synchronous write supersedes an asynchronous one still syncing. */
  private generation = 0;
  /** The entry the last write that landed made durable (this process's writes only). */
  private durable: { readonly topicPartition: string; readonly offset: number } | undefined;

  constructor(
    private readonly fileSystem: FileSystem,
    readonly path: string,
  ) {}

  /** Replaces this partition's entry, keeping any other partitions' lines. */
  write(topicPartition: string, offset: number): void {
    this.generation += 1;
    this.durable = undefined;
    writeFileAtomically(this.fileSystem, this.path, this.contentWith(topicPartition, offset));
    this.durable = { topicPartition, offset };
  }

  /**
   * `write` with both syncs off the event loop. A synchronous `write` made while this one syncs
   * wins (the two share `<path>.tmp`, as the epoch checkpoint's writes do): this one then stops
   * before its rename, and `isDurable` answers for the synchronous one.
   */
  async writeAsync(topicPartition: string, offset: number): Promise<void> {
    this.generation += 1;
    const generation = this.generation;
    this.durable = undefined;
    const stillCurrent = (): boolean => generation === this.generation;
    await writeFileAtomicallyAsync(
      this.fileSystem,
      this.path,
      this.contentWith(topicPartition, offset),
      stillCurrent,
    );
    if (stillCurrent()) this.durable = { topicPartition, offset };
  }

  /** Whether a write of this process that landed last made `offset` this partition's durable entry. */
  isDurable(topicPartition: string, offset: number): boolean {
    return this.durable?.topicPartition === topicPartition && this.durable.offset === offset;
  }

  private contentWith(topicPartition: string, offset: number): Buffer {
    const entries = this.readAllOrUndefined() ?? new Map<string, number>();
    entries.set(topicPartition, offset);
    return Buffer.from(formatOffsetCheckpoint(entries), 'utf8');
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
