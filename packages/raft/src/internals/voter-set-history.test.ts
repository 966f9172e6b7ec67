import { Uuid } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { Endpoints } from '../endpoints.js';
import { NonOverlappingVoterSetError } from '../errors/non-overlapping-voter-set-error.js';
import { ReplicaKey } from '../replica-key.js';
import { type VoterNode, VoterSet } from '../voter-set.js';
import { VoterSetHistory } from './voter-set-history.js';

function voter(id: number, port = 9090 + id): VoterNode {
  return {
    voterKey: ReplicaKey.of(id, Uuid.fromLongs(BigInt(id), 1000n)),
    listeners: Endpoints.fromEntries([['CONTROLLER', { host: 'localhost', port }]]),
    supportedKRaftVersion: { minVersion: 0, maxVersion: 1 },
  };
}

function votersOf(...ids: number[]): VoterSet {
  return VoterSet.fromNodes(ids.map((id) => voter(id)));
}

const STATIC = VoterSet.fromIds([1, 2, 3]);

describe('VoterSetHistory', () => {
  it('answers the static voter set before any VotersRecord', () => {
    const history = new VoterSetHistory(STATIC);
    expect(history.lastValue()).toBe(STATIC);
    expect(history.valueAtOrBefore(-1)).toBe(STATIC);
    expect(history.valueAtOrBefore(100)).toBe(STATIC);
    expect(history.lastEntry()).toBeUndefined();
  });

  it('answers the VotersRecord at or before an offset, and the static set before the first one', () => {
    const history = new VoterSetHistory(STATIC);
    const first = votersOf(1, 2, 3);
    const second = votersOf(1, 2, 3, 4);
    history.addAt(10, first);
    history.addAt(20, second);
    expect(history.valueAtOrBefore(9)).toBe(STATIC);
    expect(history.valueAtOrBefore(10)).toBe(first);
    expect(history.valueAtOrBefore(19)).toBe(first);
    expect(history.valueAtOrBefore(20)).toBe(second);
    expect(history.lastValue()).toBe(second);
    expect(history.lastEntry()?.offset).toBe(20);
  });

  it('refuses a set from the log that changes two voters at once, and keeps the last one', () => {
    const history = new VoterSetHistory(STATIC);
    history.addAt(10, votersOf(1, 2, 3));
    const twoChanges = votersOf(1, 2, 3, 4, 5);
    expect(() => history.addAt(20, twoChanges)).toThrow(NonOverlappingVoterSetError);
    expect(() => history.addAt(20, votersOf(1, 4, 5))).toThrow(/no overlapping majority/);
    expect(history.lastEntry()?.offset).toBe(10);
    // One change at a time is fine, removal as well as addition.
    history.addAt(20, votersOf(1, 2, 3, 4));
    history.addAt(30, votersOf(1, 2, 4));
    expect(history.lastValue().voterIds()).toEqual([1, 2, 4]);
  });

  it('treats a voter with a new directory id as a new voter (swapping one is two changes)', () => {
    const history = new VoterSetHistory(STATIC);
    history.addAt(10, votersOf(1, 2, 3));
    const replacedDisk = VoterSet.fromNodes([
      { ...voter(1), voterKey: ReplicaKey.of(1, Uuid.fromLongs(77n, 77n)) },
      voter(2),
      voter(3),
    ]);
    expect(() => history.addAt(20, replacedDisk)).toThrow(NonOverlappingVoterSetError);
  });

  it('does not apply the overlap rule across the static set or the bootstrap checkpoint set', () => {
    const history = new VoterSetHistory(STATIC);
    // The first set of the log may differ from the static one in any way.
    history.addAt(-1, votersOf(7, 8, 9));
    // ... and so may the first set after the bootstrap checkpoint's (offset -1).
    history.addAt(0, votersOf(4, 5, 6));
    expect(history.lastValue().voterIds()).toEqual([4, 5, 6]);
    expect(() => history.addAt(1, votersOf(1, 2, 3))).toThrow(NonOverlappingVoterSetError);
  });

  it('adds no entry for a VotersRecord restating the last set of the log', () => {
    const history = new VoterSetHistory(STATIC);
    history.addAt(-1, votersOf(1, 2, 3));
    history.addAt(0, votersOf(1, 2, 3));
    history.addAt(5, votersOf(1, 2, 3));
    expect(history.lastEntry()?.offset).toBe(0);
    // A change of endpoints is a change.
    const moved = VoterSet.fromNodes([voter(1, 1234), voter(2), voter(3)]);
    history.addAt(9, moved);
    expect(history.lastEntry()?.offset).toBe(9);
    expect(history.valueAtOrBefore(8).listeners(1).firstAddress()?.port).toBe(9091);
  });

  it('truncateNewEntries restores the set in force before the cut, down to the static set', () => {
    const history = new VoterSetHistory(STATIC);
    const first = votersOf(1, 2, 3);
    history.addAt(10, first);
    history.addAt(20, votersOf(1, 2, 3, 4));
    history.truncateNewEntries(20);
    expect(history.lastValue()).toBe(first);
    history.truncateNewEntries(10);
    expect(history.lastValue()).toBe(STATIC);
  });

  it('truncateOldEntries keeps the set in force at the new log start', () => {
    const history = new VoterSetHistory(STATIC);
    const first = votersOf(1, 2, 3);
    const second = votersOf(1, 2, 3, 4);
    history.addAt(10, first);
    history.addAt(20, second);
    history.truncateOldEntries(15);
    expect(history.valueAtOrBefore(15)).toBe(first);
    history.truncateOldEntries(25);
    expect(history.valueAtOrBefore(25)).toBe(second);
    // The older set is gone: before it the static set answers again.
    expect(history.valueAtOrBefore(15)).toBe(STATIC);
  });
});

describe('VoterSet and VotersRecord', () => {
  it('round-trips through a VotersRecord', () => {
    const voters = votersOf(3, 1, 2);
    const restored = VoterSet.fromVotersRecord(voters.toVotersRecord());
    expect(restored.equals(voters)).toBe(true);
    expect(restored.voterIds()).toEqual([1, 2, 3]);
    expect(restored.voterNode(2)?.voterKey.directoryId?.equals(Uuid.fromLongs(2n, 1000n))).toBe(true);
  });

  it('equals compares keys, endpoints and kraft.version ranges', () => {
    expect(votersOf(1, 2).equals(votersOf(1, 2))).toBe(true);
    expect(votersOf(1, 2).equals(votersOf(1, 2, 3))).toBe(false);
    expect(votersOf(1, 2).equals(VoterSet.fromNodes([voter(1), voter(2, 1)]))).toBe(false);
    const narrower = VoterSet.fromNodes([
      voter(1),
      { ...voter(2), supportedKRaftVersion: { minVersion: 0, maxVersion: 0 } },
    ]);
    expect(votersOf(1, 2).equals(narrower)).toBe(false);
    expect(votersOf(1, 2).equals(VoterSet.fromIds([1, 2]))).toBe(false);
  });
});
