/**
 * The core's counters and latencies, read through `KafkaRaftClient.observableState().metrics`:
 * what Kafka's `KafkaRaftMetrics` measures inside its raft client, plus the timeout counters
 * Kafka lacks. Every value is cumulative since the client was built (Kafka's averages and rates
 * are windowed: an exporter turns these totals into windows, e.g. Prometheus' `rate()`).
 * Counters only count: nothing the core decides or sends reads them.
 */
export interface RaftMetrics {
  /** Prospective → Candidate transitions: elections this node started, each in a new epoch. */
  readonly electionsStarted: number;
  /** Pre-votes or elections of this node that ran out their election timeout undecided. */
  readonly electionTimeouts: number;
  /** Times a voter following a leader heard nothing from it within the fetch timeout. */
  readonly fetchTimeouts: number;
  /** Times this node resigned leadership because a majority had not fetched in time (check-quorum). */
  readonly checkQuorumResignations: number;
  /**
   * Elections that ended with a leader, led or learned (Kafka's election-latency samples): from
   * becoming Prospective or Candidate to becoming Leader or Follower.
   */
  readonly completedElections: number;
  /** The sum of those elections' latencies (avg = total / completedElections). */
  readonly electionLatencyTotalMs: number;
  /** Undefined before the first completed election. */
  readonly electionLatencyMaxMs: number | undefined;
  /** Batches appended and committed as leader (commit-latency samples; the epoch start batch is not one). */
  readonly committedBatches: number;
  /** The sum of their append → commit times. */
  readonly commitLatencyTotalMs: number;
  /** Records (offsets, control records included) appended as leader: Kafka's append-records. */
  readonly appendedRecords: number;
  /** Records (offsets, control records included) appended from the leader's fetch answers: Kafka's fetch-records. */
  readonly fetchedRecords: number;
  /** Snapshots frozen through `createSnapshot`. */
  readonly snapshotsGenerated: number;
  /** The size of the latest of them; 0 before the first. */
  readonly latestSnapshotGeneratedBytes: number;
  /** Its last contained record's log time (Kafka's snapshot age counts from it); undefined before the first. */
  readonly latestSnapshotGeneratedLogTimestampMs: number | undefined;
  /** Snapshots downloaded whole from the leader (FetchSnapshot). */
  readonly snapshotsFetched: number;
  /** The bytes of those snapshots. */
  readonly snapshotFetchedBytes: number;
}
