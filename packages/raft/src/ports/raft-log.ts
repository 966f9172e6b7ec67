/**
 * The RaftLog port: the replicated log as the raft core sees it. Implemented by `@kraft/log`
 * (`RaftLog` over segments on a FileSystem) and by `MockLog` in the package's test kit (`test/kit`). The raft
 * core may not import `@kraft/log` (only `src/io/` may), so this file is the contract: the log's
 * class must satisfy it structurally.
 *
 * Everything here is synchronous (page-cache writes, positional reads) except `flush()`: the
 * core never awaits; the driver flushes and reports `client.onLogFlushed(offset, nowMs)`.
 * Offsets and epochs are safe-integer numbers. Errors are typed KRaftError subclasses.
 */
import type { KRaftError } from '@kraft/protocol';
import type { MemoryRecords, Records } from '@kraft/records';

/** Which prefix of the log a read may see: up to the high watermark, or up to the log end. */
export type Isolation = 'committed' | 'uncommitted';

/** An (offset, epoch) pair. Snapshot ids use it too: the offset is exclusive (the end offset). */
export interface OffsetAndEpoch {
  readonly offset: number;
  readonly epoch: number;
}

/**
 * Orders by epoch first, then offset (Kafka's `OffsetAndEpoch.compareTo`): the comparison that
 * decides whether a candidate's log is at least as up to date as ours.
 */
export function compareOffsetAndEpoch(left: OffsetAndEpoch, right: OffsetAndEpoch): number {
  if (left.epoch !== right.epoch) return left.epoch < right.epoch ? -1 : 1;
  if (left.offset !== right.offset) return left.offset < right.offset ? -1 : 1;
  return 0;
}

/** The offsets an append assigned: first and last offset of the appended batches, both inclusive. */
export interface LogAppendInfo {
  readonly firstOffset: number;
  readonly lastOffset: number;
}

/**
 * Why a follower append refused fetched records: `corrupt` bytes (bad CRC, magic or length;
 * Kafka's CorruptRecordException) or `invalid` batches that do not continue the log (offsets not
 * following its end, epochs going backwards or past the leader's; Kafka's InvalidRecordException).
 */
export type FollowerAppendRejectionReason = 'corrupt' | 'invalid';

/** A refused follower append: why, and the typed error the log's check raised. */
export interface FollowerAppendRejection {
  readonly kind: 'rejected';
  readonly reason: FollowerAppendRejectionReason;
  readonly error: KRaftError;
}

/**
 * What `appendAsFollower` did. Records from the network that fail the log's checks are input to
 * judge, not a fault of this node (Kafka logs them and fetches again), so they come back as a
 * value with nothing appended; every other failure (IO) is thrown.
 */
export type FollowerAppendResult =
  | { readonly kind: 'appended'; readonly info: LogAppendInfo }
  | FollowerAppendRejection;

/** A physical position hint: the segment holding `offset` and the byte position inside it. */
export interface LogOffsetMetadata {
  readonly offset: number;
  readonly segmentBaseOffset: number;
  readonly relativePositionBytes: number;
}

/** A read from the log: the record batches and the physical position of the first one. */
export interface LogFetchInfo {
  readonly records: Records;
  readonly startOffsetMetadata: LogOffsetMetadata;
}

/** Result of checking a follower's (fetchOffset, lastFetchedEpoch) against the leader's log. */
export type ValidOffsetAndEpoch =
  | { readonly kind: 'valid' }
  | { readonly kind: 'diverging'; readonly offsetAndEpoch: OffsetAndEpoch }
  | { readonly kind: 'snapshot'; readonly offsetAndEpoch: OffsetAndEpoch };

/** Byte-level writer of one snapshot file (Kafka's `RawSnapshotWriter`): a `.part` file until frozen. */
export interface RawSnapshotWriter {
  readonly snapshotId: OffsetAndEpoch;
  /** Bytes written so far. */
  sizeInBytes(): number;
  /** Appends whole batches (the typed SnapshotWriter's path). */
  append(records: MemoryRecords): void;
  /** Appends raw bytes at the current position (FetchSnapshot chunks are not batch aligned). */
  appendUnaligned(bytes: Buffer): void;
  /** True once `freeze()` returned: the snapshot is durable and no longer accepts appends. */
  isFrozen(): boolean;
  /**
   * fsync, atomic rename `.part` → `.checkpoint`, directory fsync (synchronous). On return the
   * snapshot is registered with its log (`readSnapshot`/`latestSnapshotId` see it): the log
   * wires its own `onSnapshotFrozen` into the writers it creates, so callers never call it.
   */
  freeze(): void;
  /** Abandons an unfrozen snapshot (deletes the `.part`); a no-op after freeze. */
  close(): void;
}

/** Byte-level reader of one frozen snapshot (Kafka's `RawSnapshotReader`). */
export interface RawSnapshotReader {
  readonly snapshotId: OffsetAndEpoch;
  /** The snapshot's total size in bytes. */
  sizeInBytes(): number;
  /** The whole snapshot (a FileRecords in `@kraft/log`; in-memory logs may return MemoryRecords). */
  records(): Records;
  /**
   * An unaligned chunk for FetchSnapshot: exactly `min(size, sizeInBytes() - position)` bytes
   * (the bytes, not whole batches).
   */
  slice(position: number, size: number): Records;
  /** Releases the file handle; readers from `readSnapshot` are closed by their log instead. */
  close(): void;
}

