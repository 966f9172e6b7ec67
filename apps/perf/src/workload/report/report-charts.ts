// The report's charts as Vega-Lite specs (ADR 0030): pure functions of saved results, so
// `pnpm perf report` draws from the JSON exactly what the run drew.
import { decodeFromCompressedBase64 } from 'hdr-histogram-js';
import type { TopLevelSpec } from 'vega-lite';
import type { CatchUpScenarioResult } from '../catch-up-scenario.js';
import type { FailoverScenarioResult } from '../failover-scenario.js';
import type { KafkaScenarioResult } from '../kafka-scenario.js';
import type { PeersScenarioResult } from '../peers/peers-scenario.js';
import type { RestartScenarioResult } from '../restart-scenario.js';
import type { SweepScenarioResult } from '../sweep-scenario.js';

/** A saved result of any scenario the report draws. */
export type ReportedResult =
  | KafkaScenarioResult
  | FailoverScenarioResult
  | SweepScenarioResult
  | PeersScenarioResult
  | RestartScenarioResult
  | CatchUpScenarioResult
  | { readonly scenario: 'metadata' }
  | { readonly scenario: 'raft-node' };

/** A labelled latency histogram (microseconds, compressed base64). */
interface LatencySeries {
  readonly label: string;
  readonly histogram: string | undefined;
}

export interface ReportChart {
  readonly title: string;
  readonly caption: string;
  readonly spec: TopLevelSpec;
}

const WIDTH = 560;
const HEIGHT = 260;
/** Percentiles at which a CDF is sampled: dense towards the tail, where the interest is. */
const CDF_PERCENTILES = cdfPercentiles();
const MEBIBYTE = 1024 * 1024;

function cdfPercentiles(): number[] {
  const percentiles: number[] = [];
  for (let percentile = 0; percentile < 90; percentile += 2.5) percentiles.push(percentile);
  for (let nines = 1; nines <= 4; nines += 1) {
    const from = 100 - 10 ** (2 - nines);
    const to = 100 - 10 ** (1 - nines);
    for (let step = 0; step < 9; step += 1) percentiles.push(from + ((to - from) * step) / 9);
  }
  percentiles.push(100);
  return percentiles;
}

/** A label for one latency-bearing run: scenario, offered load and record size. */
function runLabel(result: KafkaScenarioResult): string {
  const { options } = result;
  return `${result.scenario} ${options.throughputRecordsPerSecond}/s × ${options.recordSizeBytes} B`;
}

/** Every run whose commit-latency histogram was kept: kafka and open-loop runs, and each sweep point. */
export function latencyRuns(results: readonly ReportedResult[]): KafkaScenarioResult[] {
  return results.flatMap((result) => {
    if (result.scenario === 'sweep') return [...result.points];
    if (result.scenario === 'kafka' || result.scenario === 'open-loop') return [result];
    return [];
  });
}

/** Our runs' commit latencies and the peers' acknowledgement latencies, each labelled. */
function latencySeries(results: readonly ReportedResult[]): LatencySeries[] {
  const ours = latencyRuns(results).map((run) => ({ label: runLabel(run), histogram: run.latencyHistogram }));
  const peers = results.flatMap((result) =>
    result.scenario !== 'peers'
      ? []
      : result.runs.map((run) => ({
          label: `${run.system} ${result.options.throughputRecordsPerSecond}/s × ${result.options.recordSizeBytes} B`,
          histogram: run.figures?.latencyHistogram,
        })),
  );
  return [...ours, ...peers];
}

/** `[{run, latencyMs, percentile}]` for each series, from its HdrHistogram (microseconds). */
export function latencyCdfRows(series: readonly LatencySeries[]) {
  return series.flatMap((run) => {
    if (run.histogram === undefined) return [];
    const histogram = decodeFromCompressedBase64(run.histogram);
    if (histogram.totalCount === 0) {
      histogram.destroy();
      return [];
    }
    const rows = CDF_PERCENTILES.map((percentile) => ({
      run: run.label,
      latencyMs: Math.max(0.001, histogram.getValueAtPercentile(percentile) / 1000),
      percentile,
    }));
    histogram.destroy();
    return rows;
  });
}

