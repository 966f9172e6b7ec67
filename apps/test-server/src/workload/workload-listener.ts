import type { Logger } from '@kraft/protocol';
import type { CommitStats } from '../stats/commit-stats.js';
import type { CumulativeLatency } from './cumulative-latency.js';
import type { RaftWorkloadGenerator } from './raft-workload-generator.js';

/** The parts of a committed `Batch` (from @kraft/records) the listener reads. */
export interface CommittedBatch {
  readonly epoch: number;
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly isControl: boolean;
  readonly records: readonly { readonly value: Uint8Array | null }[];
}

/** Raft's `BatchReader` / `SnapshotReader`, structurally. */
export interface ClosableBatchReader extends Iterable<CommittedBatch> {
  close(): void;
}

export interface WorkloadListenerOptions {
  readonly generator: RaftWorkloadGenerator;
  readonly stats: CommitStats;
  /** The generator's scheduler clock: a commit's latency is measured against its append time. */
  readonly nowMs: () => number;
  readonly logger: Logger;
  /** Also receives every measured latency, for the whole run's distribution. */
  readonly cumulativeLatency?: CumulativeLatency;
}

/**
 * The raft `Listener` of the test server (the listener half of Kafka's RaftWorkloadGenerator):
 * it consumes every committed batch, counts each record's bytes, and tells the generator when
 * this node gains or loses the leadership. As in Kafka's tool, only batches of the current
 * leader's epoch count, control batches (LeaderChange) carry no workload, and commit latency is
 * measured only on the leader, for the records it appended itself: a follower counts throughput
 * and shows no latency.
 */
export class WorkloadListener {
  private currentEpoch = -1;

  constructor(private readonly options: WorkloadListenerOptions) {}

  handleCommit(reader: ClosableBatchReader): void {
    try {
      const nowMs = this.options.nowMs();
      for (const batch of reader) {
        if (batch.isControl || batch.epoch !== this.currentEpoch) continue;
        let offset = batch.baseOffset;
        for (const record of batch.records) {
          this.recordCommit(batch.epoch, offset, record.value?.length ?? 0, nowMs);
          offset += 1;
        }
        this.options.generator.handleCommitted(batch.epoch, batch.lastOffset);
      }
    } finally {
      reader.close();
    }
  }

  /** The test server never snapshots; a snapshot read is closed at once, as Kafka's tool does. */
  handleLoadSnapshot(reader: { close(): void }): void {
    reader.close();
  }

  handleLeaderChange(leader: { readonly leaderId: number | undefined; readonly epoch: number }): void {
    this.currentEpoch = leader.epoch;
    this.options.logger.info({ leaderId: leader.leaderId ?? -1, epoch: leader.epoch }, 'leader changed');
    this.options.generator.handleLeaderChange(leader.leaderId, leader.epoch);
  }

  beginShutdown(): void {
    this.options.generator.stop();
  }

  private recordCommit(epoch: number, offset: number, sizeInBytes: number, nowMs: number): void {
    const appendTimeMs = this.options.generator.takeAppendTimeMs(epoch, offset);
    if (appendTimeMs === undefined) this.options.stats.recordCommitWithoutLatency(sizeInBytes);
    else {
      this.options.stats.recordCommit(nowMs - appendTimeMs, sizeInBytes);
      this.options.cumulativeLatency?.recordMs(nowMs - appendTimeMs);
    }
  }
}
