import type { RaftMetrics } from '../raft-metrics.js';
import type { StateName } from '../states/epoch-state.js';

/** The commit-latency totals the leader write path keeps (LeaderWritePath.commitLatency). */
export interface CommitLatencyTotals {
  readonly committedBatches: number;
  readonly totalMs: number;
}

/**
 * Where the core counts what `RaftMetrics` reports, at the place each event happens. Every
 * member is a number updated in O(1) (record counts come from offsets, never from walking the
 * records), so counting costs no allocation and no memory grows; nothing in the core reads them
 * back to decide anything. Times are the `nowMs` of the call that saw the event.
 */
export class RaftMetricsRecorder {
  private electionsStarted = 0;
  private electionTimeouts = 0;
  private fetchTimeouts = 0;
  private checkQuorumResignations = 0;
  private completedElections = 0;
  private electionLatencyTotalMs = 0;
  private electionLatencyMaxMs: number | undefined;
  /** When the election under way began (Prospective or Candidate); undefined when none runs. */
  private electionStartMs: number | undefined;
  private appendedRecords = 0;
  private fetchedRecords = 0;
  private snapshotsGenerated = 0;
  private latestSnapshotGeneratedBytes = 0;
  private latestSnapshotGeneratedLogTimestampMs: number | undefined;
  private snapshotsFetched = 0;
  private snapshotFetchedBytes = 0;

  /**
   * The state the client starts in: a voter restarted as Candidate (it had voted for itself) is
   * in an election already, whose latency counts from the restart.
   */
  onInitialized(state: StateName, nowMs: number): void {
    if (state === 'Candidate' || state === 'Prospective') this.electionStartMs = nowMs;
  }

  /**
   * Every transition (StateTransitions.onStateChanged). An election runs from the first
   * Prospective or Candidate state until this node leads or follows a leader (Kafka's
   * election-latency: "time spent on electing a new leader"); a lost pre-vote or a timed-out
   * candidacy in between does not restart it, so the latency is how long the node was without a
   * leader once it started campaigning.
   */
  onStateChanged(previous: StateName, current: StateName, nowMs: number): void {
    if (previous === 'Prospective' && current === 'Candidate') this.electionsStarted += 1;
    if (current === 'Prospective' || current === 'Candidate') {
      this.electionStartMs ??= nowMs;
      return;
    }
    if ((current === 'Leader' || current === 'Follower') && this.electionStartMs !== undefined) {
      const latencyMs = Math.max(0, nowMs - this.electionStartMs);
      this.electionStartMs = undefined;
      this.completedElections += 1;
      this.electionLatencyTotalMs += latencyMs;
      this.electionLatencyMaxMs = Math.max(this.electionLatencyMaxMs ?? 0, latencyMs);
    }
  }

  /** A Prospective or Candidate state ran out its election timeout. */
  onElectionTimeout(): void {
    this.electionTimeouts += 1;
  }

  /** A voter's fetch timeout expired while following a leader. */
  onFetchTimeout(): void {
    this.fetchTimeouts += 1;
  }

  /** The leader resigns because check-quorum expired. */
  onCheckQuorumResignation(): void {
    this.checkQuorumResignations += 1;
  }

  /** The leader appended the offsets [firstOffset, lastOffset]. */
  onAppendedAsLeader(firstOffset: number, lastOffset: number): void {
    this.appendedRecords += lastOffset - firstOffset + 1;
  }

  /** A follower appended the fetched offsets [firstOffset, lastOffset]. */
  onAppendedAsFollower(firstOffset: number, lastOffset: number): void {
    this.fetchedRecords += lastOffset - firstOffset + 1;
  }

  /** A snapshot from `createSnapshot` was frozen. */
  onSnapshotGenerated(sizeInBytes: number, lastContainedLogTimestampMs: number): void {
    this.snapshotsGenerated += 1;
    this.latestSnapshotGeneratedBytes = sizeInBytes;
    this.latestSnapshotGeneratedLogTimestampMs = lastContainedLogTimestampMs;
  }

  /** A follower downloaded the leader's whole snapshot. */
  onSnapshotFetched(sizeInBytes: number): void {
    this.snapshotsFetched += 1;
    this.snapshotFetchedBytes += sizeInBytes;
  }

  /** The values now, with the leader write path's commit-latency totals. */
  snapshot(commitLatency: CommitLatencyTotals): RaftMetrics {
    return {
      electionsStarted: this.electionsStarted,
      electionTimeouts: this.electionTimeouts,
      fetchTimeouts: this.fetchTimeouts,
      checkQuorumResignations: this.checkQuorumResignations,
      completedElections: this.completedElections,
      electionLatencyTotalMs: this.electionLatencyTotalMs,
      electionLatencyMaxMs: this.electionLatencyMaxMs,
      committedBatches: commitLatency.committedBatches,
      commitLatencyTotalMs: commitLatency.totalMs,
      appendedRecords: this.appendedRecords,
      fetchedRecords: this.fetchedRecords,
      snapshotsGenerated: this.snapshotsGenerated,
      latestSnapshotGeneratedBytes: this.latestSnapshotGeneratedBytes,
      latestSnapshotGeneratedLogTimestampMs: this.latestSnapshotGeneratedLogTimestampMs,
      snapshotsFetched: this.snapshotsFetched,
      snapshotFetchedBytes: this.snapshotFetchedBytes,
    };
  }
}
