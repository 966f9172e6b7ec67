/**
 * The public client API (Kafka's `RaftClient` and `RaftClient.Listener`). `@kraft/metadata` and
 * applications talk to raft only through these types.
 *
 * Records are opaque byte values here: the application serializes (Kafka's `RecordSerde`), raft
 * frames each value as one record of a v2 batch. Every call runs on the thread (event-loop turn)
 * that drives `poll`; listener callbacks run there too and must only enqueue work.
 */
import type { Batch } from '@kraft/records';
import type { OffsetAndEpoch } from './ports/raft-log.js';

/** The leader of an epoch as this node knows it; `leaderId` is undefined while unknown. */
export interface LeaderAndEpoch {
  readonly leaderId: number | undefined;
  readonly epoch: number;
}

/** No known leader at epoch 0: what a client reports before it has loaded or learned any election state. */
export const UNKNOWN_LEADER_AND_EPOCH: LeaderAndEpoch = Object.freeze({ leaderId: undefined, epoch: 0 });

/**
 * Committed batches handed to `Listener.handleCommit`. Iterating decodes lazily from the log's
 * committed slice. Closing it reports the listener's progress: its next commit starts after the
 * last batch it was given. Every offset it yields is below the high watermark at the time it was
 * created.
 */
export interface BatchReader extends Iterable<Batch> {
  readonly baseOffset: number;
  /** The last offset of the last batch, known once the reader is exhausted or closed. */
  lastOffset(): number | undefined;
  /** Marks the reader done (idempotent) and reports it to the client; no batch is read after it. */
  close(): void;
}

/** A frozen snapshot handed to `Listener.handleLoadSnapshot`, decoded lazily. */
export interface SnapshotReader extends Iterable<Batch> {
  readonly snapshotId: OffsetAndEpoch;
  /** `snapshotId.offset - 1`: the last log offset the snapshot covers. */
  readonly lastContainedLogOffset: number;
  readonly lastContainedLogEpoch: number;
  /** From the SnapshotHeader record (read on first access). */
  lastContainedLogTimestamp(): number;
  /** Marks the reader closed; reading batches after it is an error. */
  close(): void;
}

/**
 * A typed snapshot under construction: the header batch (SnapshotHeaderRecord) is written on
 * creation, `append` adds the caller's records, `freeze` appends the SnapshotFooterRecord and
 * makes the snapshot durable and visible.
 */
export interface SnapshotWriter {
  readonly snapshotId: OffsetAndEpoch;
  readonly lastContainedLogOffset: number;
  readonly lastContainedLogEpoch: number;
  /** True once `freeze()` returned; a frozen writer accepts no more appends. */
  isFrozen(): boolean;
  /** One call's records form one batch (up to the maximum batch size). */
  append(records: readonly Buffer[]): void;
  /** Appends the footer, freezes the raw snapshot and returns its size in bytes. */
  freeze(): number;
  /** Abandons the snapshot if it was not frozen. */
  close(): void;
}

/**
 * Application callbacks registered on a raft client (Kafka's `RaftClient.Listener`): committed batches,
 * snapshots to load, and leadership changes.
 */
export interface Listener {
  /** Committed batches, in offset order, never an offset at or above the high watermark. */
  handleCommit(reader: BatchReader): void;
  /** The listener is behind the log start (or new): it must reset its state from this snapshot. */
  handleLoadSnapshot(reader: SnapshotReader): void;
  /**
   * At most twice per epoch (leader unknown, then known); epochs only grow. When this node
   * becomes leader the call waits until the listener has read up to the epoch start (KAFKA-15345).
   */
  handleLeaderChange?(leader: LeaderAndEpoch): void;
  /** The client is shutting down; no more callbacks follow. */
  beginShutdown?(): void;
}

/**
 * The application's view of the raft layer (Kafka's `RaftClient`): register listeners, append as
 * leader, take snapshots, shut down. Methods are called on the thread that polls the client.
 */
export interface RaftClient {
  /** Takes effect at the end of the next `poll` (Kafka's `pollListeners`). */
  register(listener: Listener): void;
  /** Removes a registered listener; like `register`, it takes effect at the end of the next `poll`. */
  unregister(listener: Listener): void;
  /** Undefined until this node knows a high watermark. */
  highWatermark(): number | undefined;
  /** The current epoch and its leader as this node knows it (`leaderId` undefined while unknown). */
  leaderAndEpoch(): LeaderAndEpoch;
  /** Undefined for an observer that has no node id. */
  nodeId(): number | undefined;
  /**
   * Prepares one batch holding `records` and returns its last offset. Throws NotLeaderError if
   * this node is not the leader of `epoch`, BatchAccumulatorFullError when the accumulator is
   * full (back off and retry after a poll), RecordBatchTooLargeError above the max batch size.
   * The batch is not appended until `schedulePreparedAppend()`.
   */
  prepareAppend(epoch: number, records: readonly Buffer[]): number;
  /** Lets batches prepared by `prepareAppend` drain to the log on the next poll (no-op when not leader). */
  schedulePreparedAppend(): void;
  /** `prepareAppend` + `schedulePreparedAppend`. */
  scheduleAppend(epoch: number, records: readonly Buffer[]): number;
  /** Leader only: gives up leadership of `epoch` (sends EndQuorumEpoch). */
  resign(epoch: number): void;
  /**
   * A writer for a snapshot ending at `snapshotId.offset` (exclusive), which must be a committed
   * (≤ HWM) batch-aligned offset whose epoch matches the log. Undefined if that snapshot exists.
   */
  createSnapshot(snapshotId: OffsetAndEpoch, lastContainedLogTimestamp: number): SnapshotWriter | undefined;
  /** The newest frozen snapshot's id, or undefined when the log has none. */
  latestSnapshotId(): OffsetAndEpoch | undefined;
  /** The log end offset: the offset the next appended record gets. */
  logEndOffset(): number;
  /**
   * Begins a graceful shutdown with deadline `nowMs + timeoutMs` (a leader resigns first); repeats
   * are ignored. Poll until `isShutdownComplete()`.
   */
  shutdown(timeoutMs: number, nowMs: number): void;
  /** True once the shutdown started by `shutdown` has finished; no more callbacks follow. */
  isShutdownComplete(): boolean;
}
