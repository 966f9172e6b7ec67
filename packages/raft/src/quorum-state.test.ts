import { IllegalStateError, Uuid } from '@kraft/protocol';
import { describe, expect, it, vi } from 'vitest';
import { MockQuorumStateStore } from '../test/kit/mock-quorum-state-store.js';
import { MockableRandom } from '../test/kit/raft-client-test-context.js';
import { ElectionState } from './election-state.js';
import { Endpoints } from './endpoints.js';
import { BatchAccumulator } from './internals/batch-accumulator.js';
import type { RawSnapshotWriter } from './ports/raft-log.js';
import { QuorumState } from './quorum-state.js';
import { ReplicaKey } from './replica-key.js';
import { VoterSet } from './voter-set.js';

const ELECTION_TIMEOUT_MS = 1000;
const FETCH_TIMEOUT_MS = 2000;

function newQuorum(
  options: {
    localId?: number | undefined;
    voters?: number[];
    stored?: ElectionState;
    logEpoch?: number;
  } = {},
) {
  const store = new MockQuorumStateStore(options.stored?.toQuorumStateData(0));
  const voters = VoterSet.fromIds(options.voters ?? [1, 2, 3]);
  const random = new MockableRandom();
  const quorum = new QuorumState({
    localId: 'localId' in options ? options.localId : 1,
    localDirectoryId: Uuid.ZERO,
    localEndpoints: Endpoints.EMPTY,
    voters: () => voters,
    electionTimeoutMs: ELECTION_TIMEOUT_MS,
    fetchTimeoutMs: FETCH_TIMEOUT_MS,
    store,
    // What the driver does with each write the outbox hands out; durable at once here.
    outbox: { persistElectionState: (data, dataVersion) => void store.writeElectionState(data, dataVersion) },
    random,
    kraftVersion: () => 0,
  });
  quorum.initialize({ offset: 0, epoch: options.logEpoch ?? 0 }, 0);
  return { quorum, store, random };
}

function accumulator(epoch: number) {
  return new BatchAccumulator({ epoch, baseOffset: 1, lingerMs: 0 });
}

function toLeader(quorum: QuorumState, voters: number[]): void {
  quorum.transitionToProspective(0);
  for (const id of voters) quorum.prospectiveStateOrThrow().epochElection.recordVote(id, true);
  quorum.transitionToCandidate(0);
  for (const id of voters) quorum.candidateStateOrThrow().epochElection.recordVote(id, true);
  quorum.transitionToLeader(0, accumulator(quorum.epoch()), 0);
}

