import { describe, expect, it } from 'vitest';
import { Endpoints } from '../endpoints.js';
import { BatchAccumulator } from '../internals/batch-accumulator.js';
import { ReplicaKey } from '../replica-key.js';
import { VoterSet } from '../voter-set.js';
import { LeaderState } from './leader-state.js';

// Written for mutants of the high-watermark rule that survived `pnpm mutation`
// (docs/reliability.md, "Mutation testing").

function leaderOfThree(epochStartOffset: number): LeaderState {
  return new LeaderState({
    epoch: 3,
    localKey: ReplicaKey.of(1),
    localEndpoints: Endpoints.EMPTY,
    epochStartOffset,
    voters: VoterSet.fromIds([1, 2, 3]),
    grantingVoters: [1, 2, 3],
    accumulator: new BatchAccumulator({ epoch: 3, baseOffset: epochStartOffset + 1, lingerMs: 0 }),
    fetchTimeoutMs: 2000,
    nowMs: 0,
  });
}

describe('high watermark moves, and says it moved, only past the epoch start and forward', () => {
  it('reports no move while the majority offset is at or below the epoch start offset', () => {
    const state = leaderOfThree(7);
    expect(state.updateLocalState(7, 0)).toBe(false);
    // A majority (leader and voter 2) is at the epoch start: nothing of this epoch is committed.
    expect(state.updateReplicaState(ReplicaKey.of(2), 0, 7, 7)).toBe(false);
    expect(state.highWatermark()).toBeUndefined();
    expect(state.updateLocalState(9, 0)).toBe(false);
    expect(state.updateReplicaState(ReplicaKey.of(2), 0, 8, 9)).toBe(true);
    expect(state.highWatermark()).toBe(8);
  });

  it('reports no move when a fetch leaves the majority offset where it was', () => {
    const state = leaderOfThree(0);
    state.updateLocalState(5, 0);
    expect(state.updateReplicaState(ReplicaKey.of(2), 0, 4, 5)).toBe(true);
    expect(state.updateReplicaState(ReplicaKey.of(3), 0, 2, 5)).toBe(false);
    expect(state.updateReplicaState(ReplicaKey.of(2), 0, 4, 5)).toBe(false);
    expect(state.highWatermark()).toBe(4);
  });
});
