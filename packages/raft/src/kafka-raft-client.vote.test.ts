import { Errors } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext } from '../test/kit/raft-client-test-context.js';
import { RaftApiKey } from './kafka-raft-client.js';

const VOTE = RaftApiKey.VOTE;

describe('Vote request handling', () => {
  it('unattached voter grants a standard vote to an up-to-date candidate and persists it first', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withUnknownLeader(1)
      .appendToLog(1, ['a'])
      .build();
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 2, candidateId: 1, lastEpoch: 1, lastOffset: 1 }),
      1,
    );
    await context.poll();
    context.assertSentVoteResponse({ epoch: 2, voteGranted: true });
    context.assertVotedCandidate(2, 1);
  });

  it('rejects a candidate whose last epoch is older, even with a longer log', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withUnknownLeader(2)
      .appendToLog(2, ['a'])
      .build();
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 3, candidateId: 1, lastEpoch: 1, lastOffset: 100 }),
      1,
    );
    await context.poll();
    context.assertSentVoteResponse({ epoch: 3, voteGranted: false });
    context.assertUnknownLeader(3);
  });

  it('rejects a candidate with the same last epoch but a shorter log', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withUnknownLeader(2)
      .appendToLog(2, ['a', 'b'])
      .build();
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 3, candidateId: 1, lastEpoch: 2, lastOffset: 1 }),
      1,
    );
    await context.poll();
    context.assertSentVoteResponse({ epoch: 3, voteGranted: false });
  });

  it('grants the same candidate again but rejects another once it voted in an epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withVotedCandidate(2, 1).build();
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 2, candidateId: 1, lastEpoch: 0, lastOffset: 0 }),
      1,
    );
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 2, candidateId: 2, lastEpoch: 0, lastOffset: 0 }),
      2,
    );
    await context.poll();
    const responses = context
      .sentResponses(VOTE)
      .map(
        (sent) =>
          (sent.data as { topics: { partitions: { voteGranted: boolean }[] }[] }).topics[0]?.partitions[0]
            ?.voteGranted,
      );
    expect(responses).toEqual([true, false]);
    context.assertVotedCandidate(2, 1);
  });

  it('answers a stale candidate epoch with FENCED_LEADER_EPOCH and does not change state', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(5, 1).build();
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 4, candidateId: 2, lastEpoch: 0, lastOffset: 0 }),
      2,
    );
    await context.poll();
    context.assertSentVoteResponse({
      errorCode: Errors.FENCED_LEADER_EPOCH.code,
      epoch: 5,
      leaderId: 1,
      voteGranted: false,
    });
    context.assertElectedLeader(5, 1);
  });

  it('rejects malformed offsets and epochs with INVALID_REQUEST', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(2).build();
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 3, candidateId: 1, lastEpoch: 3, lastOffset: 0 }),
      1,
    );
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 3, candidateId: 1, lastEpoch: 0, lastOffset: -1 }),
      1,
    );
    await context.poll();
    const codes = context
      .sentResponses(VOTE)
      .map(
        (sent) =>
          (sent.data as { topics: { partitions: { errorCode: number }[] }[] }).topics[0]?.partitions[0]
            ?.errorCode,
      );
    expect(codes).toEqual([Errors.INVALID_REQUEST.code, Errors.INVALID_REQUEST.code]);
    context.assertUnknownLeader(2);
  });

  it('answers a mismatched cluster id with INCONSISTENT_CLUSTER_ID', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withClusterId('cluster-a').build();
    const request = {
      ...context.voteRequest({ epoch: 1, candidateId: 1, lastEpoch: 0, lastOffset: 0 }),
      clusterId: 'cluster-b',
    };
    context.deliverRequest(VOTE, request, 1);
    await context.poll();
    const data = context.singleSentResponse<{ errorCode: number }>(VOTE);
    expect(data.errorCode).toBe(Errors.INCONSISTENT_CLUSTER_ID.code);
  });

  it('answers a vote addressed to another voter key with INVALID_VOTER_KEY', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const request = {
      ...context.voteRequest({ epoch: 1, candidateId: 1, lastEpoch: 0, lastOffset: 0 }),
      voterId: 2,
    };
    context.deliverRequest(VOTE, request, 1);
    await context.poll();
    context.assertSentVoteResponse({
      errorCode: Errors.INVALID_VOTER_KEY.code,
      epoch: 1,
      voteGranted: false,
    });
  });

  it('a follower rejects standard votes in its epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 2, candidateId: 2, lastEpoch: 0, lastOffset: 0 }),
      2,
    );
    await context.poll();
    context.assertSentVoteResponse({ epoch: 2, leaderId: 1, voteGranted: false });
  });

  it('a higher standard-vote epoch moves a follower to unattached and then grants', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 3, candidateId: 2, lastEpoch: 0, lastOffset: 0 }),
      2,
    );
    await context.poll();
    context.assertSentVoteResponse({ epoch: 3, voteGranted: true });
    context.assertVotedCandidate(3, 2);
  });

  it('the leader rejects votes in its epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch, candidateId: 1, lastEpoch: epoch - 1, lastOffset: 5 }),
      1,
    );
    await context.poll();
    context.assertSentVoteResponse({ epoch, leaderId: 0, voteGranted: false });
    expect(context.client.quorumState().isLeader()).toBe(true);
  });
});

