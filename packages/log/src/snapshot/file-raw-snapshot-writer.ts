import { IllegalStateError } from '@kraft/protocol';
import type { FileHandle, FileSystem, MemoryRecords } from '@kraft/records';
import { parentDirectory } from '../files/atomic-file.js';
import type { OffsetAndEpoch, RawSnapshotWriter } from '../raft-log-types.js';
import { formatOffsetAndEpoch } from '../raft-log-types.js';
import { partialSnapshotFilePath, snapshotFilePath } from './snapshot-path.js';

/**
 * Writes a raft snapshot the way Kafka's `FileRawSnapshotWriter` does: bytes go to a
 * `<id>-<unique>.checkpoint.part` file; `freeze()` fdatasyncs it, renames it atomically to
 * `<id>.checkpoint` and fsyncs the directory, so a crash leaves either no snapshot or a whole one.
 */
export class FileRawSnapshotWriter implements RawSnapshotWriter {
  private handle: FileHandle | undefined;
  private size = 0;
  private frozen = false;
  /** `freezeAsync` is under way: the handle is its own until it settles. */
  private freezing = false;

  private constructor(
    private readonly fileSystem: FileSystem,
    private readonly partialPath: string,
    private readonly finalPath: string,
    readonly snapshotId: OffsetAndEpoch,
    private readonly onFrozen: ((snapshotId: OffsetAndEpoch) => void) | undefined,
  ) {
    this.handle = fileSystem.open(partialPath, { create: true });
    this.handle.truncate(0);
  }

  /**
   * Starts a snapshot `snapshotId` in `directory`: opens (truncating) the partial file
   * `<offset>-<epoch>-<unique>.checkpoint.part`. `unique` keeps two writers of the same id apart
   * (a fetched and a locally generated snapshot); `onFrozen` runs once `freeze()` made it durable,
   * which is how the log learns of the new snapshot.
   *
   * @throws FileSystemError when the partial file cannot be created.
   *
   * @example
   * ```ts
   * const writer = FileRawSnapshotWriter.create(fileSystem, directory, { offset: 100, epoch: 3 }, '0');
   * writer.append(headerBatch);
   * writer.append(dataBatches);
   * writer.append(footerBatch);
   * writer.freeze(); // now 00000000000000000100-0000000003.checkpoint
   * writer.close();
   * ```
   */
  static create(
    fileSystem: FileSystem,
    directory: string,
    snapshotId: OffsetAndEpoch,
    unique: string,
    onFrozen?: (snapshotId: OffsetAndEpoch) => void,
  ): FileRawSnapshotWriter {
    return new FileRawSnapshotWriter(
      fileSystem,
      partialSnapshotFilePath(directory, snapshotId, unique),
      snapshotFilePath(directory, snapshotId),
      snapshotId,
      onFrozen,
    );
  }

  /** Bytes written so far. */
  sizeInBytes(): number {
    return this.size;
  }

  /**
   * Appends the bytes of `records` at the end of the partial file (page cache; durable on `freeze()`).
   *
   * @throws IllegalStateError after `freeze()` or `close()`.
   * @throws FileSystemError when the write fails.
   */
  append(records: MemoryRecords): void {
    this.appendUnaligned(records.buffer());
  }

  appendUnaligned(bytes: Buffer): void {
    const handle = this.writableHandle();
    handle.write(bytes, this.size);
    this.size += bytes.length;
  }

  /** Whether `freeze()` completed: the snapshot is durable under its final name. */
  isFrozen(): boolean {
    return this.frozen;
  }

  freeze(): void {
    const handle = this.writableHandle();
    handle.sync();
    handle.close();
    this.handle = undefined;
    this.fileSystem.rename(this.partialPath, this.finalPath);
    this.fileSystem.syncDirectory(parentDirectory(this.finalPath));
    this.markFrozen(true);
  }

  /**
   * `freeze()` with both syncs off the event loop: fdatasync of the partial file, the rename, then
   * the directory sync. The final name appears only once the bytes are durable, so a crash at any
   * step leaves either the partial file (deleted at open) or the whole snapshot. With `register:
   * false` the log is not told (`onFrozen` does not run): the caller announces the snapshot itself
   * when it is ready to act on it (the raft core's install of a fetched snapshot, ADR 0039).
   *
   * @throws IllegalStateError after `freeze()` or `close()`, or while another freeze runs.
   * @throws FileSystemError when a sync or the rename fails; the writer is then unusable.
   */
  async freezeAsync(options: { readonly register?: boolean } = {}): Promise<void> {
    const handle = this.writableHandle();
    this.freezing = true;
    try {
      await handle.syncAsync();
      handle.close();
      this.handle = undefined;
      this.fileSystem.rename(this.partialPath, this.finalPath);
      await this.fileSystem.syncDirectoryAsync(parentDirectory(this.finalPath));
    } finally {
      this.freezing = false;
    }
    this.markFrozen(options.register ?? true);
  }

  private markFrozen(register: boolean): void {
    this.frozen = true;
    if (register) this.onFrozen?.(this.snapshotId);
  }

  close(): void {
    // A freeze under way owns the handle; the snapshot it makes is the caller's to keep.
    if (this.handle === undefined || this.freezing) return;
    this.handle.close();
    this.handle = undefined;
    if (!this.frozen) this.fileSystem.unlink(this.partialPath);
  }

  private writableHandle(): FileHandle {
    if (this.freezing)
      throw new IllegalStateError(`snapshot ${formatOffsetAndEpoch(this.snapshotId)} is being frozen`);
    if (this.frozen)
      throw new IllegalStateError(`snapshot ${formatOffsetAndEpoch(this.snapshotId)} is already frozen`);
    if (this.handle === undefined)
      throw new IllegalStateError(`snapshot writer ${formatOffsetAndEpoch(this.snapshotId)} is closed`);
    return this.handle;
  }
}
