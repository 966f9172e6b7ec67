import type { Logger } from '@kraft/protocol';
import { invariant, KRaftError } from '@kraft/protocol';
import { PacedAppendLoop } from './paced-append-loop.js';
import { createPerformanceRecord } from './performance-record.js';
import { type WorkloadHistory, writeRecordTag } from './workload-history.js';
import type { WorkloadScheduler } from './workload-scheduler.js';

/** The part of `RaftClient` the generator uses (the real client satisfies it structurally). */
export interface WorkloadAppender {
  /** Returns the last offset of the records; throws NOT_LEADER / BATCH_ACCUMULATOR_FULL errors. */
  scheduleAppend(epoch: number, records: readonly Buffer[]): number;
}

export interface RaftWorkloadGeneratorOptions {
  readonly client: WorkloadAppender;
  readonly localNodeId: number;
  readonly throughputRecordsPerSecond: number;
  readonly recordSizeBytes: number;
  /** Appended but not yet committed bytes above which the generator waits for commits. */
  readonly maxOutstandingBytes: number;
  /** Timers, and the clock that times each append for commit latency. */
  readonly scheduler: WorkloadScheduler;
  /** Called after records were handed to the client, so the driver polls it soon. */
  readonly onAppended: () => void;
  readonly logger: Logger;
  /**
   * With a history (`--history-file`), every record carries a unique (node, epoch, sequence) tag
   * and every append is recorded as an operation: invoke, then ok, fail or info.
   */
  readonly history?: WorkloadHistory;
  /**
   * Time each append from when the throttler meant its first record to go rather than from when
   * it went: an open-loop run offered more than the quorum commits waits for commits (the
   * outstanding-bytes bound), and that wait then counts in the latency instead of being omitted.
   */
  readonly latencyFromIntendedSend?: boolean;
}

/** One call's records form one batch; 256 KiB keeps batches in the range that fsyncs best. */
const MAX_APPEND_BYTES = 256 * 1024;
/** Consumed pending appends are dropped from the queue's front once this many have piled up. */
const PENDING_APPENDS_COMPACT_AT = 1024;

/** Records `firstOffset..lastOffset`, handed to the client at `appendTimeMs` (Kafka's PendingAppend). */
interface PendingAppend {
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly appendTimeMs: number;
}

/** An invoked history operation not yet completed: the records with sequences from `firstSequence`. */
interface PendingOperation {
  readonly firstSequence: number;
  readonly firstOffset: number;
  readonly lastOffset: number;
}

/**
 * Kafka's RaftWorkloadGenerator, without its thread: while this node leads, it appends records of
 * `recordSizeBytes` at `throughputRecordsPerSecond` to the raft client, throttled as Kafka does.
 * Unlike Kafka, which stops for good when its accumulator is full, it applies backpressure: it
 * waits while `maxOutstandingBytes` are appended but uncommitted, or while the accumulator is full.
 * As in Kafka, it remembers when it appended each record of its epoch, so that the leader alone
 * measures commit latency, for its own appends, on one clock.
 */
export class RaftWorkloadGenerator {
  private readonly loop: PacedAppendLoop;
  private claimedEpoch: number | undefined;
  private lastAppendedOffset = -1;
  private committedThroughOffset = -1;
  /** Appends of the claimed epoch not yet committed, oldest first from `pendingHead`; bounded by `maxOutstandingBytes`. */
  private pendingAppends: PendingAppend[] = [];
  private pendingHead = 0;
  /** With a history: the next record's sequence in the claimed epoch (refused appends use theirs up too). */
  private nextSequence = 0;
  /** With a history: invoked operations awaiting their commit, oldest first; bounded as `pendingAppends`. */
  private pendingOperations: PendingOperation[] = [];
  private stopped = false;

