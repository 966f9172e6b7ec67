import type { FileHandle, FileSystem } from '@kraft/records';
import { readSmallFile, writeFileAtomically } from './atomic-file.js';
import { formatOffsetCheckpoint, parseOffsetCheckpoint } from './offset-checkpoint.js';

/** The file name of the recovery point checkpoint inside the log directory. */
export const RECOVERY_POINT_OFFSET_CHECKPOINT_FILE = 'recovery-point-offset-checkpoint';

/** What the file said at open: an offset, nothing (no file, no entry), or unreadable bytes. */
export type SavedRecoveryPoint =
  | { readonly kind: 'offset'; readonly offset: number }
  | { readonly kind: 'absent' }
  | { readonly kind: 'unreadable'; readonly reason: string };

/**
 * Kafka's `recovery-point-offset-checkpoint` in the log directory (the same text as
 * `log-start-offset-checkpoint`): how far this partition's log was flushed. Recovery tells a torn
 * tail (at or above it: never acknowledged, may be cut) from lost flushed data (below it).
 *
 * The flush path rewrites it in place (one positional write of a few dozen bytes, then an
 * fdatasync) rather than by `.tmp` + rename + directory fsync: one sync per flush instead of
 * three. The text fits in one disk sector, whose write is atomic, and a crash before the sync
 * leaves the old text; a shorter text that loses its trailing bytes' truncation leaves a blank
 * line, which the parser ignores. Only the first write (no file yet) goes through the atomic path,
 * so the directory entry is durable.
 */
export class RecoveryPointCheckpointFile {
  private handle: FileHandle | undefined;
  private entries: Map<string, number> | undefined;
  private writtenSizeInBytes = 0;

  constructor(
    private readonly fileSystem: FileSystem,
    readonly path: string,
    private readonly topicPartition: string,
  ) {}

  /**
   * What the file holds for this partition. Never throws: a malformed or unreadable file is
   * `unreadable` (with the reason), so recovery can decide how far to trust the log without it.
   */
  read(): SavedRecoveryPoint {
    let bytes: Buffer | undefined;
    try {
      bytes = readSmallFile(this.fileSystem, this.path);
      if (bytes === undefined) return { kind: 'absent' };
      this.entries = parseOffsetCheckpoint(bytes, this.path);
    } catch (error) {
      return { kind: 'unreadable', reason: error instanceof Error ? error.message : String(error) };
    }
    this.writtenSizeInBytes = bytes.length;
    const offset = this.entries.get(this.topicPartition);
    return offset === undefined ? { kind: 'absent' } : { kind: 'offset', offset };
  }

  /** Writes and fdatasyncs `offset` before returning (open, truncation, close: rare paths). */
  write(offset: number): void {
    if (this.writeBytes(offset)) this.openHandle().sync();
  }

  /** Writes `offset` and resolves once it is durable; the fdatasync runs off the event loop. */
  async writeAsync(offset: number): Promise<void> {
    if (this.writeBytes(offset)) await this.openHandle().syncAsync();
  }

  /** Closes the handle kept open for in-place writes; a later write reopens it. */
  close(): void {
    this.handle?.close();
    this.handle = undefined;
  }

  /** The new text written in place (true: a sync must follow), or atomically when the file is new. */
  private writeBytes(offset: number): boolean {
    const entries = this.entries ?? new Map<string, number>();
    entries.set(this.topicPartition, offset);
    this.entries = entries;
    const bytes = Buffer.from(formatOffsetCheckpoint(entries), 'utf8');
    if (this.handle === undefined && !this.fileSystem.exists(this.path)) {
      writeFileAtomically(this.fileSystem, this.path, bytes);
      this.writtenSizeInBytes = bytes.length;
      return false;
    }
    const handle = this.openHandle();
    handle.write(bytes, 0);
    if (bytes.length < this.writtenSizeInBytes) handle.truncate(bytes.length);
    this.writtenSizeInBytes = bytes.length;
    return true;
  }

  private openHandle(): FileHandle {
    this.handle ??= this.fileSystem.open(this.path, {});
    return this.handle;
  }
}
