import type { FileRecords, MemoryRecords, Records } from '@kraft/records';

/** Which offsets a read may return: up to the high watermark, or up to the log end. */
export type Isolation = 'committed' | 'uncommitted';

/** A log position and the epoch of the record before it; also a snapshot id (end offset, epoch). */
export interface OffsetAndEpoch {
  readonly offset: number;
  readonly epoch: number;
}

/**
 * What opening a log does when recovery finds damage below the recovery point (flushed data, which
 * may have been acknowledged, is gone): `refuse` throws `FlushedDataLossError` and changes no
 * batch; `recover-from-quorum` cuts there and reports `recoveringUntilOffset()` until the log was
 * fetched and flushed back past the old recovery point (the replica must not vote meanwhile);
 * `accept-loss` cuts there and forgets the loss (an operator's explicit override).
 */
export const LOST_FLUSHED_DATA_POLICIES = ['refuse', 'recover-from-quorum', 'accept-loss'] as const;
export type LostFlushedDataPolicy = (typeof LOST_FLUSHED_DATA_POLICIES)[number];

export interface LogAppendInfo {
  readonly firstOffset: number;
  readonly lastOffset: number;
}

/** An offset with its physical place: the segment's base offset and the byte position inside it. */
export interface LogOffsetMetadata {
  readonly offset: number;
  readonly segmentBaseOffset: number;
  readonly relativePositionBytes: number;
}

export interface LogFetchInfo {
  readonly records: Records;
  readonly startOffsetMetadata: LogOffsetMetadata;
}

export type ValidOffsetAndEpoch =
  | { readonly kind: 'valid' }
  | { readonly kind: 'diverging'; readonly offsetAndEpoch: OffsetAndEpoch }
  | { readonly kind: 'snapshot'; readonly offsetAndEpoch: OffsetAndEpoch };

export interface RawSnapshotWriter {
  readonly snapshotId: OffsetAndEpoch;
  sizeInBytes(): number;
  append(records: MemoryRecords): void;
  /** Appends raw bytes as received by FetchSnapshot (not necessarily whole batches). */
  appendUnaligned(bytes: Buffer): void;
  isFrozen(): boolean;
  /** fsync, atomic rename `.part` → `.checkpoint`, directory fsync. */
  freeze(): void;
  /** Abandons an unfrozen snapshot (deletes its `.part`); closes a frozen one. */
  close(): void;
}

export interface RawSnapshotReader {
  readonly snapshotId: OffsetAndEpoch;
  sizeInBytes(): number;
  records(): FileRecords;
  slice(position: number, size: number): FileRecords;
  close(): void;
}

/** Kafka's `OffsetAndEpoch.compareTo`: epoch first, then offset (also how snapshots are ordered). */
export function compareOffsetAndEpoch(left: OffsetAndEpoch, right: OffsetAndEpoch): number {
  return left.epoch !== right.epoch ? left.epoch - right.epoch : left.offset - right.offset;
}

export function formatOffsetAndEpoch(id: OffsetAndEpoch): string {
  return `(offset=${id.offset}, epoch=${id.epoch})`;
}
