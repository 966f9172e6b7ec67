import { describe, expect, it } from 'vitest';
import { failoverSummary } from './failover-scenario.js';
import { failoverFixture } from './report/report-fixtures.js';

describe('failoverSummary', () => {
  it('leads with the start-up, saying what the nodes ran, then one row per trial', () => {
    const result = { ...failoverFixture(), startup: { launchToLeaderMs: 1_234, entry: 'built' as const } };
    const rows = failoverSummary(result).rows;
    expect(rows[0]).toEqual(['start-up (built JavaScript)', 'launch → a leader every node knows 1.23 s']);
    expect(rows.slice(1).map(([label]) => label)).toEqual([
      'trial 1: node 1 (epoch 1) → node 2 (epoch 2)',
      'trial 2: node 2 (epoch 2) → node 3 (epoch 3)',
    ]);
  });

  it('has no start-up row for an older result without one', () => {
    expect(failoverSummary(failoverFixture()).rows.map(([label]) => label)[0]).toMatch(/^trial 1:/);
  });
});
