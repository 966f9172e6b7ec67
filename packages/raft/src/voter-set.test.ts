import { Uuid } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { ElectionState } from './election-state.js';
import { InvalidConfigurationError } from './errors/invalid-configuration-error.js';
import { ReplicaKey } from './replica-key.js';
import { VoterSet } from './voter-set.js';

describe('VoterSet', () => {
  it('parses controller.quorum.voters with ids sorted and endpoints kept', () => {
    const voters = VoterSet.fromQuorumVotersConfig('3@c:9095, 1@a:9093,2@[::1]:9094');
    expect(voters.voterIds()).toEqual([1, 2, 3]);
    expect(voters.listeners(2).address('CONTROLLER')).toEqual({ host: '::1', port: 9094 });
    expect(voters.majoritySize()).toBe(2);
  });

  it('parses the id@host:port:directoryId form', () => {
    const directory = Uuid.fromLongs(5n, 7n);
    const voters = VoterSet.fromQuorumVotersConfig(`1@h:1:${directory.toString()}`);
    expect(voters.voterNode(1)?.voterKey.directoryId?.equals(directory)).toBe(true);
  });

  it.each(['x@h:1', '1@h', '1@:9', '1@h:99999', '1h:1', '1@h:1:not-a-uuid', '1@h:1,1@h:2'])(
    'rejects %s',
    (config) => {
      expect(() => VoterSet.fromQuorumVotersConfig(config)).toThrow(InvalidConfigurationError);
    },
  );

  it('matches voter keys with unknown directory ids', () => {
    const directory = Uuid.fromLongs(1n, 2n);
    const voters = VoterSet.fromNodes([
      {
        voterKey: ReplicaKey.of(1, directory),
        listeners: VoterSet.fromIds([1]).listeners(1),
        supportedKRaftVersion: { minVersion: 0, maxVersion: 1 },
      },
    ]);
    expect(voters.isVoter(ReplicaKey.of(1))).toBe(true);
    expect(voters.isVoter(ReplicaKey.of(1, directory))).toBe(true);
    expect(voters.isVoter(ReplicaKey.of(1, Uuid.fromLongs(9n, 9n)))).toBe(false);
    expect(voters.isOnlyVoter(ReplicaKey.of(1))).toBe(true);
  });

  it('adds and removes voters immutably, one change keeping overlapping majorities', () => {
    const voters = VoterSet.fromIds([1, 2, 3]);
    const added = voters.addVoter({
      voterKey: ReplicaKey.of(4),
      listeners: voters.listeners(1),
      supportedKRaftVersion: { minVersion: 0, maxVersion: 1 },
    });
    expect(added?.voterIds()).toEqual([1, 2, 3, 4]);
    expect(voters.voterIds()).toEqual([1, 2, 3]);
    expect(voters.hasOverlappingMajority(added!)).toBe(true);
    expect(voters.removeVoter(ReplicaKey.of(9))).toBeUndefined();
    const removed = added!.removeVoter(ReplicaKey.of(1))!.removeVoter(ReplicaKey.of(2))!;
    expect(voters.hasOverlappingMajority(removed)).toBe(false);
  });
});

describe('ElectionState', () => {
  it('round-trips through QuorumStateData v1 with the voted directory id', () => {
    const directory = Uuid.fromLongs(3n, 4n);
    const state = ElectionState.withVotedCandidate(7, ReplicaKey.of(2, directory), [1, 2, 3]);
    const data = state.toQuorumStateData(1);
    expect(data).toMatchObject({ leaderId: -1, leaderEpoch: 7, votedId: 2, currentVoters: null });
    const restored = ElectionState.fromQuorumStateData(data);
    expect(restored.equals(state)).toBe(true);
  });

  it('writes current voters only in data version 0', () => {
    const state = ElectionState.withElectedLeader(2, 1, undefined, [1, 2]);
    expect(state.toQuorumStateData(0).currentVoters).toEqual([1, 2]);
    expect(state.toQuorumStateData(0).votedDirectoryId.equals(Uuid.ZERO)).toBe(true);
  });

  it('knows its leader and vote', () => {
    const state = ElectionState.withElectedLeader(2, 1, ReplicaKey.of(1), [1, 2]);
    expect(state.isLeader(1)).toBe(true);
    expect(state.isLeader(undefined)).toBe(false);
    expect(state.isVotedCandidate(ReplicaKey.of(1))).toBe(true);
  });
});

describe('ReplicaKey', () => {
  it('treats the ZERO directory id as unknown', () => {
    expect(ReplicaKey.of(1, Uuid.ZERO).directoryId).toBeUndefined();
    expect(ReplicaKey.of(1).directoryIdOrZero().equals(Uuid.ZERO)).toBe(true);
  });
});