function latencyCdfChart(series: readonly LatencySeries[]): ReportChart | undefined {
  const values = latencyCdfRows(series);
  if (values.length === 0) return undefined;
  return {
    title: 'Commit latency distribution',
    caption:
      "Each run's commit latencies over its measured window (the leader's HdrHistogram; peers: the client's send to acknowledgement): the share of records committed within a latency.",
    spec: {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      width: WIDTH,
      height: HEIGHT,
      data: { values },
      mark: { type: 'line', interpolate: 'step-after', point: false },
      encoding: {
        x: {
          field: 'latencyMs',
          type: 'quantitative',
          scale: { type: 'log' },
          title: 'commit latency (ms, log)',
        },
        y: {
          field: 'percentile',
          type: 'quantitative',
          title: 'records committed within (%)',
          scale: { domain: [0, 100] },
        },
        color: { field: 'run', type: 'nominal', title: 'run' },
      },
    },
  };
}

/** `[{recordSize, committedMegabytesPerSecond, percentile, latencyMs}]` for each sweep point. */
export function sweepCurveRows(results: readonly ReportedResult[]) {
  return results.flatMap((result) =>
    result.scenario !== 'sweep'
      ? []
      : result.points.flatMap((point) =>
          (['p50', 'p99'] as const).flatMap((percentile) => {
            const latencyMs = point.figures.latencyMs[percentile];
            if (latencyMs === undefined) return [];
            return [
              {
                series: `${point.options.recordSizeBytes} B ${percentile}`,
                committedMegabytesPerSecond: point.figures.committedBytesPerSecond / 1e6,
                latencyMs,
              },
            ];
          }),
        ),
  );
}

function sweepChart(results: readonly ReportedResult[]): ReportChart | undefined {
  const values = sweepCurveRows(results);
  if (values.length === 0) return undefined;
  return {
    title: 'Throughput and latency (sweep)',
    caption:
      'One short run per point: committed MB/s against its p50 and p99 commit latency, a line per record size.',
    spec: {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      width: WIDTH,
      height: HEIGHT,
      data: { values },
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'committedMegabytesPerSecond', type: 'quantitative', title: 'committed (MB/s)' },
        y: {
          field: 'latencyMs',
          type: 'quantitative',
          scale: { type: 'log' },
          title: 'commit latency (ms, log)',
        },
        color: { field: 'series', type: 'nominal', title: 'record size, percentile' },
        order: { field: 'committedMegabytesPerSecond', type: 'quantitative' },
      },
    },
  };
}

/** `[{trial, phase, fromMs, toMs}]`: per failover trial, kill → elected → first commit. */
export function failoverTimelineRows(results: readonly ReportedResult[]) {
  return results.flatMap((result) =>
    result.scenario !== 'failover'
      ? []
      : result.trials.flatMap((trial, index) => {
          const label = `trial ${index + 1}: SIG${result.options.signal ?? 'KILL'} node ${trial.killedNodeId}`;
          return [
            { trial: label, phase: 'kill → new leader', fromMs: 0, toMs: trial.electedMs },
            {
              trial: label,
              phase: 'new leader → first commit',
              fromMs: trial.electedMs,
              toMs: trial.firstCommitMs,
            },
          ];
        }),
  );
}

/** One stage of a timeline: a bar from `fromMs` to `toMs` on the row `trial`, coloured by `phase`. */
interface TimelineRow {
  readonly trial: string;
  readonly phase: string;
  readonly fromMs: number;
  readonly toMs: number;
}

/** Bars per row, one per phase: the failover and restart timelines share the shape. */
function timelineChart(
  title: string,
  caption: string,
  axisTitle: string,
  values: readonly TimelineRow[],
): ReportChart | undefined {
  if (values.length === 0) return undefined;
  return {
    title,
    caption,
    spec: {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      width: WIDTH,
      height: { step: 28 },
      data: { values: [...values] },
      mark: { type: 'bar' },
      encoding: {
        y: { field: 'trial', type: 'nominal', title: null, sort: null },
        x: { field: 'fromMs', type: 'quantitative', title: axisTitle },
        x2: { field: 'toMs' },
        color: { field: 'phase', type: 'nominal', title: 'phase', sort: null },
      },
    },
  };
}

function failoverChart(results: readonly ReportedResult[]): ReportChart | undefined {
  return timelineChart(
    'Failover timelines',
    'From the signal to the leader (0) to the first stats line of a new leader, then to its first commit past everything committed before.',
    'ms after the signal',
    failoverTimelineRows(results),
  );
}

