import { IllegalStateError } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { Endpoints } from '../endpoints.js';
import { BatchAccumulator } from '../internals/batch-accumulator.js';
import { ReplicaKey } from '../replica-key.js';
import { VoterSet } from '../voter-set.js';
import { LeaderState, OBSERVER_SESSION_TIMEOUT_MS } from './leader-state.js';

const FETCH_TIMEOUT_MS = 2000;

function leader(voters: number[], epochStartOffset = 10, localId = 1) {
  return new LeaderState({
    epoch: 5,
    localKey: ReplicaKey.of(localId),
    localEndpoints: Endpoints.EMPTY,
    epochStartOffset,
    voters: VoterSet.fromIds(voters),
    grantingVoters: voters,
    accumulator: new BatchAccumulator({ epoch: 5, baseOffset: epochStartOffset + 1, lingerMs: 0 }),
    fetchTimeoutMs: FETCH_TIMEOUT_MS,
    nowMs: 0,
  });
}

describe('LeaderState high watermark', () => {
  it('takes the median of voter end offsets, leader included', () => {
    const state = leader([1, 2, 3, 4, 5]);
    state.updateLocalState(20, 0);
    state.updateReplicaState(ReplicaKey.of(2), 0, 15, 20);
    expect(state.highWatermark()).toBeUndefined();
    state.updateReplicaState(ReplicaKey.of(3), 0, 12, 20);
    expect(state.highWatermark()).toBe(12);
    state.updateReplicaState(ReplicaKey.of(4), 0, 18, 20);
    expect(state.highWatermark()).toBe(15);
  });

  it('exposes nothing at or below the epoch start offset', () => {
    const state = leader([1, 2, 3]);
    state.updateLocalState(10, 0);
    state.updateReplicaState(ReplicaKey.of(2), 0, 10, 10);
    expect(state.highWatermark()).toBeUndefined();
    state.updateLocalState(11, 0);
    state.updateReplicaState(ReplicaKey.of(2), 0, 11, 11);
    expect(state.highWatermark()).toBe(11);
  });

  it('never goes backwards', () => {
    const state = leader([1, 2, 3]);
    state.updateLocalState(20, 0);
    state.updateReplicaState(ReplicaKey.of(2), 0, 20, 20);
    expect(state.highWatermark()).toBe(20);
    expect(state.updateReplicaState(ReplicaKey.of(2), 0, 12, 20)).toBe(false);
    expect(state.highWatermark()).toBe(20);
  });

  it('ignores observers for the high watermark', () => {
    const state = leader([1, 2, 3]);
    state.updateLocalState(20, 0);
    expect(state.updateReplicaState(ReplicaKey.of(9), 0, 20, 20)).toBe(false);
    expect(state.highWatermark()).toBeUndefined();
    expect(state.describeObservers(0).map((observer) => observer.replicaKey.id)).toEqual([9]);
  });

  it('forgets observers after the session timeout', () => {
    const state = leader([1, 2, 3]);
    state.updateReplicaState(ReplicaKey.of(9), 0, 0, 20);
    expect(state.describeObservers(OBSERVER_SESSION_TIMEOUT_MS - 1)).toHaveLength(1);
    expect(state.describeObservers(OBSERVER_SESSION_TIMEOUT_MS)).toHaveLength(0);
  });

  it('refuses the leader fetching from itself and a shrinking local flush', () => {
    const state = leader([1, 2, 3]);
    expect(() => state.updateReplicaState(ReplicaKey.of(1), 0, 0, 0)).toThrow(IllegalStateError);
    state.updateLocalState(20, 0);
    expect(() => state.updateLocalState(19, 0)).toThrow(IllegalStateError);
  });

  it('orders successors by fetch offset', () => {
    const state = leader([1, 2, 3, 4]);
    state.updateReplicaState(ReplicaKey.of(2), 0, 5, 20);
    state.updateReplicaState(ReplicaKey.of(4), 0, 9, 20);
    expect(state.nonLeaderVotersByDescendingFetchOffset().map((key) => key.id)).toEqual([4, 2, 3]);
  });
});

