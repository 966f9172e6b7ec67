import type { RaftMetrics } from './raft-metrics.js';
import type { StateName } from './states/epoch-state.js';

/** What apps and metrics can read at any time (Kafka's raft-metrics). */
export interface RaftClientObservableState {
  readonly role: StateName;
  readonly epoch: number;
  readonly leaderId: number | undefined;
  readonly votedId: number | undefined;
  readonly highWatermark: number | undefined;
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  readonly lastFlushedOffset: number;
  /** Set while the replica recovers lost flushed data as a non-voting observer (RaftLog port). */
  readonly recoveringUntilOffset: number | undefined;
  readonly lastFetchedEpoch: number;
  readonly numberOfVoters: number;
  /** The leader's observers (Kafka's number-of-observers); undefined when this node does not lead. */
  readonly numberOfObservers: number | undefined;
  /** Other voters this node has no address for (Kafka's number-unknown-voter-connections). */
  readonly unknownVoterConnections: number;
  /** This node is not a voter (or is recovering lost data as a non-voting observer). */
  readonly isObserver: boolean;
  /** Commit latency: time from a leader append to its commit, over committed batches. */
  readonly commitLatencyAvgMs: number | undefined;
  readonly commitLatencyMaxMs: number | undefined;
  readonly committedBatches: number;
  readonly isShuttingDown: boolean;
  /** Counters and latency totals since the client was built. */
  readonly metrics: RaftMetrics;
}
