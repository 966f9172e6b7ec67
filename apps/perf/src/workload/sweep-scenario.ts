import { type KafkaScenarioOptions, type KafkaScenarioResult, runKafkaScenario } from './kafka-scenario.js';
import type { PerfOptions } from './perf-command-line.js';
import { formatNumber, type MarkdownSummary, verdictOf } from './results.js';

export type SweepScenarioOptions = Pick<
  PerfOptions,
  'nodeCount' | 'durationMs' | 'warmupMs' | 'lingerMs' | 'keepDirectory' | 'throughputs' | 'recordSizes'
> & { readonly baseDirectory?: string; readonly openLoop?: boolean };

export interface SweepScenarioResult {
  readonly scenario: 'sweep';
  readonly passed: boolean;
  readonly failures: readonly string[];
  readonly options: SweepScenarioOptions;
  /** One short kafka run per (record size, offered throughput), each on a fresh quorum. */
  readonly points: readonly KafkaScenarioResult[];
  /** Points whose run threw (no leader in time, a node died): the sweep goes on without them. */
  readonly failedPoints: readonly {
    readonly throughputRecordsPerSecond: number;
    readonly recordSizeBytes: number;
    readonly error: string;
  }[];
}

/**
 * Throughput × record size: one short run of Kafka's workload per point, each on fresh nodes and
 * dirs so no point inherits another's log, record sizes outer, throughputs inner (a curve each).
 */
export async function runSweepScenario(
  options: SweepScenarioOptions,
  onPoint: (point: KafkaScenarioResult) => void = () => {},
): Promise<SweepScenarioResult> {
  const points: KafkaScenarioResult[] = [];
  const failedPoints: { throughputRecordsPerSecond: number; recordSizeBytes: number; error: string }[] = [];
  for (const recordSizeBytes of options.recordSizes) {
    for (const throughputRecordsPerSecond of options.throughputs) {
      const pointOptions: KafkaScenarioOptions = {
        nodeCount: options.nodeCount,
        durationMs: options.durationMs,
        warmupMs: options.warmupMs,
        lingerMs: options.lingerMs,
        keepDirectory: options.keepDirectory,
        throughputRecordsPerSecond,
        recordSizeBytes,
        ...(options.baseDirectory === undefined ? {} : { baseDirectory: options.baseDirectory }),
        ...(options.openLoop === true ? { openLoop: true } : {}),
      };
      try {
        const point = await runKafkaScenario(pointOptions);
        points.push(point);
        onPoint(point);
      } catch (error) {
        failedPoints.push({ throughputRecordsPerSecond, recordSizeBytes, error: (error as Error).message });
      }
    }
  }
  const pointName = (throughput: number, recordSize: number) =>
    `${formatNumber(throughput)} × ${recordSize} B`;
  const failures = [
    ...points.flatMap((point) =>
      point.failures.map(
        (failure) =>
          `${pointName(point.options.throughputRecordsPerSecond, point.options.recordSizeBytes)}: ${failure}`,
      ),
    ),
    ...failedPoints.map(
      (point) => `${pointName(point.throughputRecordsPerSecond, point.recordSizeBytes)}: ${point.error}`,
    ),
  ];
  return { scenario: 'sweep', passed: failures.length === 0, failures, options, points, failedPoints };
}

export function sweepSummary(result: SweepScenarioResult): MarkdownSummary {
  const { options } = result;
  return {
    title: `sweep: ${options.nodeCount} nodes, ${result.points.length} points of ${formatNumber(options.durationMs / 1000, 1)} s, linger ${options.lingerMs} ms`,
    verdict: verdictOf(result),
    rows: result.points.map((point) => {
      const { figures } = point;
      return [
        `${formatNumber(point.options.throughputRecordsPerSecond)} × ${point.options.recordSizeBytes} B/s offered`,
        `committed ${formatNumber(figures.committedRecordsPerSecond)} records/s (${formatNumber(figures.committedBytesPerSecond / 1e6, 2)} MB/s), p50 ${formatNumber(figures.latencyMs['p50'] ?? 0, 1)} ms, p99 ${formatNumber(figures.latencyMs['p99'] ?? 0, 1)} ms`,
      ] as const;
    }),
    notes: [
      `each point a fresh quorum: warm-up ${formatNumber(options.warmupMs / 1000, 1)} s, then ${formatNumber(options.durationMs / 1000, 1)} s measured as the kafka scenario does`,
    ],
  };
}
