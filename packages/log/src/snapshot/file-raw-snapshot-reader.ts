import { FileRecords, type FileSystem } from '@kraft/records';
import type { OffsetAndEpoch, RawSnapshotReader } from '../raft-log-types.js';
import { snapshotFilePath } from './snapshot-path.js';

/** A frozen snapshot as a read-only FileRecords (Kafka `FileRawSnapshotReader`). */
export class FileRawSnapshotReader implements RawSnapshotReader {
  private constructor(
    readonly snapshotId: OffsetAndEpoch,
    private readonly fileRecords: FileRecords,
  ) {}

  static open(fileSystem: FileSystem, directory: string, snapshotId: OffsetAndEpoch): FileRawSnapshotReader {
    const records = FileRecords.open(snapshotFilePath(directory, snapshotId), { mutable: false, fileSystem });
    return new FileRawSnapshotReader(snapshotId, records);
  }

  sizeInBytes(): number {
    return this.fileRecords.sizeInBytes();
  }

  records(): FileRecords {
    return this.fileRecords;
  }

  /** Raw bytes for FetchSnapshot: not aligned to batches. */
  slice(position: number, size: number): FileRecords {
    return this.fileRecords.slice(position, size);
  }

  close(): void {
    this.fileRecords.close();
  }
}
