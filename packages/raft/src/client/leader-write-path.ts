import { invariant } from '@kraft/protocol';
import { buildControlBatch, type ControlRecordMessage, MemoryRecordsBuilder } from '@kraft/records';
import type { RaftMetricsRecorder } from '../internals/raft-metrics-recorder.js';
import type { LogAppendInfo, RaftLog } from '../ports/raft-log.js';
import type { LeaderState } from '../states/leader-state.js';

interface PendingCommit {
  readonly lastOffset: number;
  readonly appendTimeMs: number;
}

/** Appended batches tracked for the commit-latency metric until they commit. */
export const MAX_PENDING_COMMITS = 100_000;

/**
 * The leader write path: drains the accumulator into the log, and on each high-watermark advance
 * updates the log and the commit-latency metric. Its callers answer the parked fetches after
 * either (new data, a new high watermark): the write path knows nothing of the fetch handler.
 */
export class LeaderWritePath {
  private pendingCommits: PendingCommit[] = [];
  private commitLatencyTotalMs = 0;
  private commitLatencyMaxMs: number | undefined;
  private committedBatches = 0;

  constructor(
    private readonly log: RaftLog,
    private readonly metrics: Pick<RaftMetricsRecorder, 'onAppendedAsLeader'>,
  ) {}

  /** Appends what the accumulator completed; true when it appended something. */
  maybeAppendBatches(leader: LeaderState, nowMs: number): boolean {
    if (!leader.accumulator.needsDrain(nowMs)) return false;
    const batches = leader.accumulator.drain(nowMs);
    if (batches.length === 0) return false;
    for (const batch of batches) {
      const builder = new MemoryRecordsBuilder({
        baseOffset: batch.baseOffset,
        partitionLeaderEpoch: leader.epoch,
      });
      for (const value of batch.records) builder.append({ timestamp: batch.appendTimeMs, value });
      const info = this.log.appendAsLeader(builder.build(), leader.epoch);
      invariant(
        info.firstOffset === batch.baseOffset && info.lastOffset === batch.lastOffset,
        () =>
          `appended [${info.firstOffset}, ${info.lastOffset}], accumulator assigned [${batch.baseOffset}, ${batch.lastOffset}]`,
      );
      this.metrics.onAppendedAsLeader(info.firstOffset, info.lastOffset);
      // Only the commit-latency metric reads these: past the bound the oldest sample is dropped.
      if (this.pendingCommits.length >= MAX_PENDING_COMMITS) this.pendingCommits.shift();
      this.pendingCommits.push({ lastOffset: batch.lastOffset, appendTimeMs: batch.appendTimeMs });
    }
    return true;
  }

  /**
   * Appends `records` as one control batch of the leader's epoch at the accumulator's next offset.
   * Only when the accumulator holds nothing (see `BatchAccumulator.reserveControlOffsets`).
   */
  appendControlBatch(
    leader: LeaderState,
    records: readonly ControlRecordMessage[],
    nowMs: number,
  ): LogAppendInfo {
    const baseOffset = leader.accumulator.reserveControlOffsets(records.length);
    const info = this.log.appendAsLeader(
      buildControlBatch({ baseOffset, partitionLeaderEpoch: leader.epoch, timestamp: nowMs }, records),
      leader.epoch,
    );
    invariant(
      info.firstOffset === baseOffset && info.lastOffset === baseOffset + records.length - 1,
      () =>
        `appended control batch [${info.firstOffset}, ${info.lastOffset}], accumulator reserved ${records.length} from ${baseOffset}`,
    );
    this.metrics.onAppendedAsLeader(info.firstOffset, info.lastOffset);
    return info;
  }

  onLeaderHighWatermarkChanged(leader: LeaderState, nowMs: number): void {
    const highWatermark = leader.highWatermark();
    if (highWatermark === undefined) return;
    this.log.updateHighWatermark(highWatermark);
    while (
      this.pendingCommits.length > 0 &&
      (this.pendingCommits[0] as PendingCommit).lastOffset < highWatermark
    ) {
      const commit = this.pendingCommits.shift() as PendingCommit;
      const latencyMs = Math.max(0, nowMs - commit.appendTimeMs);
      this.committedBatches += 1;
      this.commitLatencyTotalMs += latencyMs;
      this.commitLatencyMaxMs = Math.max(this.commitLatencyMaxMs ?? 0, latencyMs);
    }
  }

  /** Leadership lost: its appends will never be counted as committed. */
  clearPendingCommits(): void {
    this.pendingCommits = [];
  }

  /** Commit latency (Kafka's raft-metrics): time from a leader append to its commit, over committed batches. */
  commitLatency(): {
    readonly avgMs: number | undefined;
    readonly maxMs: number | undefined;
    readonly committedBatches: number;
    readonly totalMs: number;
  } {
    return {
      avgMs: this.committedBatches === 0 ? undefined : this.commitLatencyTotalMs / this.committedBatches,
      maxMs: this.commitLatencyMaxMs,
      committedBatches: this.committedBatches,
      totalMs: this.commitLatencyTotalMs,
    };
  }
}
