import { invariant } from '@kraft/protocol';
import type { RaftClientObservableState, RaftDriverState } from '@kraft/raft';
import { Counter, collectDefaultMetrics, Gauge, Registry } from 'prom-client';

/**
 * Kafka's raft metrics as Prometheus metrics, read from the node's state when scraped.
 *
 * Naming rule (the usual JMX → Prometheus exporter rule for Kafka's MBeans): the MBean
 * `kafka.server:type=<type>,name=<name>` becomes `kafka_server_<type>_<name>`, lower-cased, with
 * every run of other characters turned into `_`; `kafka.server:type=raft-metrics,name=current-leader`
 * becomes `kafka_server_raft_metrics_current_leader`. A Kafka rate (`<x>-rate`) is exported the
 * Prometheus way, as the counter `<x>_total` (Kafka's own `-total` twin of a rate): `rate()` gives
 * the per-second figure. Counters Kafka does not have (timeouts, elections started, ...) are named
 * the same way inside the `raft-metrics` group. Values keep Kafka's units (ms, bytes).
 *
 * Nothing runs per request or per record: the core counts (RaftMetrics) and each gauge and
 * counter reads the one state snapshot taken per scrape.
 */

/** What a scrape reads: the driver's state, with the core's observable state it carries. */
export interface RaftMetricsSource {
  /** This node's id (Kafka's current-vote names it while it leads or campaigns). */
  readonly nodeId: number;
  state(): RaftDriverState & { readonly raft: RaftClientObservableState };
}

/** The source over a running driver whose client reports its observable state (KafkaRaftClient does). */
export function driverMetricsSource(driver: { state(): RaftDriverState }, nodeId: number): RaftMetricsSource {
  return {
    nodeId,
    state() {
      const state = driver.state();
      const raft = state.raft;
      invariant(raft !== undefined, () => 'the raft client reports no observable state to export');
      return { ...state, raft };
    },
  };
}

export interface RaftMetricsExporterOptions {
  readonly source: RaftMetricsSource;
  /** Wall-clock milliseconds, for the snapshot age (Date.now by default). */
  readonly nowMs?: () => number;
  /** Node's process metrics (event-loop lag, RSS, heap, GC); on by default. */
  readonly processMetrics?: boolean;
}

/** One scrape: everything the collect callbacks read, taken once. */
interface Scrape {
  readonly state: RaftDriverState;
  readonly raft: RaftClientObservableState;
  readonly nowMs: number;
  readonly pollIdleRatio: number;
}

/** Kafka's current-state values (KafkaRaftMetrics): one series each, 1 for the current state. */
export const KAFKA_RAFT_STATES = [
  'leader',
  'candidate',
  'prospective',
  'voted',
  'follower',
  'observer',
  'unattached',
] as const;
export type KafkaRaftState = (typeof KAFKA_RAFT_STATES)[number];

/** The Prometheus name of Kafka's MBean `kafka.server:type=<type>,name=<name>` (see the module comment). */
export function kafkaMetricName(type: string, name: string): string {
  return `kafka.server ${type} ${name}`.toLowerCase().replace(/[^a-z0-9]+/g, '_');
}

const RAFT_METRICS = 'raft-metrics';
const SNAPSHOT_EMITTER = 'SnapshotEmitter';

/**
 * Kafka's current-state: leader, candidate and prospective as they are; an unattached voter that
 * voted is `voted`; a follower that is not a voter is `observer`; anything else (unattached,
 * and resigned, which Kafka's gauge has no name for either) is `unattached`.
 */
export function kafkaRaftState(raft: RaftClientObservableState): KafkaRaftState {
  switch (raft.role) {
    case 'Leader':
      return 'leader';
    case 'Candidate':
      return 'candidate';
    case 'Prospective':
      return 'prospective';
    case 'Follower':
      return raft.isObserver ? 'observer' : 'follower';
    case 'Unattached':
      return raft.votedId === undefined ? 'unattached' : 'voted';
    case 'Resigned':
      return 'unattached';
  }
}

/** Kafka's current-vote: this node while it leads or campaigns, the candidate an unattached voter voted for, else -1. */
export function kafkaCurrentVote(raft: RaftClientObservableState, nodeId: number): number {
  if (raft.role === 'Leader' || raft.role === 'Candidate') return nodeId;
  if (raft.role === 'Unattached') return raft.votedId ?? -1;
  return -1;
}

/** An average of `count` samples summing to `totalMs`; NaN without samples, as Kafka's Avg. */
function average(totalMs: number, count: number): number {
  return count === 0 ? Number.NaN : totalMs / count;
}

