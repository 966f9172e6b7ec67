import { describe, expect, it } from 'vitest';
import { catchUpSummary, intervalLatency, runCatchUpScenario } from './catch-up-scenario.js';
import { LocalQuorum } from './local-quorum.js';
import { catchUpFixture } from './report/report-fixtures.js';

describe('catch-up scenario', () => {
  it("takes the leader's intervals that ended inside the window and measured something", () => {
    const intervals = [
      { atMs: 100, p99Ms: 50, records: 10 },
      { atMs: 200, p99Ms: 10, records: 10 },
      { atMs: 300, p99Ms: 30, records: 0 },
      { atMs: 400, p99Ms: 20, records: 10 },
      { atMs: 500, p99Ms: 90, records: 10 },
    ];
    expect(intervalLatency(intervals, 100, 400)).toEqual({ intervals: 2, medianP99Ms: 20, maxP99Ms: 20 });
    expect(intervalLatency(intervals, 0, 500)).toEqual({ intervals: 4, medianP99Ms: 50, maxP99Ms: 90 });
    expect(intervalLatency(intervals, 500, 600)).toEqual({ intervals: 0, medianP99Ms: 0, maxP99Ms: 0 });
  });

  it('refuses fewer than 3 nodes before starting any', async () => {
    const result = await runCatchUpScenario({
      ...catchUpFixture().options,
      nodeCount: 1,
    });
    expect(result.passed).toBe(false);
    expect(result.failures).toEqual(['catch-up needs at least 3 nodes']);
    expect(LocalQuorum.active.size).toBe(0);
  });

  it('summarises a saved result on one verdict line and a row per figure', () => {
    const summary = catchUpSummary(catchUpFixture());
    expect(summary.verdict).toBe(
      'PASSED: follower caught up 3.11 s after its spawn through snapshot 122177; leader p99 40.0 ms before, up to 350.0 ms during',
    );
    expect(summary.rows.map(([name]) => name)).toContain('leader commit p99 during the catch-up');
  });
});