  constructor(private readonly options: RaftWorkloadGeneratorOptions) {
    this.loop = new PacedAppendLoop({
      throughputRecordsPerSecond: options.throughputRecordsPerSecond,
      scheduler: options.scheduler,
      maxRecordsPerAppend: Math.max(1, Math.floor(MAX_APPEND_BYTES / options.recordSizeBytes)),
      appendEpoch: () => (this.stopped ? undefined : this.claimedEpoch),
      budget: () =>
        Math.floor((options.maxOutstandingBytes - this.outstandingBytes()) / options.recordSizeBytes),
      append: (epoch, count) => this.append(epoch, count),
      logger: options.logger,
    });
  }

  /** The epoch this node leads and writes in, if any. */
  claimedLeaderEpoch(): number | undefined {
    return this.claimedEpoch;
  }

  outstandingBytes(): number {
    return Math.max(0, this.lastAppendedOffset - this.committedThroughOffset) * this.options.recordSizeBytes;
  }

  /** From `Listener.handleLeaderChange`: starts writing when this node becomes the leader. */
  handleLeaderChange(leaderId: number | undefined, epoch: number): void {
    if (leaderId === this.options.localNodeId) {
      if (this.claimedEpoch === epoch) return;
      this.abandonPendingOperations();
      this.claimedEpoch = epoch;
      this.nextSequence = 0;
      this.lastAppendedOffset = -1;
      this.committedThroughOffset = -1;
      this.clearPendingAppends();
      this.loop.resetPacing();
      this.options.logger.info({ epoch }, 'workload started: this node leads');
      this.loop.schedule(0);
    } else if (this.claimedEpoch !== undefined) {
      this.options.logger.info({ epoch, leaderId }, 'workload paused: this node no longer leads');
      this.abandonPendingOperations();
      this.claimedEpoch = undefined;
      this.clearPendingAppends();
      this.loop.cancel();
    }
  }

  /**
   * When this node appended the record at `offset` of `epoch`, or undefined when it did not
   * append it in the epoch it leads (a follower's records, another leader's, a resigned epoch).
   * Commits arrive in offset order, so the appends before `offset` are dropped on the way.
   */
  takeAppendTimeMs(epoch: number, offset: number): number | undefined {
    if (epoch !== this.claimedEpoch) return undefined;
    while (this.pendingHead < this.pendingAppends.length) {
      const pending = this.pendingAppends[this.pendingHead] as PendingAppend;
      if (offset < pending.firstOffset) return undefined;
      if (offset <= pending.lastOffset) return pending.appendTimeMs;
      this.pendingHead += 1;
    }
    this.compactPendingAppends();
    return undefined;
  }

  /** A committed data batch of `epoch` ending at `lastOffset` (from `Listener.handleCommit`). */
  handleCommitted(epoch: number, lastOffset: number): void {
    if (epoch !== this.claimedEpoch || this.lastAppendedOffset < 0) return;
    invariant(
      lastOffset <= this.lastAppendedOffset,
      () =>
        `unexpected commit at offset ${lastOffset} in epoch ${epoch}: last append was ${this.lastAppendedOffset}`,
    );
    if (lastOffset > this.committedThroughOffset) this.committedThroughOffset = lastOffset;
    this.completeCommittedOperations(epoch);
    this.compactPendingAppends();
    this.loop.resumeIfWaiting();
  }

  stop(): void {
    this.stopped = true;
    this.abandonPendingOperations();
    this.claimedEpoch = undefined;
    this.clearPendingAppends();
    this.loop.cancel();
  }

