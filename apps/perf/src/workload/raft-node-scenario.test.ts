import { describe, expect, it } from 'vitest';
import { firstOffsetOutOfOrder, type RaftNodeScenarioResult, raftNodeSummary } from './raft-node-scenario.js';

describe('raft-node scenario', () => {
  it('names the first acknowledged offset that is not above the one before it', () => {
    expect(firstOffsetOutOfOrder([])).toBeUndefined();
    expect(firstOffsetOutOfOrder([3, 4, 9])).toBeUndefined();
    expect(firstOffsetOutOfOrder([3, 4, 4, 9])).toBe('acknowledgement 2 has offset 4 after 4');
    expect(firstOffsetOutOfOrder([3, 5, 4])).toBe('acknowledgement 2 has offset 4 after 5');
  });

  it('summarises each latency case, the failover spread and every trial, and the load average', () => {
    const percentilesMs = { p50: 26, p99: 31.5, max: 40 };
    const result: RaftNodeScenarioResult = {
      scenario: 'raft-node',
      passed: true,
      failures: [],
      options: {
        nodeCount: 3,
        trials: 2,
        recordSizeBytes: 100,
        lingerMs: 25,
        proposals: 2_000,
        warmupProposals: 200,
        proposers: 16,
      },
      resolutionMs: 10,
      loadAverage: { atStart: [1.5, 1, 0.5], atEnd: [2, 1.25, 0.5] },
      latency: [1, 16].map((proposers) => ({
        proposers,
        leaderId: 1,
        epoch: 1,
        proposeMs: percentilesMs,
        roundTripMs: percentilesMs,
        proposeHistogram: '',
        committedPerSecond: 38,
        acknowledgedOffsets: [],
      })),
      failover: {
        trials: [
          {
            killedNodeId: 1,
            killedEpoch: 1,
            lastOffsetBefore: 3,
            newLeaderId: 2,
            newEpoch: 2,
            firstOffsetAfter: 5,
            firstCommitMs: 300,
          },
          {
            killedNodeId: 2,
            killedEpoch: 1,
            lastOffsetBefore: 3,
            newLeaderId: 3,
            newEpoch: 2,
            firstOffsetAfter: 5,
            firstCommitMs: 500,
          },
        ],
        firstCommitMs: { p50: 300, p99: 500, min: 300, max: 500 },
      },
    };
    const summary = raftNodeSummary(result);
    expect(summary.verdict).toBe('PASSED');
    expect(summary.rows.map(([name]) => name)).toEqual([
      'propose, 1 closed-loop proposer(s): p50 / p99 / max',
      'propose, 16 closed-loop proposer(s): p50 / p99 / max',
      'failover, kill -9 of the leader → first commit in a later epoch (2 trials): p50 / p99 / min / max',
      'trial 1: node 1 (epoch 1) → node 2 (epoch 2)',
      'trial 2: node 2 (epoch 1) → node 3 (epoch 2)',
      'load average (1, 5, 15 min) at start / end',
    ]);
    expect(summary.rows[0]?.[1]).toBe(
      "26.00 / 31.50 / 40.00 ms (runner's round-trip 26.00 / 31.50 / 40.00 ms), 38 commits/s",
    );
    expect(summary.rows[2]?.[1]).toBe('300.00 / 500.00 / 300.00 / 500.00 ms');
    expect(summary.rows[5]?.[1]).toBe('1.50, 1.00, 0.50 / 2.00, 1.25, 0.50');
    expect(raftNodeSummary({ ...result, passed: false, failures: ['the leader changed'] }).verdict).toBe(
      'FAILED:\n\n- the leader changed',
    );
  });
});
