import { decodeFromCompressedBase64, encodeIntoCompressedBase64 } from 'hdr-histogram-js';
import { latencyPercentilesMs } from './latency-histogram.js';
import { type LocalNode, LocalQuorum, raftWorkloadArguments } from './local-quorum.js';
import type { PerfOptions } from './perf-command-line.js';
import { formatMebibytes, formatNumber, type MarkdownSummary, verdictOf } from './results.js';
import { type NodeUsage, runFor, usageBetween, usageNow } from './scenario-run.js';

/** The test server's line (apps/test-server/src/workload/cumulative-latency.ts). */
const HISTOGRAM_PREFIX = 'Commit latency histogram (us): ';
/** Stats lines each second: the high watermark over time is read from them. */
const STATS_INTERVAL_MS = 1_000;
const LEADER_TIMEOUT_MS = 30_000;
const MEBIBYTE = 1024 * 1024;

export type KafkaScenarioOptions = Pick<
  PerfOptions,
  | 'nodeCount'
  | 'durationMs'
  | 'warmupMs'
  | 'throughputRecordsPerSecond'
  | 'recordSizeBytes'
  | 'lingerMs'
  | 'keepDirectory'
> & {
  readonly baseDirectory?: string;
  /**
   * open-loop: latency from each append's intended send time (the test server's
   * `--latency-from-intended-send`), so time spent held back by the outstanding-bytes bound counts.
   */
  readonly openLoop?: boolean;
};

/** The leader's high watermark at a time (`performance.now()`), from its stats line. */
interface HighWatermarkSample {
  readonly atMs: number;
  readonly highWatermark: number;
}

export interface KafkaScenarioResult {
  readonly scenario: 'kafka' | 'open-loop';
  readonly passed: boolean;
  readonly failures: readonly string[];
  readonly options: KafkaScenarioOptions;
  readonly leaderId: number;
  readonly figures: {
    readonly committedRecordsPerSecond: number;
    readonly committedBytesPerSecond: number;
    readonly committedRecords: number;
    readonly windowMs: number;
    readonly latencyCount: number;
    /** Commit latency percentiles in ms (p50 ... p99.99) and the max. */
    readonly latencyMs: Readonly<Record<string, number>>;
    /** Every node's CPU-seconds over the window per committed MiB. */
    readonly cpuSecondsPerCommittedMebibyte: Readonly<Record<string, number>>;
  };
  /** The leader's latency histogram over the window (HdrHistogram, compressed base64, microseconds). */
  readonly latencyHistogram: string | undefined;
  readonly highWatermarks: readonly HighWatermarkSample[];
  readonly usage: readonly NodeUsage[];
}

/** The leader's latencies over the window: its final cumulative histogram minus the one before the window. */
interface WindowLatency {
  readonly count: number;
  readonly percentilesMs: Readonly<Record<string, number>>;
  /** The window's histogram, HdrHistogram's compressed base64 (microseconds). */
  readonly encoded: string;
}

function windowLatency(atStart: string | undefined, atEnd: string | undefined): WindowLatency | undefined {
  if (atEnd === undefined) return undefined;
  const histogram = decodeFromCompressedBase64(atEnd);
  if (atStart !== undefined) {
    const before = decodeFromCompressedBase64(atStart);
    histogram.subtract(before);
    before.destroy();
  }
  const result = {
    count: histogram.totalCount,
    percentilesMs: latencyPercentilesMs(histogram),
    encoded: encodeIntoCompressedBase64(histogram),
  };
  histogram.destroy();
  return result;
}

function recordHighWatermarks(node: LocalNode, samples: HighWatermarkSample[]): void {
  node.onStatus((status) => {
    if (status.highWatermark === undefined || status.role.toLowerCase() !== 'leader') return;
    samples.push({ atMs: performance.now(), highWatermark: status.highWatermark });
  });
}

/**
 * Kafka's raft workload (TestRaftServer's): committed records/s from the leader's high watermark
 * over the window (its stats lines), commit latency from the leader's cumulative HdrHistogram
 * (printed each second: the last line before the window subtracted from the last in it),
 * per-process CPU, peak RSS and disk writes from /proc, all after `warmupMs` unmeasured.
 */
