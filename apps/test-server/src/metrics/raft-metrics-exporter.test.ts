import type { RaftClientObservableState, RaftDriverState, RaftMetrics } from '@kraft/raft';
import { describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleValue } from '../../test/support/prometheus-text.js';
import {
  driverMetricsSource,
  KAFKA_RAFT_STATES,
  kafkaMetricName,
  RaftMetricsExporter,
} from './raft-metrics-exporter.js';

const NO_METRICS: RaftMetrics = {
  electionsStarted: 0,
  electionTimeouts: 0,
  fetchTimeouts: 0,
  checkQuorumResignations: 0,
  completedElections: 0,
  electionLatencyTotalMs: 0,
  electionLatencyMaxMs: undefined,
  committedBatches: 0,
  commitLatencyTotalMs: 0,
  appendedRecords: 0,
  fetchedRecords: 0,
  snapshotsGenerated: 0,
  latestSnapshotGeneratedBytes: 0,
  latestSnapshotGeneratedLogTimestampMs: undefined,
  snapshotsFetched: 0,
  snapshotFetchedBytes: 0,
};

const LEADER: RaftClientObservableState = {
  role: 'Leader',
  epoch: 7,
  leaderId: 2,
  votedId: 2,
  highWatermark: 120,
  logStartOffset: 0,
  logEndOffset: 130,
  lastFlushedOffset: 125,
  recoveringUntilOffset: undefined,
  lastFetchedEpoch: 7,
  numberOfVoters: 3,
  numberOfObservers: 1,
  unknownVoterConnections: 0,
  isObserver: false,
  commitLatencyAvgMs: 4,
  commitLatencyMaxMs: 9,
  committedBatches: 10,
  isShuttingDown: false,
  metrics: {
    ...NO_METRICS,
    electionsStarted: 2,
    electionTimeouts: 1,
    fetchTimeouts: 1,
    checkQuorumResignations: 1,
    completedElections: 2,
    electionLatencyTotalMs: 300,
    electionLatencyMaxMs: 250,
    committedBatches: 10,
    commitLatencyTotalMs: 40,
    appendedRecords: 129,
    fetchedRecords: 1,
    snapshotsGenerated: 3,
    latestSnapshotGeneratedBytes: 4096,
    latestSnapshotGeneratedLogTimestampMs: 9_000,
    snapshotsFetched: 1,
    snapshotFetchedBytes: 2048,
  },
};

function driverState(
  raft: RaftClientObservableState,
  times = { pollIdleMs: 0, runningMs: 0 },
): RaftDriverState {
  return {
    nodeId: 2,
    role: raft.role.toLowerCase() as RaftDriverState['role'],
    epoch: raft.epoch,
    leaderId: raft.leaderId,
    highWatermark: raft.highWatermark,
    logEndOffset: raft.logEndOffset,
    lastFlushedOffset: raft.lastFlushedOffset,
    running: true,
    ...times,
    raft,
  };
}

/** An exporter over a state the test changes between scrapes, without Node's process metrics. */
function exporterOver(initial: RaftDriverState, nowMs = () => 10_000) {
  let state = initial;
  const exporter = new RaftMetricsExporter({
    source: driverMetricsSource({ state: () => state }, 2),
    nowMs,
    processMetrics: false,
  });
  return {
    exporter,
    set(next: RaftDriverState) {
      state = next;
    },
    async scrape() {
      return parsePrometheusText(await exporter.metrics());
    },
  };
}

const raftName = (name: string) => kafkaMetricName('raft-metrics', name);