  /** Appends `count` records and returns `count`; raft's refusal is recorded, then thrown to the loop. */
  private append(epoch: number, count: number): number {
    const records = this.createRecords(epoch, count);
    const firstSequence = this.nextSequence;
    this.nextSequence += this.options.history === undefined ? 0 : count;
    this.options.history?.record('invoke', epoch, firstSequence, count);
    const appendTimeMs =
      this.options.latencyFromIntendedSend === true
        ? this.loop.intendedSendTimeMs()
        : this.options.scheduler.nowMs();
    let lastOffset: number;
    try {
      lastOffset = this.options.client.scheduleAppend(epoch, records);
    } catch (error) {
      this.recordRefusedOperation(error, epoch, firstSequence, count);
      throw error;
    }
    if (this.options.history !== undefined) {
      this.pendingOperations.push({ firstSequence, firstOffset: lastOffset - count + 1, lastOffset });
    }
    if (this.lastAppendedOffset < 0) this.committedThroughOffset = lastOffset - count;
    this.lastAppendedOffset = lastOffset;
    this.pendingAppends.push({ firstOffset: lastOffset - count + 1, lastOffset, appendTimeMs });
    this.options.onAppended();
    return count;
  }

  /**
   * Kafka's zero-filled records, one buffer shared by all; with a history, each record its own
   * tagged slice of one allocation for the whole append.
   */
  private createRecords(epoch: number, count: number): Buffer[] {
    const size = this.options.recordSizeBytes;
    if (this.options.history === undefined) {
      return new Array<Buffer>(count).fill(createPerformanceRecord(size));
    }
    const block = Buffer.alloc(size * count);
    const records = new Array<Buffer>(count);
    for (let index = 0; index < count; index++) {
      const record = block.subarray(index * size, (index + 1) * size);
      writeRecordTag(record, this.options.localNodeId, epoch, this.nextSequence + index);
      records[index] = record;
    }
    return records;
  }

  /** NOT_LEADER and a full accumulator refuse the records before they reach the log: a definite fail. */
  private recordRefusedOperation(error: unknown, epoch: number, firstSequence: number, count: number): void {
    const history = this.options.history;
    if (history === undefined) return;
    const code = KRaftError.isInstance(error) ? error.code : 'UNKNOWN';
    const refused = code === 'NOT_LEADER' || code === 'BATCH_ACCUMULATOR_FULL';
    history.record(refused ? 'fail' : 'info', epoch, firstSequence, count, { error: code });
  }

  /** Operations whose last record is committed are acknowledged: `ok`, with their first offset. */
  private completeCommittedOperations(epoch: number): void {
    const history = this.options.history;
    if (history === undefined) return;
    let completed = 0;
    for (const operation of this.pendingOperations) {
      if (operation.lastOffset > this.committedThroughOffset) break;
      const count = operation.lastOffset - operation.firstOffset + 1;
      history.record('ok', epoch, operation.firstSequence, count, { firstOffset: operation.firstOffset });
      completed += 1;
    }
    if (completed > 0) this.pendingOperations.splice(0, completed);
  }

  /** Leadership lost or the server stopping: what was invoked and not seen committed is indeterminate. */
  private abandonPendingOperations(): void {
    const history = this.options.history;
    const epoch = this.claimedEpoch;
    if (history !== undefined && epoch !== undefined) {
      for (const operation of this.pendingOperations) {
        const count = operation.lastOffset - operation.firstOffset + 1;
        history.record('info', epoch, operation.firstSequence, count, { firstOffset: operation.firstOffset });
      }
    }
    this.pendingOperations = [];
  }

  private clearPendingAppends(): void {
    this.pendingAppends = [];
    this.pendingHead = 0;
  }

  /** Drops the committed appends from the front: those up to `committedThroughOffset`. */
  private compactPendingAppends(): void {
    while (
      this.pendingHead < this.pendingAppends.length &&
      (this.pendingAppends[this.pendingHead] as PendingAppend).lastOffset <= this.committedThroughOffset
    ) {
      this.pendingHead += 1;
    }
    if (this.pendingHead >= PENDING_APPENDS_COMPACT_AT || this.pendingHead === this.pendingAppends.length) {
      this.pendingAppends = this.pendingAppends.slice(this.pendingHead);
      this.pendingHead = 0;
    }
  }
}