/**
 * The registry of one node's metrics (its own `Registry`, never prom-client's global one) and
 * the text a scrape returns.
 */
export class RaftMetricsExporter {
  private readonly registry = new Registry();
  private readonly source: RaftMetricsSource;
  private readonly nowMs: () => number;
  /** Kafka's snapshot age counts from its metrics' creation until the first snapshot. */
  private readonly createdAtMs: number;
  /** The poll idle and running times at the previous scrape: Kafka's TimeRatio measures since its last reading. */
  private previousPollIdleMs = 0;
  private previousRunningMs = 0;
  private current: Scrape | undefined;

  constructor(options: RaftMetricsExporterOptions) {
    this.source = options.source;
    this.nowMs = options.nowMs ?? Date.now;
    this.createdAtMs = this.nowMs();
    this.registerRaftGauges();
    this.registerLatencyGauges();
    this.registerRaftCounters();
    this.registerSnapshotMetrics();
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
  }

  /** The Content-Type of `metrics()`: Prometheus text format 0.0.4. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** Reads the node once and renders every metric. */
  async metrics(): Promise<string> {
    this.current = this.takeScrape();
    try {
      return await this.registry.metrics();
    } finally {
      this.current = undefined;
    }
  }

  private takeScrape(): Scrape {
    const state = this.source.state();
    const idleMs = state.pollIdleMs - this.previousPollIdleMs;
    const elapsedMs = state.runningMs - this.previousRunningMs;
    this.previousPollIdleMs = state.pollIdleMs;
    this.previousRunningMs = state.runningMs;
    // Kafka's TimeRatio: 1.0 over an empty interval, and never above 1.
    const pollIdleRatio = elapsedMs <= 0 ? 1 : Math.min(1, Math.max(0, idleMs / elapsedMs));
    return { state, raft: state.raft, nowMs: this.nowMs(), pollIdleRatio };
  }

  private scrape(): Scrape {
    const scrape = this.current;
    invariant(
      scrape !== undefined,
      () => 'a raft metric was collected outside RaftMetricsExporter.metrics()',
    );
    return scrape;
  }

  private gauge(type: string, name: string, help: string, read: (scrape: Scrape) => number): void {
    const exporter = this;
    new Gauge({
      name: kafkaMetricName(type, name),
      help,
      registers: [this.registry],
      collect() {
        this.set(read(exporter.scrape()));
      },
    });
  }

