import { describe, expect, it } from 'vitest';
import { LocalQuorum } from './local-quorum.js';
import { restartFixture } from './report/report-fixtures.js';
import { restartSummary, runRestartScenario } from './restart-scenario.js';

describe('restart scenario', () => {
  it('refuses fewer than 3 nodes before starting any', async () => {
    const result = await runRestartScenario({ ...restartFixture().options, nodeCount: 1 });
    expect(result.passed).toBe(false);
    expect(result.failures).toEqual(['restart needs at least 3 nodes']);
    expect(LocalQuorum.active.size).toBe(0);
  });

  it('summarises a saved result on one verdict line and a row per figure', () => {
    const summary = restartSummary(restartFixture());
    expect(summary.verdict).toBe(
      'PASSED: follower log opened 3.60 s and caught up 4.60 s after its spawn; whole quorum led 9.00 s, first commit 10.30 s',
    );
    expect(summary.rows.find(([name]) => name === 'follower log = leader committed log')?.[1]).toBe(
      'yes, 271.0 MiB below offset 54,573',
    );
  });
});
