import { FileRecords, type FileSystem } from '@kraft/records';
import type { OffsetAndEpoch, RawSnapshotReader } from '../raft-log-types.js';
import { snapshotFilePath } from './snapshot-path.js';

/** A frozen snapshot as a read-only FileRecords (Kafka `FileRawSnapshotReader`). */
export class FileRawSnapshotReader implements RawSnapshotReader {
  private constructor(
    readonly snapshotId: OffsetAndEpoch,
    private readonly fileRecords: FileRecords,
  ) {}

  /**
   * Opens `<directory>/<offset>-<epoch>.checkpoint` read-only.
   *
   * @throws FileSystemError (`ENOENT` when the snapshot file does not exist).
   */
  static open(fileSystem: FileSystem, directory: string, snapshotId: OffsetAndEpoch): FileRawSnapshotReader {
    const records = FileRecords.open(snapshotFilePath(directory, snapshotId), { mutable: false, fileSystem });
    return new FileRawSnapshotReader(snapshotId, records);
  }

  /** The snapshot file's size in bytes. */
  sizeInBytes(): number {
    return this.fileRecords.sizeInBytes();
  }

  /** The whole snapshot file as records; the same object on every call, closed by `close()`. */
  records(): FileRecords {
    return this.fileRecords;
  }

  /** Raw bytes for FetchSnapshot: not aligned to batches. */
  slice(position: number, size: number): FileRecords {
    return this.fileRecords.slice(position, size);
  }

  /** Closes the file; slices and records taken from it stop working. */
  close(): void {
    this.fileRecords.close();
  }
}