describe('pre-vote request handling (KIP-996)', () => {
  it('grants a pre-vote without persisting anything or bumping the epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(2).build();
    const writes = context.store.writes.length;
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 5, candidateId: 1, lastEpoch: 0, lastOffset: 0, preVote: true }),
      1,
    );
    await context.poll();
    context.assertSentVoteResponse({ epoch: 2, voteGranted: true });
    expect(context.store.writes.length).toBe(writes);
    context.assertUnknownLeader(2);
  });

  it('grants pre-votes to several candidates in one epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(2).build();
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 2, candidateId: 1, lastEpoch: 0, lastOffset: 0, preVote: true }),
      1,
    );
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 2, candidateId: 2, lastEpoch: 0, lastOffset: 0, preVote: true }),
      2,
    );
    await context.poll();
    const granted = context
      .sentResponses(VOTE)
      .map(
        (sent) =>
          (sent.data as { topics: { partitions: { voteGranted: boolean }[] }[] }).topics[0]?.partitions[0]
            ?.voteGranted,
      );
    expect(granted).toEqual([true, true]);
  });

  it('rejects a pre-vote from a candidate with a stale log', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withUnknownLeader(2)
      .appendToLog(2, ['a'])
      .build();
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 2, candidateId: 1, lastEpoch: 1, lastOffset: 3, preVote: true }),
      1,
    );
    await context.poll();
    context.assertSentVoteResponse({ epoch: 2, voteGranted: false });
  });

  it('a follower that has not fetched from its leader grants a pre-vote; once it has, it rejects', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 2, candidateId: 2, lastEpoch: 0, lastOffset: 0, preVote: true }),
      2,
    );
    await context.poll();
    context.assertSentVoteResponse({ epoch: 2, leaderId: 1, voteGranted: true });
    const fetch = context.assertSentFetchRequest({ epoch: 2, fetchOffset: 0, lastFetchedEpoch: 0 });
    context.deliverResponse(fetch, context.fetchResponse({ epoch: 2, leaderId: 1, highWatermark: 0 }));
    await context.poll();
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 2, candidateId: 2, lastEpoch: 0, lastOffset: 0, preVote: true }),
      2,
    );
    await context.poll();
    context.assertSentVoteResponse({ epoch: 2, leaderId: 1, voteGranted: false });
  });

  it('a candidate grants pre-votes to up-to-date logs but never a second standard vote', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withVotedCandidate(3, 0).build();
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 3, candidateId: 1, lastEpoch: 0, lastOffset: 0, preVote: true }),
      1,
    );
    await context.poll();
    context.assertSentVoteResponse({ epoch: 3, voteGranted: true });
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 3, candidateId: 1, lastEpoch: 0, lastOffset: 0 }),
      1,
    );
    await context.poll();
    context.assertSentVoteResponse({ epoch: 3, voteGranted: false });
  });

  it('the leader rejects pre-votes, even from a higher epoch, and keeps leading', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    context.deliverRequest(
      VOTE,
      context.voteRequest({
        epoch: epoch + 1,
        candidateId: 1,
        lastEpoch: epoch,
        lastOffset: 10,
        preVote: true,
      }),
      1,
    );
    await context.poll();
    context.assertSentVoteResponse({ epoch, leaderId: 0, voteGranted: false });
    expect(context.client.quorumState().isLeader()).toBe(true);
    expect(context.client.leaderAndEpoch().epoch).toBe(epoch);
  });

  it('a prospective that learns the leader from a pre-vote answer follows it in the same epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(4).build();
    context.sleep(RaftClientTestContext.ELECTION_TIMEOUT_MS);
    await context.poll();
    const [first] = context.sentRequests(VOTE);
    context.deliverResponse(first!, context.voteResponse({ granted: false, epoch: 4, leaderId: 2 }));
    await context.poll();
    context.assertElectedLeader(4, 2);
    expect(context.client.quorumState().isFollower()).toBe(true);
  });

  it('a prospective counts a pre-vote answered at the voter’s older epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(4).build();
    context.sleep(RaftClientTestContext.ELECTION_TIMEOUT_MS);
    await context.poll();
    const [first] = context.sentRequests(VOTE);
    context.deliverResponse(first!, context.voteResponse({ granted: true, epoch: 3 }));
    await context.poll();
    expect(context.client.quorumState().isCandidate()).toBe(true);
    expect(context.client.leaderAndEpoch().epoch).toBe(5);
  });
});
