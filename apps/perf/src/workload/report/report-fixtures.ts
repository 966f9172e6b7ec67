// Small saved results of every charted scenario, for the report's tests: real HdrHistograms
// (encoded as the test server prints them), made up figures.
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import type { FailoverScenarioResult } from '../failover-scenario.js';
import type { KafkaScenarioResult } from '../kafka-scenario.js';
import type { PeersScenarioResult } from '../peers/peers-scenario.js';
import type { ScenarioResult } from '../scenario-summary.js';
import type { SweepScenarioResult } from '../sweep-scenario.js';

/** A histogram (microseconds) of `count` latencies spread from `fromMs` to `toMs`. */
export function encodedLatencies(count: number, fromMs: number, toMs: number): string {
  const histogram = build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 60_000_000,
    numberOfSignificantValueDigits: 3,
  });
  for (let index = 0; index < count; index += 1) {
    const share = (index / count) ** 3;
    histogram.recordValue(Math.round((fromMs + (toMs - fromMs) * share) * 1000));
  }
  const encoded = encodeIntoCompressedBase64(histogram);
  histogram.destroy();
  return encoded;
}

/** What every fixture run shares: a passed 3-node run of 5 s after 1 s of warm-up. */
const PASSED = { passed: true, failures: [] } as const;
const RUN_OPTIONS = {
  nodeCount: 3,
  durationMs: 5_000,
  warmupMs: 1_000,
  lingerMs: 25,
  keepDirectory: false,
} as const;

export function kafkaFixture(
  scenario: 'kafka' | 'open-loop',
  throughputRecordsPerSecond: number,
  recordSizeBytes: number,
  p50Ms: number,
): KafkaScenarioResult {
  const committedRecordsPerSecond = throughputRecordsPerSecond * 0.98;
  return {
    scenario,
    ...PASSED,
    options: {
      ...RUN_OPTIONS,
      throughputRecordsPerSecond,
      recordSizeBytes,
      ...(scenario === 'open-loop' ? { openLoop: true } : {}),
    },
    leaderId: 1,
    figures: {
      committedRecordsPerSecond,
      committedBytesPerSecond: committedRecordsPerSecond * recordSizeBytes,
      committedRecords: committedRecordsPerSecond * 5,
      windowMs: 5_000,
      latencyCount: 1_000,
      latencyMs: { p50: p50Ms, p99: p50Ms * 2, max: p50Ms * 3 },
      cpuSecondsPerCommittedMebibyte: {},
    },
    latencyHistogram: encodedLatencies(1_000, p50Ms * 0.5, p50Ms * 3),
    highWatermarks: [],
    usage: [1, 2, 3].map((nodeId) => ({
      nodeId,
      cpuSeconds: nodeId === 1 ? 2.5 : 1.2,
      peakRssBytes: 90 * 1024 * 1024,
      writeBytes: 12 * 1024 * 1024,
    })),
  };
}

export function sweepFixture(): SweepScenarioResult {
  const points = [256, 1024].flatMap((size) =>
    [2_000, 8_000, 32_000].map((throughput, index) =>
      kafkaFixture('kafka', throughput, size, 20 + index * 8 + size / 256),
    ),
  );
  return {
    scenario: 'sweep',
    ...PASSED,
    options: {
      ...RUN_OPTIONS,
      throughputs: [2_000, 8_000, 32_000],
      recordSizes: [256, 1024],
    },
    points,
    failedPoints: [],
  };
}

export function failoverFixture(): FailoverScenarioResult {
  return {
    scenario: 'failover',
    passed: true,
    failures: [],
    options: {
      nodeCount: 3,
      trials: 2,
      throughputRecordsPerSecond: 5_000,
      recordSizeBytes: 256,
      keepDirectory: false,
      signal: 'KILL',
    },
    resolutionMs: 50,
    trials: [
      {
        killedNodeId: 1,
        killedEpoch: 1,
        newLeaderId: 2,
        newEpoch: 2,
        electedMs: 1_450,
        firstCommitMs: 1_520,
      },
      {
        killedNodeId: 2,
        killedEpoch: 2,
        newLeaderId: 3,
        newEpoch: 3,
        electedMs: 1_210,
        firstCommitMs: 1_300,
      },
    ],
  };
}

export function peersFixture(): PeersScenarioResult {
  const figures = {
    committedRecords: 9_800,
    windowMs: 5_000,
    committedRecordsPerSecond: 1_960,
    committedBytesPerSecond: 1_960 * 256,
    failedWrites: 0,
    firstError: undefined,
    latencyHistogram: encodedLatencies(500, 2, 30),
    latencyMs: { p50: 4, p99: 25 },
  };
  return {
    scenario: 'peers',
    passed: true,
    failures: [],
    options: {
      durationMs: 5_000,
      warmupMs: 1_000,
      throughputRecordsPerSecond: 2_000,
      recordSizeBytes: 256,
      keepDirectory: false,
    },
    runs: [
      { system: 'etcd', skipped: undefined, failures: [], figures },
      {
        system: 'zookeeper',
        skipped: 'ZooKeeper is not installed: skipped (install it with `apt-get install zookeeper`)',
        failures: [],
        figures: undefined,
      },
    ],
  };
}

/** One of each charted scenario: every chart of the report has data. */
export function reportFixtures(): ScenarioResult[] {
  return [sweepFixture(), kafkaFixture('open-loop', 400_000, 256, 180), failoverFixture(), peersFixture()];
}