export async function runKafkaScenario(options: KafkaScenarioOptions): Promise<KafkaScenarioResult> {
  const quorumOptions = {
    ...options,
    serverArguments: [
      ...raftWorkloadArguments(options.throughputRecordsPerSecond, options.recordSizeBytes),
      '--print-latency-histogram',
      ...(options.openLoop === true ? ['--latency-from-intended-send'] : []),
    ],
    properties: { 'controller.quorum.append.linger.ms': String(options.lingerMs) },
    statsIntervalMs: STATS_INTERVAL_MS,
  };
  return LocalQuorum.run(quorumOptions, async (quorum) => {
    const samples: HighWatermarkSample[] = [];
    const histograms: string[] = [];
    for (const node of quorum.nodes) {
      recordHighWatermarks(node, samples);
      node.onLine((line) => {
        if (line.startsWith(HISTOGRAM_PREFIX)) histograms.push(line.slice(HISTOGRAM_PREFIX.length));
      });
    }
    const leader = await quorum.waitForLeader(LEADER_TIMEOUT_MS);
    await runFor(quorum, options.warmupMs);
    const firstSample = samples.length;
    // The cumulative histogram printed last before the window: subtracted from the final one.
    const histogramAtStart = histograms.at(-1);
    const usageAtStart = usageNow(quorum);
    await runFor(quorum, options.durationMs);
    const usage = usageBetween(usageAtStart, usageNow(quorum));
    const window = samples.slice(firstSample);
    // The last line of the window, not the one printed at shutdown: both windows end together.
    const histogramAtEnd = histograms.at(-1);
    await quorum.stopAll();
    const latency = windowLatency(histogramAtStart, histogramAtEnd);
    return kafkaResult(options, leader.nodeId, window, latency, usage);
  });
}

function kafkaResult(
  options: KafkaScenarioOptions,
  leaderId: number,
  samples: readonly HighWatermarkSample[],
  latency: WindowLatency | undefined,
  usage: readonly NodeUsage[],
): KafkaScenarioResult {
  const failures: string[] = [];
  const first = samples[0];
  const last = samples.at(-1);
  const windowMs = first === undefined || last === undefined ? 0 : last.atMs - first.atMs;
  const committedRecords =
    first === undefined || last === undefined ? 0 : last.highWatermark - first.highWatermark;
  if (windowMs <= 0) failures.push('fewer than two leader stats lines: run longer');
  const committedRecordsPerSecond = windowMs > 0 ? (committedRecords * 1000) / windowMs : 0;
  const committedBytesPerSecond = committedRecordsPerSecond * options.recordSizeBytes;
  if (latency === undefined) failures.push('the leader printed no commit-latency histogram');
  const latencyMs = latency?.percentilesMs ?? {};
  const latencyCount = latency?.count ?? 0;
  if (committedRecords <= 0) failures.push('nothing was committed');
  const committedMebibytes = (committedRecords * options.recordSizeBytes) / MEBIBYTE;
  const cpuSecondsPerCommittedMebibyte = Object.fromEntries(
    usage.map((entry) => [
      `node ${entry.nodeId}`,
      committedMebibytes > 0 ? entry.cpuSeconds / committedMebibytes : 0,
    ]),
  );
  return {
    scenario: options.openLoop === true ? 'open-loop' : 'kafka',
    passed: failures.length === 0,
    failures,
    options,
    leaderId,
    figures: {
      committedRecordsPerSecond,
      committedBytesPerSecond,
      committedRecords,
      windowMs,
      latencyCount,
      latencyMs,
      cpuSecondsPerCommittedMebibyte,
    },
    latencyHistogram: latency?.encoded,
    highWatermarks: samples,
    usage,
  };
}

export function kafkaSummary(result: KafkaScenarioResult): MarkdownSummary {
  const { figures, options } = result;
  const latency = Object.entries(figures.latencyMs)
    .map(([name, value]) => `${name} ${formatNumber(value, 1)}`)
    .join(', ');
  return {
    title: `${result.scenario} workload: ${options.nodeCount} nodes, ${formatNumber(options.throughputRecordsPerSecond)} × ${options.recordSizeBytes} B offered, linger ${options.lingerMs} ms`,
    verdict: verdictOf(result),
    rows: [
      ['committed (records/s)', formatNumber(figures.committedRecordsPerSecond)],
      ['committed (MB/s)', formatNumber(figures.committedBytesPerSecond / 1e6, 2)],
      ['measured window', `${formatNumber(figures.windowMs / 1000, 1)} s`],
      ['commit latency (ms)', `${latency} (${formatNumber(figures.latencyCount)} records)`],
      ...result.usage.map(
        (entry) =>
          [
            `node ${entry.nodeId}${entry.nodeId === result.leaderId ? ' (leader)' : ''}: CPU-s per committed MiB, peak RSS, disk writes`,
            `${formatNumber(figures.cpuSecondsPerCommittedMebibyte[`node ${entry.nodeId}`] ?? 0, 3)}, ${formatMebibytes(entry.peakRssBytes)}, ${formatMebibytes(entry.writeBytes)}`,
          ] as const,
      ),
    ],
    notes: [
      'committed records/s: the leader high watermark difference over the window between its first and last stats line (control records included: one per election)',
      options.openLoop === true
        ? "latency: the leader's own appends, from when each was due to go (offered rate) to commit, so waits behind the outstanding-bytes bound count (no coordinated omission); its HdrHistogram over the window"
        : "latency: the leader's own appends, append to commit, its HdrHistogram over the window (the final cumulative one minus the one before the window)",
      `warm-up ${formatNumber(options.warmupMs / 1000, 1)} s before the window, not measured`,
    ],
  };
}
