import type { Batch } from '@kraft/records';
import type { OffsetAndEpoch } from '../ports/raft-log.js';
import type { LeaderAndEpoch } from '../raft-client.js';

/**
 * One batch a RaftNode listener reads (Kafka's `Batch<T>`): a data batch carries its values decoded
 * by the node's `RecordSerde<T>`, a control batch (LeaderChange, Voters, a snapshot's header and
 * footer) carries its control records and no values. The other fields are the raw batch's
 * (`epoch` is the epoch of the leader that wrote it; `lastOffset` that of its last record).
 */
export interface DecodedBatch<T> extends Omit<Batch, 'records' | 'position'> {
  /** The values in offset order, decoded on first read: `records[i]` has offset `baseOffset + i`. Empty for a control batch. */
  readonly records: readonly T[];
}

/**
 * Committed batches, decoded as they are read (Kafka's `BatchReader<T>`). Every batch it yields
 * ends below the high watermark the node knew when it handed the reader over: a listener never
 * sees an uncommitted value. Closing it tells the node the listener's progress (its next
 * `handleCommit` starts after the last batch read); it may be read and closed after
 * `handleCommit` returns, on a later turn of the event loop.
 */
export interface DecodedBatchReader<T> extends Iterable<DecodedBatch<T>> {
  readonly baseOffset: number;
  /** The last offset of the last batch, known once the reader is exhausted or closed. */
  lastOffset(): number | undefined;
  /** Marks the reader done (idempotent); no batch is read after it. */
  close(): void;
}

/** A frozen snapshot's batches, decoded as they are read (Kafka's `SnapshotReader<T>`). */
export interface DecodedSnapshotReader<T> extends Iterable<DecodedBatch<T>> {
  readonly snapshotId: OffsetAndEpoch;
  /** `snapshotId.offset - 1`: the last log offset the snapshot covers. */
  readonly lastContainedLogOffset: number;
  readonly lastContainedLogEpoch: number;
  /** From the snapshot's header record. */
  lastContainedLogTimestamp(): number;
  /** Marks the reader closed; reading batches after it is an error. */
  close(): void;
}

/**
 * What a `RaftNode<T>` calls with committed values of type `T` (Kafka's `RaftClient.Listener<T>`),
 * beside or instead of a `StateMachine<T>`. Every call runs on the event loop between raft polls,
 * in log order. A listener that needs the serialized bytes (one that decodes itself, as
 * `@kraft/metadata`'s `MetadataLoader` does) is registered as `rawListener` instead.
 */
export interface RaftNodeListener<T> {
  /** Committed batches, in offset order, never an offset at or above the high watermark. */
  handleCommit(reader: DecodedBatchReader<T>): void;
  /** The listener is behind the log start (or new): it must reset its state from this snapshot. */
  handleLoadSnapshot(reader: DecodedSnapshotReader<T>): void;
  /**
   * At most twice per epoch (leader unknown, then known); epochs only grow. When this node becomes
   * leader the call waits until the listener has read up to the epoch start.
   */
  handleLeaderChange?(leader: LeaderAndEpoch): void;
  /** The node is shutting down; no more callbacks follow. */
  beginShutdown?(): void;
}
