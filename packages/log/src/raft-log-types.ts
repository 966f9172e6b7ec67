import type { KRaftError } from '@kraft/protocol';
import type { FileRecords, MemoryRecords, Records } from '@kraft/records';

/** Which offsets a read may return: up to the high watermark, or up to the log end. */
export type Isolation = 'committed' | 'uncommitted';

/** A log position and the epoch of the record before it; also a snapshot id (end offset, epoch). */
export interface OffsetAndEpoch {
  readonly offset: number;
  readonly epoch: number;
}

/** Every {@link LostFlushedDataPolicy}, for checking an option given at run time. */
export const LOST_FLUSHED_DATA_POLICIES = ['refuse', 'recover-from-quorum', 'accept-loss'] as const;
/**
 * What opening a log does when recovery finds damage below the recovery point (flushed data, which
 * may have been acknowledged, is gone): `refuse` throws `FlushedDataLossError` and changes no
 * batch; `recover-from-quorum` cuts there and reports `recoveringUntilOffset()` until the log was
 * fetched and flushed back past the old recovery point (the replica must not vote meanwhile);
 * `accept-loss` cuts there and forgets the loss (an operator's explicit override).
 */
export type LostFlushedDataPolicy = (typeof LOST_FLUSHED_DATA_POLICIES)[number];

/** The offsets an append assigned or accepted (Kafka's `LogAppendInfo`), both inclusive. */
export interface LogAppendInfo {
  /** Offset of the first record appended. */
  readonly firstOffset: number;
  /** Offset of the last record appended; the log end offset is now `lastOffset + 1`. */
  readonly lastOffset: number;
}

/**
 * Why a follower append refused the fetched records: `corrupt` bytes (a bad CRC, magic or length;
 * Kafka's CorruptRecordException) or `invalid` batches that do not continue the log (offsets not
 * following its end, epochs going backwards or past the leader's, an empty or oversized set;
 * Kafka's InvalidRecordException).
 */
export type FollowerAppendRejectionReason = 'corrupt' | 'invalid';

/**
 * What `appendAsFollower` did with fetched records. Records from the network that fail the log's
 * checks are an expected outcome, not a fault of this node, so they come back as `rejected` (with
 * the typed error that says why) and nothing was appended; any other failure (IO) still throws.
 */
export type FollowerAppendResult =
  | { readonly kind: 'appended'; readonly info: LogAppendInfo }
  | FollowerAppendRejection;

/** A refused follower append: why, and the typed error the check raised. */
export interface FollowerAppendRejection {
  readonly kind: 'rejected';
  readonly reason: FollowerAppendRejectionReason;
  readonly error: KRaftError;
}

/** An offset with its physical place: the segment's base offset and the byte position inside it. */
export interface LogOffsetMetadata {
  readonly offset: number;
  readonly segmentBaseOffset: number;
  readonly relativePositionBytes: number;
}

/**
 * What a read returns (Kafka's `LogFetchInfo`): a zero-copy slice of one segment file, starting
 * at the batch that holds the requested offset.
 */
export interface LogFetchInfo {
  /**
   * Whole batches from one segment; empty when nothing is readable at the offset (at the log
   * end, or at the high watermark for a committed read).
   */
  readonly records: Records;
  /** Where the records start: the first batch's base offset (at or below the one asked for). */
  readonly startOffsetMetadata: LogOffsetMetadata;
}

/**
 * The answer to whether a follower's fetch position (offset, last fetched epoch) agrees with this
 * log (Kafka's `ValidOffsetAndEpoch`): `valid`; `diverging` with the end offset and epoch the
 * follower must truncate to; or `snapshot` with the latest snapshot id the follower must fetch
 * because the log no longer holds that position.
 */
export type ValidOffsetAndEpoch =
  | { readonly kind: 'valid' }
  | { readonly kind: 'diverging'; readonly offsetAndEpoch: OffsetAndEpoch }
  | { readonly kind: 'snapshot'; readonly offsetAndEpoch: OffsetAndEpoch };

/**
 * A raft snapshot being written (Kafka's `RawSnapshotWriter`): bytes go to a `.part` file and
 * become the snapshot only on `freeze()`, so a crash never leaves half a snapshot visible.
 * Appends after `freeze()` or `close()` throw `IllegalStateError`.
 */
export interface RawSnapshotWriter {
  /** The snapshot's id: the end offset (exclusive) and epoch of the log prefix it holds. */
  readonly snapshotId: OffsetAndEpoch;
  /** Bytes appended so far. */
  sizeInBytes(): number;
  /** Appends whole record batches (a snapshot's header, data and footer batches), as written. */
  append(records: MemoryRecords): void;
  /** Appends raw bytes as received by FetchSnapshot (not necessarily whole batches). */
  appendUnaligned(bytes: Buffer): void;
  /** Whether `freeze()` completed: the snapshot is durable and readable from the log. */
  isFrozen(): boolean;
  /** fsync, atomic rename `.part` → `.checkpoint`, directory fsync. */
  freeze(): void;
  /**
   * The same with both syncs off the event loop. With `register: false` the log does not learn of
   * the snapshot until `onSnapshotFrozen` (the raft core's install of a fetched snapshot).
   */
  freezeAsync(options?: { readonly register?: boolean }): Promise<void>;
  /** Abandons an unfrozen snapshot (deletes its `.part`); closes a frozen one. */
  close(): void;
}

/**
 * A frozen snapshot opened for reading (Kafka's `RawSnapshotReader`). The log keeps one per
 * snapshot id for every caller of `readSnapshot`: its file stays open until the log deletes the
 * snapshot or closes.
 */
export interface RawSnapshotReader {
  /** The snapshot's id: the end offset (exclusive) and epoch of the log prefix it holds. */
  readonly snapshotId: OffsetAndEpoch;
  /** The snapshot file's size in bytes. */
  sizeInBytes(): number;
  /** The whole snapshot as batches, for a `RecordsIterator` (loading it into state). */
  records(): FileRecords;
  /**
   * Up to `size` bytes from byte `position` (clamped to the end of the file), not aligned to
   * batches: what a FetchSnapshot response carries. Throws `IllegalArgumentError` for a negative
   * position or size, or a position past the end.
   */
  slice(position: number, size: number): FileRecords;
  /** Closes the file; later reads fail. */
  close(): void;
}

/** Kafka's `OffsetAndEpoch.compareTo`: epoch first, then offset (also how snapshots are ordered). */
export function compareOffsetAndEpoch(left: OffsetAndEpoch, right: OffsetAndEpoch): number {
  return left.epoch !== right.epoch ? left.epoch - right.epoch : left.offset - right.offset;
}

export function formatOffsetAndEpoch(id: OffsetAndEpoch): string {
  return `(offset=${id.offset}, epoch=${id.epoch})`;
}