describe('QuorumState initialization', () => {
  it('starts unattached at epoch 0 on a fresh node', () => {
    const { quorum } = newQuorum();
    expect(quorum.isUnattached()).toBe(true);
    expect(quorum.epoch()).toBe(0);
  });

  it('restores a stored leader as a follower', () => {
    const { quorum } = newQuorum({ stored: ElectionState.withElectedLeader(4, 2, undefined, [1, 2, 3]) });
    expect(quorum.isFollower()).toBe(true);
    expect(quorum.leaderAndEpoch()).toEqual({ leaderId: 2, epoch: 4 });
  });

  it('restores as resigned when it was the leader', () => {
    const { quorum } = newQuorum({ stored: ElectionState.withElectedLeader(4, 1, undefined, [1, 2, 3]) });
    expect(quorum.isResigned()).toBe(true);
  });

  it('restores as candidate when it voted for itself', () => {
    const { quorum } = newQuorum({
      stored: ElectionState.withVotedCandidate(4, ReplicaKey.of(1), [1, 2, 3]),
    });
    expect(quorum.isCandidate()).toBe(true);
  });

  it('restores a vote for another node as unattached-voted', () => {
    const { quorum } = newQuorum({
      stored: ElectionState.withVotedCandidate(4, ReplicaKey.of(2), [1, 2, 3]),
    });
    expect(quorum.isUnattached()).toBe(true);
    expect(quorum.unattachedStateOrThrow().votedKey?.id).toBe(2);
  });

  it('starts unattached at the log epoch when the stored epoch is behind it, and persists that', () => {
    const { quorum, store } = newQuorum({
      stored: ElectionState.withUnknownLeader(2, [1, 2, 3]),
      logEpoch: 5,
    });
    expect(quorum.isUnattached()).toBe(true);
    expect(quorum.epoch()).toBe(5);
    expect(store.readElectionState()?.leaderEpoch).toBe(5);
  });

  it('an observer never times out as unattached', () => {
    const { quorum } = newQuorum({ localId: 9 });
    expect(quorum.isObserver()).toBe(true);
    expect(quorum.unattachedStateOrThrow().hasElectionTimeoutExpired(Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  it('the election timeout is drawn from [T, 2T)', () => {
    const { quorum, random } = newQuorum();
    random.mockNextInt = (bound) => bound - 1;
    expect(quorum.randomElectionTimeoutMs()).toBe(2 * ELECTION_TIMEOUT_MS - 1);
    random.mockNextInt = () => 0;
    expect(quorum.randomElectionTimeoutMs()).toBe(ELECTION_TIMEOUT_MS);
  });
});

describe('QuorumState transitions (the table at the head of quorum-state.ts)', () => {
  it('any state → Unattached(higher epoch), persisted before it takes effect', () => {
    const { quorum, store } = newQuorum({
      stored: ElectionState.withElectedLeader(3, 2, undefined, [1, 2, 3]),
    });
    quorum.transitionToUnattached(5, undefined, 0);
    expect(quorum.isUnattached()).toBe(true);
    expect(store.readElectionState()).toMatchObject({ leaderEpoch: 5, leaderId: -1, votedId: -1 });
  });

  it('Unattached → Unattached in the same or a lower epoch is illegal', () => {
    const { quorum } = newQuorum({ stored: ElectionState.withUnknownLeader(3, [1, 2, 3]) });
    expect(() => quorum.transitionToUnattached(3, undefined, 0)).toThrow(IllegalStateError);
    expect(() => quorum.transitionToUnattached(2, undefined, 0)).toThrow(IllegalStateError);
  });

  it('Unattached → Unattached+voted persists the vote; a second vote in the epoch is illegal', () => {
    const { quorum, store } = newQuorum({ stored: ElectionState.withUnknownLeader(3, [1, 2, 3]) });
    quorum.transitionToUnattachedVotedState(3, ReplicaKey.of(2), 0);
    expect(store.readElectionState()).toMatchObject({ leaderEpoch: 3, votedId: 2 });
    expect(() => quorum.transitionToUnattachedVotedState(3, ReplicaKey.of(3), 0)).toThrow(IllegalStateError);
  });

  it('voting in another epoch than the current one is illegal', () => {
    const { quorum } = newQuorum({ stored: ElectionState.withUnknownLeader(3, [1, 2, 3]) });
    expect(() => quorum.transitionToUnattachedVotedState(4, ReplicaKey.of(2), 0)).toThrow(IllegalStateError);
  });

  it('Unattached → Prospective keeps the epoch and persists nothing', () => {
    const { quorum, store } = newQuorum({ stored: ElectionState.withUnknownLeader(3, [1, 2, 3]) });
    const writes = store.writes.length;
    quorum.transitionToProspective(0);
    expect(quorum.isProspective()).toBe(true);
    expect(quorum.epoch()).toBe(3);
    expect(store.writes.length).toBe(writes);
  });

  it('Prospective → Candidate bumps the epoch and persists the self vote', () => {
    const { quorum, store } = newQuorum({ stored: ElectionState.withUnknownLeader(3, [1, 2, 3]) });
    quorum.transitionToProspective(0);
    quorum.transitionToCandidate(0);
    expect(quorum.epoch()).toBe(4);
    expect(store.readElectionState()).toMatchObject({ leaderEpoch: 4, votedId: 1 });
  });

  it('only Prospective may become Candidate', () => {
    const { quorum } = newQuorum({ stored: ElectionState.withUnknownLeader(3, [1, 2, 3]) });
    expect(() => quorum.transitionToCandidate(0)).toThrow(/only Prospective/);
  });

  it('only a Candidate that won may become Leader', () => {
    const { quorum } = newQuorum({ stored: ElectionState.withUnknownLeader(3, [1, 2, 3]) });
    expect(() => quorum.transitionToLeader(0, accumulator(3), 0)).toThrow(/only Candidate/);
    quorum.transitionToProspective(0);
    quorum.transitionToCandidate(0);
    expect(() => quorum.transitionToLeader(0, accumulator(4), 0)).toThrow(/not won/);
    quorum.candidateStateOrThrow().epochElection.recordVote(2, true);
    quorum.transitionToLeader(0, accumulator(4), 0);
    expect(quorum.isLeader()).toBe(true);
  });

  it('Candidate → Prospective keeps the epoch and the vote', () => {
    const { quorum } = newQuorum({
      stored: ElectionState.withVotedCandidate(4, ReplicaKey.of(1), [1, 2, 3]),
    });
    quorum.transitionToProspective(0);
    expect(quorum.epoch()).toBe(4);
    expect(quorum.prospectiveStateOrThrow().votedKey?.id).toBe(1);
  });

  it('Follower → Prospective (fetch timeout) remembers the leader for the fallback', () => {
    const { quorum } = newQuorum({ stored: ElectionState.withElectedLeader(4, 2, undefined, [1, 2, 3]) });
    quorum.transitionToProspective(0);
    expect(quorum.prospectiveStateOrThrow().leaderId).toBe(2);
  });

  it('Prospective → Unattached in the same epoch keeps the vote', () => {
    const { quorum } = newQuorum({
      stored: ElectionState.withVotedCandidate(4, ReplicaKey.of(2), [1, 2, 3]),
    });
    quorum.transitionToProspective(0);
    quorum.transitionToUnattached(4, undefined, 0);
    expect(quorum.unattachedStateOrThrow().votedKey?.id).toBe(2);
  });

  it('Prospective → Follower in the same epoch', () => {
    const { quorum } = newQuorum({ stored: ElectionState.withUnknownLeader(4, [1, 2, 3]) });
    quorum.transitionToProspective(0);
    quorum.transitionToFollower(4, 3, Endpoints.EMPTY, 0);
    expect(quorum.leaderAndEpoch()).toEqual({ leaderId: 3, epoch: 4 });
  });

  it('Leader → Resigned keeps the epoch and the stored leader', () => {
    const { quorum, store } = newQuorum({ stored: ElectionState.withUnknownLeader(4, [1, 2, 3]) });
    toLeader(quorum, [2]);
    quorum.transitionToResigned([ReplicaKey.of(2)], 0);
    expect(quorum.isResigned()).toBe(true);
    expect(store.readElectionState()).toMatchObject({ leaderEpoch: 5, leaderId: 1 });
  });

  it('Leader and Resigned never follow another node in their own epoch', () => {
    const { quorum } = newQuorum({ stored: ElectionState.withUnknownLeader(4, [1, 2, 3]) });
    toLeader(quorum, [2]);
    expect(() => quorum.transitionToFollower(5, 2, Endpoints.EMPTY, 0)).toThrow(/two leaders/);
    quorum.transitionToResigned([], 0);
    expect(() => quorum.transitionToFollower(5, 2, Endpoints.EMPTY, 0)).toThrow(/two leaders/);
    quorum.transitionToFollower(6, 2, Endpoints.EMPTY, 0);
    expect(quorum.isFollower()).toBe(true);
  });

  it('only a Leader may resign', () => {
    const { quorum } = newQuorum();
    expect(() => quorum.transitionToResigned([], 0)).toThrow(IllegalStateError);
  });

  it('Follower → Follower in the same epoch only with new endpoints', () => {
    const { quorum } = newQuorum({ stored: ElectionState.withElectedLeader(4, 2, undefined, [1, 2, 3]) });
    expect(() => quorum.transitionToFollower(4, 2, Endpoints.EMPTY, 0)).toThrow(IllegalStateError);
    const endpoints = Endpoints.fromEntries([['CONTROLLER', { host: 'h', port: 1 }]]);
    quorum.transitionToFollower(4, 2, endpoints, 0);
    expect(quorum.state().leaderEndpoints().equals(endpoints)).toBe(true);
  });

  it('a follower never follows a different leader in the same epoch', () => {
    const { quorum } = newQuorum({ stored: ElectionState.withElectedLeader(4, 2, undefined, [1, 2, 3]) });
    expect(() => quorum.transitionToFollower(4, 3, Endpoints.EMPTY, 0)).toThrow(/already known/);
  });

  it('following an older epoch or ourselves is illegal', () => {
    const { quorum } = newQuorum({ stored: ElectionState.withElectedLeader(4, 2, undefined, [1, 2, 3]) });
    expect(() => quorum.transitionToFollower(3, 2, Endpoints.EMPTY, 0)).toThrow(IllegalStateError);
    expect(() => quorum.transitionToFollower(5, 1, Endpoints.EMPTY, 0)).toThrow(IllegalStateError);
  });

  it('an observer never campaigns', () => {
    const { quorum } = newQuorum({ localId: 9 });
    expect(() => quorum.transitionToProspective(0)).toThrow(/observer/);
  });

  it('Resigned → Unattached(epoch + 1)', () => {
    const { quorum } = newQuorum({ stored: ElectionState.withElectedLeader(4, 1, undefined, [1, 2, 3]) });
    quorum.transitionToUnattached(5, undefined, 0);
    expect(quorum.isUnattached()).toBe(true);
    expect(quorum.epoch()).toBe(5);
  });

  it('Leader and Resigned cannot go to Prospective', () => {
    const { quorum } = newQuorum({ stored: ElectionState.withElectedLeader(4, 1, undefined, [1, 2, 3]) });
    expect(() => quorum.transitionToProspective(0)).toThrow(/Prospective/);
  });

  it('a state releases what it owns when a transition ends it, and a download follows the same leader', () => {
    const { quorum } = newQuorum({ stored: ElectionState.withElectedLeader(4, 2, undefined, [1, 2, 3]) });
    const writer = { close: vi.fn() } as unknown as RawSnapshotWriter;
    quorum.followerStateOrThrow().startSnapshotDownload(writer);
    // Same leader, new endpoints: the download goes on in the next follower state.
    quorum.transitionToFollower(
      4,
      2,
      Endpoints.fromEntries([['CONTROLLER', { host: 'localhost', port: 9093 }]]),
      0,
    );
    expect(quorum.followerStateOrThrow().snapshotDownload()).toBe(writer);
    expect(writer.close).not.toHaveBeenCalled();
    // A higher epoch without a leader ends the follower state: its download is abandoned.
    quorum.transitionToUnattached(5, undefined, 0);
    expect(writer.close).toHaveBeenCalledTimes(1);
  });

  it('close() releases what the current state owns', () => {
    const { quorum } = newQuorum({ stored: ElectionState.withElectedLeader(4, 2, undefined, [1, 2, 3]) });
    const writer = { close: vi.fn() } as unknown as RawSnapshotWriter;
    quorum.followerStateOrThrow().startSnapshotDownload(writer);
    quorum.close();
    expect(writer.close).toHaveBeenCalledTimes(1);
    expect(quorum.followerStateOrThrow().snapshotDownload()).toBeUndefined();
  });
});
