import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readResults, renderChartSvg, renderReportHtml, writeReport } from './render-report.js';
import {
  cpuRows,
  failoverTimelineRows,
  latencyCdfRows,
  reportCharts,
  restartTimelineRows,
  sweepCurveRows,
} from './report-charts.js';
import {
  catchUpFixture,
  failoverFixture,
  kafkaFixture,
  reportFixtures,
  restartFixture,
  sweepFixture,
} from './report-fixtures.js';

/** How many drawn marks of `kind` (Vega's `mark-<kind>` groups) an SVG holds: paths inside them. */
function marks(svg: string, kind: string): number {
  const groups = svg.split(`class="mark-${kind} role-mark`).slice(1);
  return groups.reduce((sum, group) => sum + (group.split('</g>')[0]?.match(/<path/g)?.length ?? 0), 0);
}

describe('report charts', () => {
  it('draw one chart per kind of data: sweep curve, latency CDF, failover timeline, CPU per MiB', () => {
    expect(reportCharts(reportFixtures()).map((chart) => chart.title)).toEqual([
      'Throughput and latency (sweep)',
      'Commit latency distribution',
      'Failover timelines',
      'CPU per committed MiB',
    ]);
    expect(reportCharts([failoverFixture()]).map((chart) => chart.title)).toEqual(['Failover timelines']);
    expect(reportCharts([{ scenario: 'metadata' }])).toEqual([]);
  });

  it('take their rows from the saved figures and histograms', () => {
    const sweep = sweepFixture();
    const rows = sweepCurveRows([sweep]);
    expect(rows).toHaveLength(sweep.points.length * 2);
    expect(rows[0]).toEqual({
      series: '256 B p50',
      committedMegabytesPerSecond: (sweep.points[0]?.figures.committedBytesPerSecond ?? 0) / 1e6,
      latencyMs: sweep.points[0]?.figures.latencyMs['p50'],
    });
    const run = kafkaFixture('kafka', 5_000, 256, 10);
    const cdf = latencyCdfRows([{ label: 'run', histogram: run.latencyHistogram }]);
    const percentiles = cdf.map((row) => row.percentile);
    expect(percentiles).toEqual([...percentiles].sort((left, right) => left - right));
    expect(cdf.at(-1)?.percentile).toBe(100);
    // The histogram spans 5 ms .. 30 ms: its CDF starts and ends there (HdrHistogram's 3 digits).
    expect(cdf[0]?.latencyMs).toBeCloseTo(5, 1);
    expect(cdf.at(-1)?.latencyMs).toBeCloseTo(30, 0);
    const latencies = cdf.map((row) => row.latencyMs);
    expect(latencies).toEqual([...latencies].sort((left, right) => left - right));
    expect(failoverTimelineRows([failoverFixture()])[1]).toEqual({
      trial: 'trial 1: SIGKILL node 1',
      phase: 'new leader → first commit',
      fromMs: 1_450,
      toMs: 1_520,
    });
    const cpu = cpuRows([run]);
    expect(cpu[0]).toMatchObject({ run: 'kafka 5000/s × 256 B, leader 1', node: 'node 1' });
    expect(cpu[0]?.cpuSecondsPerMebibyte).toBeCloseTo(
      2.5 / ((run.figures.committedRecords * 256) / 1024 / 1024),
      9,
    );
  });

  it('render to SVG with marks in Node, no browser', async () => {
    const [sweep, cdf, failover, cpu] = reportCharts(reportFixtures());
    expect(marks(await renderChartSvg(sweep as never), 'line')).toBe(4);
    expect(marks(await renderChartSvg(sweep as never), 'symbol')).toBe(12);
    // open-loop + etcd; the skipped ZooKeeper run has no histogram.
    expect(marks(await renderChartSvg(cdf as never), 'line')).toBe(2 + 6);
    expect(marks(await renderChartSvg(failover as never), 'rect')).toBe(4);
    expect(marks(await renderChartSvg(cpu as never), 'rect')).toBe(3 * 7);
  });
});

describe('restart and catch-up timelines', () => {
  it('draw each restart and catch-up as consecutive stages from the spawn', async () => {
    const results = [restartFixture(), catchUpFixture()];
    const charts = reportCharts(results);
    expect(charts.map((chart) => chart.title)).toEqual(['Restart and catch-up timelines']);
    const rows = restartTimelineRows(results);
    expect(rows.map((row) => [row.trial, row.phase, row.fromMs, row.toMs])).toEqual([
      ['restart SIGKILL: whole quorum', 'spawn → leader', 0, 9_000],
      ['restart SIGKILL: whole quorum', '→ first commit', 9_000, 10_300],
      ['restart SIGKILL: whole quorum', '→ new records committed', 10_300, 11_000],
      ['restart SIGKILL: follower 1', 'spawn → log opened', 0, 3_600],
      ['restart SIGKILL: follower 1', '→ caught up', 3_600, 4_600],
      ['catch-up: follower 2', 'spawn → log opened', 0, 2_650],
      ['catch-up: follower 2', '→ snapshot installed', 2_650, 2_880],
      ['catch-up: follower 2', '→ caught up', 2_880, 3_110],
    ]);
    expect(marks(await renderChartSvg(charts[0] as never), 'rect')).toBe(8);
    const html = await renderReportHtml(results, { generatedAt: '2026-01-01T00:00:00Z' });
    expect(html).toContain('restart: 256.0 MiB log, 3 nodes, SIGKILL');
    expect(html).toContain('follower log = leader committed log');
    expect(html).toContain('catch-up: 3 nodes, metadata workload');
  });
});

describe('report page', () => {
  let directory: string | undefined;
  afterEach(() => {
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  });

  it('is one self-contained page: inline SVG charts, each run table, no script and no link out', async () => {
    const html = await renderReportHtml(reportFixtures(), { generatedAt: '2026-01-01T00:00:00Z' });
    expect(html.match(/<svg /g)).toHaveLength(4);
    expect(html).not.toMatch(/<script|<link|src="http/);
    expect(html).toContain('loaded machine');
    expect(html).toContain('sweep: 3 nodes, 6 points');
    expect(html).toContain('install it with `apt-get install zookeeper`');
  });

  it('`pnpm perf report <dir>` renders the saved JSON results there again', async () => {
    directory = mkdtempSync(join(tmpdir(), 'kraft-report-'));
    writeFileSync(
      join(directory, 'failover-2026-01-01T00-00-02-000Z.json'),
      JSON.stringify(failoverFixture()),
    );
    writeFileSync(
      join(directory, 'open-loop-2026-01-01T00-00-01-000Z.json'),
      JSON.stringify(kafkaFixture('open-loop', 9, 9, 9)),
    );
    writeFileSync(join(directory, 'notes.json'), '{"other": true}');
    expect(readResults(directory).map((result) => result.scenario)).toEqual(['open-loop', 'failover']);
    const html = readFileSync(await writeReport(directory), 'utf8');
    expect(html.match(/<svg /g)).toHaveLength(3);
    expect(html).toContain('Failover timelines');
  });
});
