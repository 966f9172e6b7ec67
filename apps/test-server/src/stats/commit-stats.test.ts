import { describe, expect, it } from 'vitest';
import { CommitStats } from './commit-stats.js';
import { formatStatsLine, type NodeStatus, STATS_LINE_PATTERN } from './format-stats-line.js';
import { StatsReporter } from './stats-reporter.js';

describe('CommitStats', () => {
  it('reports rates and HdrHistogram percentiles for one interval, then starts empty', () => {
    const stats = new CommitStats();
    for (let index = 1; index <= 1000; index += 1) stats.recordCommit(index / 10, 256);
    const snapshot = stats.snapshotAndReset(5000);
    expect(snapshot.records).toBe(1000);
    expect(snapshot.bytesPerSecond).toBe((256 * 1000) / 5);
    expect(snapshot.recordsPerSecond).toBe(200);
    expect(snapshot.p75Ms).toBeCloseTo(75, 1);
    expect(snapshot.p99Ms).toBeCloseTo(99, 1);
    expect(snapshot.p999Ms).toBeCloseTo(99.9, 1);
    expect(snapshot.maxLatencyMs).toBe(100);
    const empty = stats.snapshotAndReset(5000);
    expect(empty).toMatchObject({ records: 0, bytesPerSecond: 0, p99Ms: 0, maxLatencyMs: 0 });
    expect(stats.totalRecords()).toBe(1000);
    expect(stats.totalBytes()).toBe(256_000);
  });

  it('keeps sub-millisecond resolution and clamps absurd latencies', () => {
    const stats = new CommitStats();
    stats.recordCommit(0.25, 1);
    stats.recordCommit(-3, 1);
    stats.recordCommit(10 * 60_000, 1);
    const snapshot = stats.snapshotAndReset(1000);
    expect(snapshot.maxLatencyMs).toBe(60_000);
    expect(snapshot.records).toBe(3);
  });

  it('records a run of records of one latency as that many single records', () => {
    const one = new CommitStats();
    const counted = new CommitStats();
    for (const [latencyMs, count] of [
      [0.4, 3],
      [12, 500],
      [80, 2],
    ] as const) {
      for (let index = 0; index < count; index += 1) one.recordCommit(latencyMs, 64);
      counted.recordCommits(latencyMs, count, 64);
    }
    for (let index = 0; index < 7; index += 1) one.recordCommitWithoutLatency(64);
    counted.recordCommitsWithoutLatency(7, 64);
    expect(counted.snapshotAndReset(1000)).toEqual(one.snapshotAndReset(1000));
    expect(counted.totalBytes()).toBe(512 * 64);
  });

  it('counts records without latency toward throughput only', () => {
    const stats = new CommitStats();
    stats.recordCommitWithoutLatency(100);
    const snapshot = stats.snapshotAndReset(1000);
    expect(snapshot).toMatchObject({
      records: 1,
      latencyRecords: 0,
      bytesPerSecond: 100,
      p75Ms: 0,
      maxLatencyMs: 0,
    });
  });
});

/** A leader of epoch 1 with nothing committed yet; tests override what they look at. */
function nodeStatus(overrides: Partial<NodeStatus>): NodeStatus {
  return { role: 'Leader', epoch: 1, leaderId: 1, highWatermark: 0, logEndOffset: 0, ...overrides };
}