  /** A cumulative count; `name` is Kafka's (or Kafka-style) name without the `_total` suffix. */
  private counter(name: string, help: string, read: (scrape: Scrape) => number): void {
    const exporter = this;
    new Counter({
      name: `${kafkaMetricName(RAFT_METRICS, name)}_total`,
      help,
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(read(exporter.scrape()));
      },
    });
  }

  private registerRaftGauges(): void {
    const exporter = this;
    new Gauge({
      name: kafkaMetricName(RAFT_METRICS, 'current-state'),
      help: 'The current state of this member: 1 for the state it is in (leader, candidate, prospective, voted, follower, observer, unattached)',
      labelNames: ['state'],
      registers: [this.registry],
      collect() {
        const state = kafkaRaftState(exporter.scrape().raft);
        for (const name of KAFKA_RAFT_STATES) this.set({ state: name }, name === state ? 1 : 0);
      },
    });
    const nodeId = this.source.nodeId;
    const gauge = (name: string, help: string, read: (scrape: Scrape) => number) =>
      this.gauge(RAFT_METRICS, name, help, read);
    gauge(
      'current-leader',
      "The current quorum leader's id; -1 indicates unknown",
      (s) => s.state.leaderId ?? -1,
    );
    gauge('current-vote', 'The current voted id; -1 indicates not voted for anyone', (s) =>
      kafkaCurrentVote(s.raft, nodeId),
    );
    gauge('current-epoch', 'The current quorum epoch', (s) => s.state.epoch);
    gauge(
      'high-watermark',
      'The high watermark maintained on this member; -1 if it is unknown',
      (s) => s.state.highWatermark ?? -1,
    );
    gauge('log-end-offset', 'The current raft log end offset', (s) => s.raft.logEndOffset);
    gauge('log-end-epoch', 'The current raft log end epoch', (s) => s.raft.lastFetchedEpoch);
    gauge(
      'number-unknown-voter-connections',
      'Number of voters whose connection information is not known',
      (s) => s.raft.unknownVoterConnections,
    );
    gauge('number-of-voters', 'Number of voters in the quorum', (s) => s.raft.numberOfVoters);
    gauge(
      'number-of-observers',
      'Number of observers the leader is tracking; 0 on a node that does not lead',
      (s) => s.raft.numberOfObservers ?? 0,
    );
    // This server changes no voter set (static quorums, ADR 0013): no change is ever pending.
    gauge(
      'uncommitted-voter-change',
      '1 while a voter addition or removal is uncommitted; always 0 here',
      () => 0,
    );
    gauge(
      'poll-idle-ratio-avg',
      'The ratio of time the raft loop is idle, waiting for work, since the previous scrape',
      (s) => s.pollIdleRatio,
    );
  }

  private registerLatencyGauges(): void {
    const gauge = (name: string, help: string, read: (scrape: Scrape) => number) =>
      this.gauge(RAFT_METRICS, name, help, read);
    gauge(
      'commit-latency-avg',
      'The average time in milliseconds from a leader append to its commit, since start; NaN before the first',
      (s) => average(s.raft.metrics.commitLatencyTotalMs, s.raft.metrics.committedBatches),
    );
    gauge(
      'commit-latency-max',
      'The maximum time in milliseconds from a leader append to its commit, since start; NaN before the first',
      (s) => s.raft.commitLatencyMaxMs ?? Number.NaN,
    );
    gauge(
      'election-latency-avg',
      'The average time in milliseconds spent electing a leader, since start; NaN before the first',
      (s) => average(s.raft.metrics.electionLatencyTotalMs, s.raft.metrics.completedElections),
    );
    gauge(
      'election-latency-max',
      'The maximum time in milliseconds spent electing a leader, since start; NaN before the first',
      (s) => s.raft.metrics.electionLatencyMaxMs ?? Number.NaN,
    );
  }

  private registerRaftCounters(): void {
    const counter = (name: string, help: string, read: (scrape: Scrape) => number) =>
      this.counter(name, help, read);
    counter(
      'append-records',
      'Records appended as the leader (Kafka: append-records-rate)',
      (s) => s.raft.metrics.appendedRecords,
    );
    counter(
      'fetch-records',
      'Records fetched from the leader (Kafka: fetch-records-rate)',
      (s) => s.raft.metrics.fetchedRecords,
    );
    counter(
      'poll-idle-ms',
      'Milliseconds the raft loop was idle, waiting for work',
      (s) => s.state.pollIdleMs,
    );
    counter(
      'elections-started',
      'Elections this node started (Prospective to Candidate)',
      (s) => s.raft.metrics.electionsStarted,
    );
    counter(
      'election-timeouts',
      'Pre-votes or elections that ran out their election timeout',
      (s) => s.raft.metrics.electionTimeouts,
    );
    counter(
      'fetch-timeouts',
      'Times this voter heard nothing from its leader within the fetch timeout',
      (s) => s.raft.metrics.fetchTimeouts,
    );
    counter(
      'check-quorum-resignations',
      'Times this leader resigned because a majority stopped fetching',
      (s) => s.raft.metrics.checkQuorumResignations,
    );
    counter(
      'elections-completed',
      'Elections that ended with a leader (election-latency samples)',
      (s) => s.raft.metrics.completedElections,
    );
    counter(
      'election-latency-ms',
      'The sum of election latencies in milliseconds',
      (s) => s.raft.metrics.electionLatencyTotalMs,
    );
    counter(
      'committed-batches',
      'Batches committed as the leader (commit-latency samples)',
      (s) => s.raft.metrics.committedBatches,
    );
    counter(
      'commit-latency-ms',
      'The sum of commit latencies in milliseconds',
      (s) => s.raft.metrics.commitLatencyTotalMs,
    );
    counter('snapshots-generated', 'Snapshots this node wrote', (s) => s.raft.metrics.snapshotsGenerated);
    counter(
      'snapshots-fetched',
      'Snapshots downloaded from the leader',
      (s) => s.raft.metrics.snapshotsFetched,
    );
    counter(
      'snapshot-fetched-bytes',
      'Bytes of the snapshots downloaded from the leader',
      (s) => s.raft.metrics.snapshotFetchedBytes,
    );
  }

  private registerSnapshotMetrics(): void {
    this.gauge(
      SNAPSHOT_EMITTER,
      'LatestSnapshotGeneratedBytes',
      'The size in bytes of the latest snapshot this node generated; 0 before the first',
      (s) => s.raft.metrics.latestSnapshotGeneratedBytes,
    );
    this.gauge(
      SNAPSHOT_EMITTER,
      'LatestSnapshotGeneratedAgeMs',
      "Milliseconds since the latest generated snapshot's last contained record was appended; since start before the first",
      (s) => s.nowMs - (s.raft.metrics.latestSnapshotGeneratedLogTimestampMs ?? this.createdAtMs),
    );
  }
}