describe('RaftMetricsExporter', () => {
  it("names metrics after Kafka's MBeans: kafka.server:type=T,name=N becomes kafka_server_T_N", () => {
    expect(kafkaMetricName('raft-metrics', 'current-leader')).toBe(
      'kafka_server_raft_metrics_current_leader',
    );
    expect(kafkaMetricName('SnapshotEmitter', 'LatestSnapshotGeneratedBytes')).toBe(
      'kafka_server_snapshotemitter_latestsnapshotgeneratedbytes',
    );
  });

  it("reports a leader's gauges as Kafka defines them", async () => {
    const metrics = await exporterOver(driverState(LEADER)).scrape();
    const value = (name: string) => sampleValue(metrics, raftName(name));
    expect(value('current-leader')).toBe(2);
    expect(value('current-vote')).toBe(2);
    expect(value('current-epoch')).toBe(7);
    expect(value('high-watermark')).toBe(120);
    expect(value('log-end-offset')).toBe(130);
    expect(value('log-end-epoch')).toBe(7);
    expect(value('number-of-voters')).toBe(3);
    expect(value('number-of-observers')).toBe(1);
    expect(value('number-unknown-voter-connections')).toBe(0);
    expect(value('uncommitted-voter-change')).toBe(0);
    expect(value('commit-latency-avg')).toBe(4);
    expect(value('commit-latency-max')).toBe(9);
    expect(value('election-latency-avg')).toBe(150);
    expect(value('election-latency-max')).toBe(250);
    for (const state of KAFKA_RAFT_STATES) {
      expect(sampleValue(metrics, raftName('current-state'), { state })).toBe(state === 'leader' ? 1 : 0);
    }
    expect(metrics.get(raftName('current-leader'))?.type).toBe('gauge');
  });

  it('exports the counts as Prometheus counters named <name>_total', async () => {
    const metrics = await exporterOver(driverState(LEADER, { pollIdleMs: 1500, runningMs: 2000 })).scrape();
    const total = (name: string) => {
      expect(metrics.get(`${raftName(name)}_total`)?.type).toBe('counter');
      return sampleValue(metrics, `${raftName(name)}_total`);
    };
    expect(total('append-records')).toBe(129);
    expect(total('fetch-records')).toBe(1);
    expect(total('poll-idle-ms')).toBe(1500);
    expect(total('elections-started')).toBe(2);
    expect(total('election-timeouts')).toBe(1);
    expect(total('fetch-timeouts')).toBe(1);
    expect(total('check-quorum-resignations')).toBe(1);
    expect(total('elections-completed')).toBe(2);
    expect(total('election-latency-ms')).toBe(300);
    expect(total('committed-batches')).toBe(10);
    expect(total('commit-latency-ms')).toBe(40);
    expect(total('snapshots-generated')).toBe(3);
    expect(total('snapshots-fetched')).toBe(1);
    expect(total('snapshot-fetched-bytes')).toBe(2048);
  });

  it('reports the latest snapshot size and its age from its last contained log time', async () => {
    const metrics = await exporterOver(driverState(LEADER), () => 10_000).scrape();
    expect(sampleValue(metrics, 'kafka_server_snapshotemitter_latestsnapshotgeneratedbytes')).toBe(4096);
    expect(sampleValue(metrics, 'kafka_server_snapshotemitter_latestsnapshotgeneratedagems')).toBe(1000);
  });

  it('before any sample: NaN averages and maxima, -1 for unknown leader and high watermark, age since start', async () => {
    let nowMs = 5_000;
    const unattached: RaftClientObservableState = {
      ...LEADER,
      role: 'Unattached',
      leaderId: undefined,
      votedId: undefined,
      highWatermark: undefined,
      numberOfObservers: undefined,
      commitLatencyAvgMs: undefined,
      commitLatencyMaxMs: undefined,
      committedBatches: 0,
      metrics: NO_METRICS,
    };
    const metrics = await exporterOver(driverState(unattached), () => {
      nowMs += 250;
      return nowMs;
    }).scrape();
    const value = (name: string) => sampleValue(metrics, raftName(name));
    expect(value('current-leader')).toBe(-1);
    expect(value('current-vote')).toBe(-1);
    expect(value('high-watermark')).toBe(-1);
    expect(value('number-of-observers')).toBe(0);
    for (const name of [
      'commit-latency-avg',
      'commit-latency-max',
      'election-latency-avg',
      'election-latency-max',
    ]) {
      expect(value(name)).toBeNaN();
    }
    expect(sampleValue(metrics, raftName('current-state'), { state: 'unattached' })).toBe(1);
    expect(sampleValue(metrics, 'kafka_server_snapshotemitter_latestsnapshotgeneratedagems')).toBe(250);
  });

  it.each([
    [{ role: 'Unattached', votedId: 3 }, 'voted', 3],
    [{ role: 'Candidate', votedId: 2 }, 'candidate', 2],
    [{ role: 'Prospective', votedId: 3 }, 'prospective', -1],
    [{ role: 'Follower', votedId: 3, isObserver: false }, 'follower', -1],
    [{ role: 'Follower', votedId: undefined, isObserver: true }, 'observer', -1],
    [{ role: 'Resigned', votedId: 2 }, 'unattached', -1],
  ] as const)('maps %o to current-state %s and current-vote %d', async (fields, state, vote) => {
    const metrics = await exporterOver(driverState({ ...LEADER, ...fields })).scrape();
    expect(sampleValue(metrics, raftName('current-state'), { state })).toBe(1);
    const ones = metrics.get(raftName('current-state'))?.samples.filter((sample) => sample.value === 1);
    expect(ones).toHaveLength(1);
    expect(sampleValue(metrics, raftName('current-vote'))).toBe(vote);
  });

  it("measures poll-idle-ratio-avg over the time since the previous scrape, as Kafka's TimeRatio", async () => {
    const node = exporterOver(driverState(LEADER, { pollIdleMs: 0, runningMs: 0 }));
    // Nothing measured yet: Kafka's default ratio.
    expect(sampleValue(await node.scrape(), raftName('poll-idle-ratio-avg'))).toBe(1);
    node.set(driverState(LEADER, { pollIdleMs: 900, runningMs: 1000 }));
    expect(sampleValue(await node.scrape(), raftName('poll-idle-ratio-avg'))).toBeCloseTo(0.9);
    node.set(driverState(LEADER, { pollIdleMs: 1000, runningMs: 2000 }));
    expect(sampleValue(await node.scrape(), raftName('poll-idle-ratio-avg'))).toBeCloseTo(0.1);
  });

  it("reads the node's state once per scrape, whatever the number of metrics", async () => {
    let reads = 0;
    const exporter = new RaftMetricsExporter({
      source: {
        nodeId: 2,
        state: () => {
          reads += 1;
          return driverState(LEADER) as RaftDriverState & { raft: RaftClientObservableState };
        },
      },
      processMetrics: false,
    });
    await exporter.metrics();
    await exporter.metrics();
    expect(reads).toBe(2);
  });

  it("adds Node's process metrics (event-loop lag, resident memory) to its own registry only", async () => {
    const first = new RaftMetricsExporter({
      source: driverMetricsSource({ state: () => driverState(LEADER) }, 2),
    });
    const second = new RaftMetricsExporter({
      source: driverMetricsSource({ state: () => driverState(LEADER) }, 2),
    });
    const metrics = parsePrometheusText(await first.metrics());
    expect(metrics.has('nodejs_eventloop_lag_seconds')).toBe(true);
    expect(sampleValue(metrics, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(parsePrometheusText(await second.metrics()).has('nodejs_eventloop_lag_seconds')).toBe(true);
    expect(first.contentType).toContain('text/plain');
  });

  it('refuses a driver whose client reports no observable state', async () => {
    const state = { ...driverState(LEADER), raft: undefined };
    const exporter = new RaftMetricsExporter({
      source: driverMetricsSource({ state: () => state }, 2),
      processMetrics: false,
    });
    await expect(exporter.metrics()).rejects.toThrow('reports no observable state');
  });
});