describe('formatStatsLine', () => {
  const leaderSnapshot = {
    intervalMs: 5000,
    records: 25000,
    latencyRecords: 25000,
    bytes: 6_400_000,
    bytesPerSecond: 1_280_000,
    recordsPerSecond: 5000,
    p75Ms: 20.04,
    p99Ms: 26.06,
    p999Ms: 27,
    maxLatencyMs: 31.44,
  };

  it("starts with Kafka's exact line and appends our extras, the leader id and log end offset last", () => {
    const line = formatStatsLine(
      leaderSnapshot,
      nodeStatus({ epoch: 3, highWatermark: 123456, logEndOffset: 123470 }),
    );
    expect(line).toBe(
      'Throughput (bytes/second): 1280000.00, Latency (ms): 20.0 p75 26.1 p99 27.0 p999, ' +
        'Records/second: 5000.00, Max latency (ms): 31.4, Role: Leader, Epoch: 3, High watermark: 123456, ' +
        'Leader: 1, Log end offset: 123470',
    );
    expect(STATS_LINE_PATTERN.exec(line)?.groups).toMatchObject({
      p99Ms: '26.1',
      leaderId: '1',
      logEndOffset: '123470',
    });
  });

  it('a follower shows its throughput, no latency figure, and whom it follows', () => {
    const stats = new CommitStats();
    stats.recordCommitWithoutLatency(256);
    const line = formatStatsLine(
      stats.snapshotAndReset(1000),
      nodeStatus({ role: 'Follower', epoch: 4, leaderId: 2, highWatermark: 900, logEndOffset: 901 }),
    );
    expect(line).toBe(
      'Throughput (bytes/second): 256.00, Records/second: 1.00, Role: Follower, Epoch: 4, ' +
        'High watermark: 900, Leader: 2, Log end offset: 901',
    );
    const groups = STATS_LINE_PATTERN.exec(line)?.groups;
    expect(groups).toMatchObject({ role: 'Follower', leaderId: '2' });
    expect(groups?.['p75Ms']).toBeUndefined();
  });

  it("a leader shows Kafka's latency part even in an interval it committed nothing", () => {
    for (const role of ['Leader', 'leader']) {
      const line = formatStatsLine(new CommitStats().snapshotAndReset(5000), nodeStatus({ role }));
      expect(line).toMatch(
        /^Throughput \(bytes\/second\): 0\.00, Latency \(ms\): 0\.0 p75 0\.0 p99 0\.0 p999, /,
      );
    }
  });

  it('a node that measured latency before it stopped leading still shows it', () => {
    const line = formatStatsLine(
      leaderSnapshot,
      nodeStatus({ role: 'Resigned', epoch: 3, highWatermark: 5, logEndOffset: 5 }),
    );
    expect(line).toMatch(/^Throughput \(bytes\/second\): 1280000\.00, Latency \(ms\): 20\.0 p75 /);
  });

  it('ends our extras with the event loop delay p99 when it is monitored, before the leader fields', () => {
    const line = formatStatsLine(
      new CommitStats().snapshotAndReset(5000),
      nodeStatus({ highWatermark: 7, logEndOffset: 7, eventLoopDelayP99Ms: 12.345 }),
    );
    expect(line).toMatch(
      /High watermark: 7, Event loop delay p99 \(ms\): 12\.3, Leader: 1, Log end offset: 7$/,
    );
    expect(STATS_LINE_PATTERN.exec(line)?.groups?.['eventLoopDelayP99Ms']).toBe('12.3');
  });

  it('says unknown before a high watermark is known and none without a leader', () => {
    const stats = new CommitStats();
    const line = formatStatsLine(
      stats.snapshotAndReset(5000),
      nodeStatus({ role: 'Candidate', leaderId: undefined, highWatermark: undefined }),
    );
    expect(line).toMatch(
      /Role: Candidate, Epoch: 1, High watermark: unknown, Leader: none, Log end offset: 0$/,
    );
    expect(STATS_LINE_PATTERN.exec(line)?.groups).toMatchObject({
      highWatermark: 'unknown',
      leaderId: 'none',
    });
  });
});

describe('StatsReporter', () => {
  it('measures each interval by the clock and writes one line per report', () => {
    let nowMs = 1000;
    const lines: string[] = [];
    const stats = new CommitStats();
    const reporter = new StatsReporter({
      stats,
      status: () => ({ role: 'Leader', epoch: 2, leaderId: 1, highWatermark: 10, logEndOffset: 10 }),
      writeLine: (line) => lines.push(line),
      nowMs: () => nowMs,
    });
    stats.recordCommit(5, 1000);
    nowMs += 2000;
    reporter.report();
    expect(lines[0]).toMatch(/^Throughput \(bytes\/second\): 500\.00, Latency \(ms\): 5\.0 p75/);
    nowMs += 1000;
    reporter.report();
    expect(lines[1]).toMatch(/^Throughput \(bytes\/second\): 0\.00,/);
  });

  it('adds the event loop delay p99 of each interval and restarts the histogram', () => {
    const lines: string[] = [];
    const calls: string[] = [];
    let samples = 0;
    const histogram = {
      get count() {
        return samples;
      },
      percentile: (percentile: number) => (percentile === 99 ? 21_500_000 : 0),
      reset: () => {
        calls.push('reset');
        samples = 0;
      },
      enable: () => calls.push('enable') > 0,
      disable: () => calls.push('disable') > 0,
    };
    const reporter = new StatsReporter({
      stats: new CommitStats(),
      status: () => ({ role: 'Leader', epoch: 1, leaderId: 1, highWatermark: 3, logEndOffset: 3 }),
      writeLine: (line) => lines.push(line),
      nowMs: () => 0,
      intervalMs: 60_000,
      eventLoopDelay: histogram,
    });
    reporter.start();
    samples = 40;
    reporter.report();
    reporter.report();
    reporter.stop();
    expect(lines[0]).toMatch(/Event loop delay p99 \(ms\): 21\.5, Leader: 1, Log end offset: 3$/);
    expect(lines[1]).toMatch(/Event loop delay p99 \(ms\): 0\.0, Leader: 1, Log end offset: 3$/);
    expect(calls).toEqual(['enable', 'reset', 'reset', 'disable']);
  });
});
