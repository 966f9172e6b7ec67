// The invariants over dynamic voters (kraft.version 1, ADR 0047): each must report what it
// guards, on a hand-built cluster view, so a scenario passing with it proves something.
import { describe, expect, it } from 'vitest';
import { CommittedHistory } from '../../src/testing/committed-history.js';
import { type DynamicVotersView, InvariantChecker, type NodeView } from '../../src/testing/invariants.js';
import { MockLog } from '../kit/mock-log.js';

interface FakeVoters {
  voterIds: number[];
  uncommitted: number;
  wasVoter: boolean;
}

/** Node 0 leads epoch 1 with `highWatermark`; the others follow; `durable` is each node's flushed end. */
function cluster(
  durable: readonly number[],
  leaderVoters: FakeVoters | undefined,
  highWatermark: { value: number },
) {
  const nodes: NodeView[] = durable.map((end, nodeId) => {
    const dynamicVoters: DynamicVotersView | undefined =
      nodeId === 0 && leaderVoters !== undefined
        ? {
            voterIds: () => leaderVoters.voterIds,
            uncommittedVoterChanges: () => leaderVoters.uncommitted,
            wasVoterAtEpochStart: () => leaderVoters.wasVoter,
          }
        : undefined;
    const view = {
      incarnation: 1,
      // The log's own high watermark stays 0: no committed prefix to compare with history.
      log: new MockLog(),
      isLeader: () => nodeId === 0,
      epoch: () => 1,
      highWatermark: () => (nodeId === 0 ? highWatermark.value : undefined),
      dynamicVoters,
    };
    return {
      nodeId,
      // The static voters: nodes 0, 1 and 2.
      isVoter: nodeId < 3,
      running: () => view,
      durableEndOffset: () => end,
    };
  });
  return nodes;
}

function check(nodes: readonly NodeView[]): string[] {
  const reports: string[] = [];
  new InvariantChecker(new CommittedHistory(), (violation) => reports.push(violation)).check(nodes);
  return reports;
}

describe('invariants over dynamic voters', () => {
  it('MajorityReachedHighWatermark counts over the leader voter set, not the static voters', () => {
    const highWatermark = { value: 10 };
    // Nodes 0 and 1 hold offset 10: a majority of {0, 1, 2}, not of {0, 1, 2, 3}.
    const durable = [10, 10, 0, 0];
    expect(check(cluster(durable, undefined, highWatermark))).toEqual([]);
    const voters = { voterIds: [0, 1, 2, 3], uncommitted: 0, wasVoter: true };
    expect(check(cluster(durable, voters, highWatermark))).toEqual([
      expect.stringContaining('MajorityReachedHighWatermark: leader 0 has high watermark 10 but only 2 of 4'),
    ]);
  });

  it('checks a new voter set from the next high watermark on', () => {
    const highWatermark = { value: 10 };
    const voters = { voterIds: [0, 1, 2], uncommitted: 0, wasVoter: true };
    const nodes = cluster([10, 10, 0], voters, highWatermark);
    const reports: string[] = [];
    const checker = new InvariantChecker(new CommittedHistory(), (violation) => reports.push(violation));
    checker.check(nodes);
    // Voter 1 is removed: offset 10, committed by {0, 1}, lies on one of {0, 2}. Safe, not reported,
    // neither when the change is seen nor at the next check with the same high watermark.
    voters.voterIds = [0, 2];
    checker.check(nodes);
    checker.check(nodes);
    expect(reports).toEqual([]);
    // A high watermark of the new set must lie on its majority.
    highWatermark.value = 11;
    checker.check(nodes);
    expect(reports).toEqual([expect.stringContaining('only 0 of 2 voters')]);
  });

  it('reports a leader with two voter changes uncommitted', () => {
    const voters = { voterIds: [0, 1, 2], uncommitted: 1, wasVoter: true };
    expect(check(cluster([10, 10, 10], voters, { value: 10 }))).toEqual([]);
    voters.uncommitted = 2;
    expect(check(cluster([10, 10, 10], voters, { value: 10 }))).toEqual([
      expect.stringContaining('OneVoterChangeAtATime: leader 0 (epoch 1) has 2 uncommitted voter changes'),
    ]);
  });

  it('reports a leader that was not a voter of its epoch voter set', () => {
    const voters = { voterIds: [1, 2], uncommitted: 0, wasVoter: false };
    expect(check(cluster([10, 10, 10], voters, { value: 10 }))).toEqual([
      expect.stringContaining('SingleLeader: leader 0 of epoch 1 was not a voter'),
    ]);
  });
});