/**
 * Port for the replicated metadata log and its snapshots (Kafka's `ReplicatedLog`). All offsets are
 * log offsets; the core calls it synchronously except for `flush`.
 */
export interface RaftLog {
  /** Assigns offsets from `endOffset()` and stamps `epoch` as the partition leader epoch. */
  appendAsLeader(records: MemoryRecords, epoch: number): LogAppendInfo;
  /**
   * Appends batches that already carry offsets; they must start at `endOffset()`. Records that
   * fail validation are `rejected` and nothing is appended; IO failures throw.
   */
  appendAsFollower(records: Records, epoch: number): FollowerAppendResult;
  /**
   * At least one whole batch when data exists at `startOffset`. A committed read ends exactly at
   * the high watermark's byte position (never past it, KAFKA-20841).
   */
  read(startOffset: number, isolation: Isolation, maxSizeBytes?: number): LogFetchInfo;
  /** The log start offset: the first offset still readable (after a snapshot it is the snapshot's end). */
  startOffset(): number;
  /** The log end offset: the next offset to assign. */
  endOffset(): number;
  /** The high watermark: every offset below it is committed. */
  highWatermark(): number;
  /** Monotonic; clamps to `endOffset()`. */
  updateHighWatermark(offset: number): void;
  /** Epoch of the last batch, else the latest snapshot's epoch, else 0. */
  lastFetchedEpoch(): number;
  /** The end offset of `epoch` (start of the next higher epoch) and the largest epoch ≤ `epoch`. */
  endOffsetForEpoch(epoch: number): OffsetAndEpoch;
  /**
   * Checks a follower's fetch position (Kafka's `validateOffsetAndEpoch`): valid, diverging (with the
   * offset and epoch to truncate to), or below the log start (the snapshot it must fetch).
   */
  validateOffsetAndEpoch(offset: number, epoch: number): ValidOffsetAndEpoch;
  /** Never below the high watermark (typed error); lowers `lastFlushedOffset()` if needed. */
  truncateTo(offset: number): void;
  /**
   * After a fetched snapshot: when the latest snapshot is ahead of the log (an epoch newer than the
   * log's latest, an offset past the log end whatever the tail's epoch, or at the log end in another
   * epoch), resets the log to start at it and returns true.
   */
  truncateToLatestSnapshot(): boolean;
  /**
   * The durable half of installing a downloaded snapshot, run by the driver (never by the core):
   * freezes `writer` off the event loop (fdatasync, rename to its final name, directory sync)
   * without registering it, then makes the log start it will set durable. The log shows nothing
   * new until the core calls `onSnapshotFrozen` and `truncateToLatestSnapshot` (ADR 0039).
   */
  freezeFetchedSnapshot(writer: RawSnapshotWriter): Promise<void>;
  /** Records that `epoch` starts at `endOffset()` in the leader-epoch cache, as a new leader does first. */
  initializeLeaderEpoch(epoch: number): void;
  /** Asynchronous fdatasync of everything appended so far; resolves to the durable end offset. */
  flush(): Promise<number>;
  /** The end offset known durable: every offset below it survives a crash. */
  lastFlushedOffset(): number;
  /**
   * Set while this replica recovers flushed data its log lost (a damaged segment cut at open): the
   * offset it must fetch and flush back past. Meanwhile the core runs it as a non-voting observer
   * (no votes or pre-votes granted, never a candidate), so a log that lost acknowledged entries
   * cannot help elect a leader without them (protocol-aware recovery, Alagappan et al., FAST '18).
   * Durable across restarts; optional for logs that never lose flushed data.
   */
  recoveringUntilOffset?(): number | undefined;
  /**
   * A writer for a snapshot of the committed log ending at `snapshotId.offset` (exclusive).
   * `undefined` if the snapshot already exists or is below the log start; a typed error when the
   * id is above the high watermark, does not match the log's epochs, or is not batch aligned.
   */
  createNewSnapshot(snapshotId: OffsetAndEpoch): RawSnapshotWriter | undefined;
  /**
   * A writer without the log checks, for a snapshot fetched from the leader (FetchSnapshot): the
   * follower's log is behind it by definition. `undefined` if that snapshot already exists.
   */
  createNewSnapshotUnchecked(snapshotId: OffsetAndEpoch): RawSnapshotWriter | undefined;
  /**
   * The frozen snapshot's reader. The log owns it (it may cache and share it, and closes it when
   * the snapshot is deleted): callers never close it.
   */
  readSnapshot(snapshotId: OffsetAndEpoch): RawSnapshotReader | undefined;
  /** The id of the newest frozen snapshot, or undefined when there is none. */
  latestSnapshotId(): OffsetAndEpoch | undefined;
  /** The id of the oldest frozen snapshot still kept, or undefined when there is none. */
  earliestSnapshotId(): OffsetAndEpoch | undefined;
  /**
   * Registers a snapshot its writer just froze. The log's own writers call it on `freeze()`; the
   * core calls it for a fetched snapshot once `freezeFetchedSnapshot` made it durable.
   */
  onSnapshotFrozen(snapshotId: OffsetAndEpoch): void;
  /**
   * Advances the log start to the snapshot, dropping segments and older snapshots below it; false
   * (never an error) when the snapshot is unknown, not above the log start, or above the HWM.
   */
  deleteBeforeSnapshot(snapshotId: OffsetAndEpoch): boolean;
  /** Retention by `metadata.max.retention.bytes/.ms`; skips snapshots above the high watermark. */
  maybeClean(nowMs: number): boolean;
  /** Flush + clean-shutdown marker. */
  close(): void;
}