describe('LeaderState check-quorum', () => {
  it('expires after 1.5 fetch timeouts without a majority fetching', () => {
    const state = leader([1, 2, 3, 4, 5]);
    state.updateCheckQuorumForFollowingVoter(ReplicaKey.of(2), 1000);
    expect(state.timeUntilCheckQuorumExpires(2999)).toBe(1);
    expect(state.timeUntilCheckQuorumExpires(3000)).toBe(0);
  });

  it('resets once a majority (with the leader) fetched', () => {
    const state = leader([1, 2, 3, 4, 5]);
    state.updateCheckQuorumForFollowingVoter(ReplicaKey.of(2), 1000);
    state.updateCheckQuorumForFollowingVoter(ReplicaKey.of(3), 2000);
    expect(state.timeUntilCheckQuorumExpires(2000)).toBe(3000);
  });

  it('never expires for a lone voter', () => {
    expect(leader([1]).timeUntilCheckQuorumExpires(1e12)).toBe(Number.POSITIVE_INFINITY);
  });

  it('tracks which voters have not fetched in this epoch or within half a fetch timeout', () => {
    const state = leader([1, 2, 3]);
    expect(state.nonAcknowledgingVoters(0)).toEqual([2, 3]);
    state.updateReplicaState(ReplicaKey.of(3), 0, 0, 0);
    expect(state.nonAcknowledgingVoters(FETCH_TIMEOUT_MS / 2 - 1)).toEqual([2]);
    expect(state.nonAcknowledgingVoters(FETCH_TIMEOUT_MS / 2)).toEqual([2, 3]);
  });
});

describe('LeaderState voter set changes (KIP-853)', () => {
  it('counts the high watermark over the new set at once', () => {
    const state = leader([1, 2, 3]);
    state.updateLocalState(20, 0);
    // Observer 4 is caught up; voters 2 and 3 are not.
    state.updateReplicaState(ReplicaKey.of(4), 0, 20, 20);
    expect(state.highWatermark()).toBeUndefined();
    // {1, 2, 3, 4} needs three of four: 1 and 4 are not enough.
    expect(state.updateVoterSet(VoterSet.fromIds([1, 2, 3, 4]), 0)).toBe(false);
    state.updateReplicaState(ReplicaKey.of(2), 0, 15, 20);
    expect(state.highWatermark()).toBe(15);
    // The observer's progress came along: it is a voter now, not an observer.
    expect(state.voterEndOffset(4)).toBe(20);
    expect(state.numberOfObservers()).toBe(0);
  });

  it('keeps a removed voter as an observer, and no longer counts it', () => {
    const state = leader([1, 2, 3]);
    state.updateLocalState(20, 0);
    state.updateReplicaState(ReplicaKey.of(3), 0, 20, 20);
    expect(state.highWatermark()).toBe(20);
    state.updateVoterSet(VoterSet.fromIds([1, 2]), 0);
    expect(state.voters().voterIds()).toEqual([1, 2]);
    expect(state.describeObservers(0).map((replica) => replica.replicaKey.id)).toEqual([3]);
    state.updateLocalState(30, 0);
    state.updateReplicaState(ReplicaKey.of(3), 0, 30, 30);
    // Only voters 1 and 2 count: 3 reaching 30 does not commit it.
    expect(state.highWatermark()).toBe(20);
    state.updateReplicaState(ReplicaKey.of(2), 0, 30, 30);
    expect(state.highWatermark()).toBe(30);
  });

  it('gives a lone voter that gains voters a whole check-quorum timeout from the change', () => {
    const state = leader([1]);
    const changedMs = FETCH_TIMEOUT_MS * 10;
    expect(state.timeUntilCheckQuorumExpires(changedMs)).toBe(Number.POSITIVE_INFINITY);
    state.updateVoterSet(VoterSet.fromIds([1, 2]), changedMs);
    expect(state.timeUntilCheckQuorumExpires(changedMs)).toBe(FETCH_TIMEOUT_MS * 1.5);
  });

  it('changes nothing for an equal set', () => {
    const state = leader([1, 2, 3]);
    state.updateLocalState(20, 0);
    state.updateReplicaState(ReplicaKey.of(2), 0, 18, 20);
    expect(state.updateVoterSet(VoterSet.fromIds([1, 2, 3]), 0)).toBe(false);
    expect(state.voterEndOffset(2)).toBe(18);
    expect(state.highWatermark()).toBe(18);
  });
});