/** Consecutive phases from the spawn (0), each ending at its time; a missing time ends the row. */
function stages(trial: string, ends: readonly (readonly [string, number | undefined])[]): TimelineRow[] {
  const rows: TimelineRow[] = [];
  let fromMs = 0;
  for (const [phase, toMs] of ends) {
    if (toMs === undefined || !Number.isFinite(toMs)) break;
    rows.push({ trial, phase, fromMs, toMs: Math.max(fromMs, toMs) });
    fromMs = Math.max(fromMs, toMs);
  }
  return rows;
}

/** `[{trial, phase, fromMs, toMs}]` from the spawn: restarted quorums and followers, catch-ups. */
export function restartTimelineRows(results: readonly ReportedResult[]): TimelineRow[] {
  return results.flatMap((result) => {
    if (result.scenario === 'restart') {
      const signal = `SIG${result.options.signal}`;
      const { quorumRestart: quorum, followerRestart: follower } = result;
      return [
        ...(quorum === undefined
          ? []
          : stages(`restart ${signal}: whole quorum`, [
              ['spawn → leader', quorum.launchToLeaderMs],
              ['→ first commit', quorum.launchToFirstCommitMs],
              // Older results lack it: the row then ends at the first commit.
              ['→ new records committed', quorum.launchToWorkloadCommitMs],
            ])),
        ...(follower === undefined
          ? []
          : stages(`restart ${signal}: follower ${follower.nodeId}`, [
              ['spawn → log opened', follower.open.launchToLogOpenedMs],
              ['→ caught up', follower.launchToCaughtUpMs],
            ])),
      ];
    }
    if (result.scenario === 'catch-up' && result.catchUp !== undefined) {
      const catchUp = result.catchUp;
      return stages(`catch-up: follower ${catchUp.nodeId}`, [
        ['spawn → log opened', catchUp.open.launchToLogOpenedMs],
        ['→ snapshot installed', catchUp.launchToSnapshotInstalledMs],
        ['→ caught up', catchUp.launchToCaughtUpMs],
      ]);
    }
    return [];
  });
}

function restartChart(results: readonly ReportedResult[]): ReportChart | undefined {
  return timelineChart(
    'Restart and catch-up timelines',
    "From the spawn (0) to the node's `opened log` line, a snapshot installed, caught up with the leader's high watermark; for a whole quorum, to the first leader and its first commit.",
    'ms after the spawn',
    restartTimelineRows(results),
  );
}

/** `[{run, node, cpuSecondsPerMebibyte}]` for every latency-bearing run. */
export function cpuRows(runs: readonly KafkaScenarioResult[]) {
  return runs.flatMap((run) =>
    run.usage.map((usage) => {
      const committedMebibytes = (run.figures.committedRecords * run.options.recordSizeBytes) / MEBIBYTE;
      // The leader is named in the run's label: one colour per node id across runs.
      return {
        run: `${runLabel(run)}, leader ${run.leaderId}`,
        node: `node ${usage.nodeId}`,
        cpuSecondsPerMebibyte: committedMebibytes > 0 ? usage.cpuSeconds / committedMebibytes : 0,
      };
    }),
  );
}

function cpuChart(runs: readonly KafkaScenarioResult[]): ReportChart | undefined {
  const values = cpuRows(runs);
  if (values.length === 0) return undefined;
  return {
    title: 'CPU per committed MiB',
    caption: "Each process's CPU-seconds over the measured window (/proc) per MiB committed.",
    spec: {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      width: WIDTH,
      height: { step: 14 },
      data: { values },
      mark: { type: 'bar' },
      encoding: {
        y: { field: 'run', type: 'nominal', title: null },
        yOffset: { field: 'node', type: 'nominal' },
        x: { field: 'cpuSecondsPerMebibyte', type: 'quantitative', title: 'CPU-seconds per committed MiB' },
        color: { field: 'node', type: 'nominal', title: 'process' },
      },
    },
  };
}

/** The charts the results have data for, in the report's order. */
export function reportCharts(results: readonly ReportedResult[]): ReportChart[] {
  const runs = latencyRuns(results);
  return [
    sweepChart(results),
    latencyCdfChart(latencySeries(results)),
    failoverChart(results),
    restartChart(results),
    cpuChart(runs),
  ].filter((chart): chart is ReportChart => chart !== undefined);
}
