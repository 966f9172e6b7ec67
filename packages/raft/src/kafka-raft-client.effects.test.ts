/**
 * The effects path's ordering rule (RaftOutbox): a message that depends on an election leaves only
 * once that election is durable. Each test holds the quorum-state write, checks that the dependent
 * message has not left, then completes the write and checks that it leaves.
 */
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext } from '../test/kit/raft-client-test-context.js';
import { RaftApiKey } from './kafka-raft-client.js';

const VOTE = RaftApiKey.VOTE;

describe('election state durable before the messages that depend on it', () => {
  it('a granted vote leaves only once the vote is durable', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withUnknownLeader(1)
      .appendToLog(1, ['a'])
      .build();
    context.holdElectionWrites();
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 2, candidateId: 1, lastEpoch: 1, lastOffset: 1 }),
      1,
    );
    await context.poll();
    // The vote is cast in memory (a second candidate of epoch 2 is refused) but not yet stored.
    expect(context.client.quorumState().state().election().votedKey?.id).toBe(1);
    expect(context.sentResponses(VOTE)).toEqual([]);
    expect(context.storedElection()?.epoch).toBe(1);
    context.completeElectionWrite();
    context.assertVotedCandidate(2, 1);
    context.assertSentVoteResponse({ epoch: 2, voteGranted: true });
  });

  it("a candidacy's vote requests leave only once its vote for itself is durable", async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(1).build();
    context.sleep(RaftClientTestContext.ELECTION_TIMEOUT_MS * 2);
    await context.poll();
    const preVotes = context.sentRequests(VOTE);
    expect(preVotes).toHaveLength(2);
    context.holdElectionWrites();
    for (const request of preVotes)
      context.deliverResponse(request, context.voteResponse({ granted: true, epoch: 1 }));
    await context.poll();
    expect(context.client.quorumState().isCandidate()).toBe(true);
    expect(context.sentRequests(VOTE)).toEqual([]);
    context.completeElectionWrite();
    context.assertVotedCandidate(2, 0);
    context.assertSentVoteRequests({ epoch: 2, lastEpoch: 0, lastOffset: 0, preVote: false, count: 2 });
  });

  it("a new leader's BeginQuorumEpoch leaves only once its leadership is durable", async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(1).build();
    context.sleep(RaftClientTestContext.ELECTION_TIMEOUT_MS * 2);
    await context.poll();
    for (const request of context.sentRequests(VOTE))
      context.deliverResponse(request, context.voteResponse({ granted: true, epoch: 1 }));
    await context.poll();
    const votes = context.sentRequests(VOTE);
    expect(votes).toHaveLength(2);
    context.holdElectionWrites();
    for (const request of votes)
      context.deliverResponse(request, context.voteResponse({ granted: true, epoch: 2 }));
    await context.poll();
    expect(context.client.quorumState().isLeader()).toBe(true);
    expect(context.sentRequests(RaftApiKey.BEGIN_QUORUM_EPOCH)).toEqual([]);
    context.completeElectionWrite();
    context.assertElectedLeader(2, 0);
    context.assertSentBeginQuorumEpochRequests(2, [1, 2]);
  });

  it('a message recorded before an election write is not held behind it', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withUnknownLeader(1)
      .appendToLog(1, ['a'])
      .build();
    context.holdElectionWrites();
    // One poll: a DescribeQuorum answered from memory, then a vote that must be stored.
    context.deliverRequest(RaftApiKey.DESCRIBE_QUORUM, context.describeQuorumRequest(), -1);
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 2, candidateId: 1, lastEpoch: 1, lastOffset: 1 }),
      1,
    );
    await context.poll();
    expect(context.sentResponses(RaftApiKey.DESCRIBE_QUORUM)).toHaveLength(1);
    expect(context.sentResponses(VOTE)).toEqual([]);
    context.completeElectionWrite();
    context.assertSentVoteResponse({ epoch: 2, voteGranted: true });
  });
});
