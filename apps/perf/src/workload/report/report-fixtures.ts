// Small saved results of every charted scenario, for the report's tests: real HdrHistograms
// (encoded as the test server prints them), made up figures.
import { build, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import type { CatchUpScenarioResult } from '../catch-up-scenario.js';
import type { FailoverScenarioResult } from '../failover-scenario.js';
import type { KafkaScenarioResult } from '../kafka-scenario.js';
import type { PeersScenarioResult } from '../peers/peers-scenario.js';
import type { RestartScenarioResult } from '../restart-scenario.js';
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

const openFixture = (nodeId: number, launchToLogOpenedMs: number, clean: boolean) => ({
  nodeId,
  launchToLogOpenedMs,
  logOpenMs: 80,
  clean,
  logStartOffset: 0,
  logEndOffset: 16_000,
  segments: 1,
});

export function restartFixture(): RestartScenarioResult {
  return {
    scenario: 'restart',
    ...PASSED,
    options: {
      nodeCount: 3,
      logSizeBytes: 256 * 1024 * 1024,
      throughputRecordsPerSecond: 5_000,
      recordSizeBytes: 256,
      signal: 'KILL',
      keepDirectory: false,
    },
    resolutionMs: 100,
    build: { durationMs: 11_000, logBytes: 262 * 1024 * 1024, highWatermark: 16_657 },
    quorumRestart: {
      committedBefore: 16_657,
      epochBefore: 1,
      opens: [openFixture(1, 8_800, false), openFixture(2, 8_900, false), openFixture(3, 9_500, false)],
      launchToLeaderMs: 9_000,
      launchToFirstCommitMs: 10_300,
      launchToWorkloadCommitMs: 11_000,
      leaderId: 2,
      epoch: 2,
    },
    followerRestart: {
      nodeId: 1,
      logBytesAtStop: 230 * 1024 * 1024,
      targetHighWatermark: 36_565,
      open: openFixture(1, 3_600, false),
      launchToLeaderKnownMs: 4_000,
      launchToCaughtUpMs: 4_600,
      readBytes: 0,
      readChars: 575 * 1024 * 1024,
      peakRssBytes: 197 * 1024 * 1024,
    },
    prefixCheck: { throughOffset: 54_573, bytes: 271 * 1024 * 1024, matches: true },
  };
}

export function catchUpFixture(): CatchUpScenarioResult {
  const latency = { intervals: 40, medianP99Ms: 40, maxP99Ms: 250 };
  return {
    scenario: 'catch-up',
    ...PASSED,
    options: {
      nodeCount: 3,
      durationMs: 10_000,
      warmupMs: 10_000,
      throughputRecordsPerSecond: 2_000,
      snapshotThresholdBytes: 65_536,
      seed: 1,
    },
    leaderId: 1,
    catchUp: {
      nodeId: 2,
      logEndOffsetAtStop: 40_395,
      leaderLogStartOffset: 43_575,
      downMs: 38_000,
      targetHighWatermark: 116_818,
      open: openFixture(2, 2_650, true),
      launchToSnapshotInstalledMs: 2_880,
      launchToCaughtUpMs: 3_110,
      snapshot: { offset: 122_177, epoch: 1, sizeInBytes: 110_000 },
      readChars: 6 * 1024 * 1024,
      peakRssBytes: 139 * 1024 * 1024,
      logStartOffsetAfter: 122_177,
    },
    latencyBefore: latency,
    latencyBeforeRestart: latency,
    latencyDuring: { intervals: 3, medianP99Ms: 120, maxP99Ms: 350 },
    digests: [1, 2, 3].map((nodeId) => ({ nodeId, offset: 130_000, digest: 'ab' })),
  };
}

/** One of each charted scenario: every chart of the report has data. */
export function reportFixtures(): ScenarioResult[] {
  return [sweepFixture(), kafkaFixture('open-loop', 400_000, 256, 180), failoverFixture(), peersFixture()];
}
