import { describe, expect, it } from 'vitest';
import type { ProposeOutcome } from '../raft-node/raft-node-messages.js';
import type { ProposeReply } from '../raft-node/raft-node-process.js';
import {
  failoverTrial,
  firstOffsetOutOfOrder,
  measureLatency,
  type ProposingNode,
  type RaftNodeScenarioOptions,
  type RaftNodeScenarioResult,
  raftNodeSummary,
} from './raft-node-scenario.js';

/** A node whose every proposal is answered by `answer` (given how many it answered before), at once. */
function scriptedNode(
  nodeId: number,
  answer: (call: number, killed: boolean) => ProposeOutcome | { readonly kind: 'exited' },
): ProposingNode & { killed: boolean } {
  let calls = 0;
  return {
    nodeId,
    killed: false,
    kill() {
      this.killed = true;
    },
    propose(): Promise<ProposeReply> {
      const outcome = answer(calls++, this.killed);
      return Promise.resolve({ ...outcome, sentAtMs: 0, receivedAtMs: 1 });
    },
  };
}

const committed = (offset: number, epoch: number): ProposeOutcome => ({
  kind: 'committed',
  offset,
  epoch,
  proposeMs: 1,
});
const notLeader = (epoch: number): ProposeOutcome => ({ kind: 'not-leader', epoch, leaderId: undefined });

const LATENCY_OPTIONS: RaftNodeScenarioOptions = {
  nodeCount: 3,
  trials: 1,
  recordSizeBytes: 10,
  lingerMs: 0,
  proposals: 4,
  warmupProposals: 1,
  proposers: 1,
};

describe('raft-node scenario', () => {
  it('names the first acknowledged offset that is not above the one before it', () => {
    expect(firstOffsetOutOfOrder([])).toBeUndefined();
    expect(firstOffsetOutOfOrder([3, 4, 9])).toBeUndefined();
    expect(firstOffsetOutOfOrder([3, 4, 4, 9])).toBe('acknowledgement 2 has offset 4 after 4');
    expect(firstOffsetOutOfOrder([3, 5, 4])).toBe('acknowledgement 2 has offset 4 after 5');
  });

  it('fails a latency case whose leader acknowledges an offset twice or changes epoch, and passes one that does not', async () => {
    const run = async (offsets: readonly number[], epochs: readonly number[]) => {
      const failures: string[] = [];
      const leader = scriptedNode(1, (call) => committed(offsets[call] as number, epochs[call] as number));
      const latency = await measureLatency(leader, 1, LATENCY_OPTIONS, failures);
      return { failures, latency };
    };
    const good = await run([1, 2, 3, 4, 5], [1, 1, 1, 1, 1]);
    expect(good.failures).toEqual([]);
    expect(good.latency.acknowledgedOffsets).toEqual([1, 2, 3, 4, 5]);
    expect((await run([1, 2, 2, 3, 4], [1, 1, 1, 1, 1])).failures).toEqual([
      '1 proposer(s): acknowledgement 2 has offset 2 after 2',
    ]);
    expect((await run([1, 2, 3, 4, 5], [1, 1, 2, 2, 2])).failures).toEqual([
      '1 proposer(s): the leader changed (epochs 1,2)',
    ]);
  });

  it('fails a failover whose first commit after the kill is not above the last acknowledged before it', async () => {
    const run = async (offsetAfter: number) => {
      // Node 1 leads epoch 1 (offsets 1 and 2); after its kill node 2 leads epoch 2; node 3 never leads.
      const oldLeader = scriptedNode(1, (call, killed) =>
        killed ? { kind: 'exited' } : committed(call + 1, 1),
      );
      const nodes = [
        oldLeader,
        scriptedNode(2, () => (oldLeader.killed ? committed(offsetAfter, 2) : notLeader(1))),
        scriptedNode(3, () => notLeader(1)),
      ];
      const failures: string[] = [];
      const trial = await failoverTrial(nodes, 'v', failures, 0);
      return { failures, trial, killed: nodes.map((node) => node.killed) };
    };
    const good = await run(4);
    expect(good.failures).toEqual([]);
    expect(good.killed).toEqual([true, false, false]);
    expect(good.trial).toMatchObject({
      killedNodeId: 1,
      killedEpoch: 1,
      lastOffsetBefore: 2,
      newLeaderId: 2,
      newEpoch: 2,
      firstOffsetAfter: 4,
    });
    expect((await run(2)).failures).toEqual(['offset 2 committed after the kill is not above 2']);
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
