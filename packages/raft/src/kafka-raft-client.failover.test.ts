/**
 * Failover after the leader process dies (a deliberate difference from Kafka, see the README):
 * fetches refused as BROKER_NOT_AVAILABLE twice in a row bring a voter's election forward to a
 * random delay in [0, election timeout), and such a follower grants pre-votes.
 */
import { Errors } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext } from '../test/kit/raft-client-test-context.js';
import { RaftApiKey } from './kafka-raft-client.js';

const FETCH_TIMEOUT_MS = RaftClientTestContext.FETCH_TIMEOUT_MS;
const ELECTION_TIMEOUT_MS = RaftClientTestContext.ELECTION_TIMEOUT_MS;
const RETRY_BACKOFF_MS = RaftClientTestContext.RETRY_BACKOFF_MS;
const UNREACHABLE = { errorCode: Errors.BROKER_NOT_AVAILABLE.code };

/** A voter following leader 1 in epoch 3 that has fetched from it once. */
async function followerOfLiveLeader(): Promise<RaftClientTestContext> {
  const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(3, 1).build();
  await context.poll();
  const fetch = context.assertSentFetchRequest({ epoch: 3, fetchOffset: 0, lastFetchedEpoch: 0 });
  context.deliverResponse(fetch, context.fetchResponse({ epoch: 3, leaderId: 1, highWatermark: 0 }));
  await context.poll();
  return context;
}

/** Answers the next `count` fetches to the leader as the transport does when its process is gone. */
async function failFetches(context: RaftClientTestContext, count: number): Promise<void> {
  for (let attempt = 0; attempt < count; attempt += 1) {
    const [fetch] = context.sentRequests(RaftApiKey.FETCH);
    expect(fetch?.destinationId).toBe(1);
    context.deliverResponse(fetch!, UNREACHABLE);
    await context.poll();
    context.sleep(RETRY_BACKOFF_MS);
    await context.poll();
  }
}

function preVoteFrom2(context: RaftClientTestContext) {
  return context.voteRequest({ epoch: 3, candidateId: 2, lastEpoch: 0, lastOffset: 0, preVote: true });
}

describe('failover when the leader is unreachable', () => {
  it('starts a pre-vote after a random delay once two fetches in a row are refused', async () => {
    const context = await followerOfLiveLeader();
    context.random.mockNextInt = () => 700;
    await failFetches(context, 2);
    expect(context.client.quorumState().isFollower()).toBe(true);
    context.sleep(700);
    await context.poll();
    expect(context.client.quorumState().isProspective()).toBe(true);
    context.assertSentVoteRequests({ epoch: 3, lastEpoch: 0, lastOffset: 0, preVote: true, count: 2 });
  });

  it('waits the whole fetch timeout after a single refused fetch', async () => {
    const context = await followerOfLiveLeader();
    context.random.mockNextInt = () => 0;
    await failFetches(context, 1);
    context.sleep(ELECTION_TIMEOUT_MS);
    await context.poll();
    expect(context.client.quorumState().isFollower()).toBe(true);
  });

  it('grants a pre-vote once its own fetches to the leader are refused, and not before', async () => {
    const context = await followerOfLiveLeader();
    context.random.mockNextInt = () => ELECTION_TIMEOUT_MS - 1;
    context.deliverRequest(RaftApiKey.VOTE, preVoteFrom2(context), 2);
    await context.poll();
    context.assertSentVoteResponse({ epoch: 3, leaderId: 1, voteGranted: false });
    await failFetches(context, 1);
    context.deliverRequest(RaftApiKey.VOTE, preVoteFrom2(context), 2);
    await context.poll();
    context.assertSentVoteResponse({ epoch: 3, leaderId: 1, voteGranted: false });
    await failFetches(context, 1);
    context.deliverRequest(RaftApiKey.VOTE, preVoteFrom2(context), 2);
    await context.poll();
    context.assertSentVoteResponse({ epoch: 3, leaderId: 1, voteGranted: true });
    // A pre-vote changes nothing durable: still the follower of 1 in epoch 3.
    context.assertElectedLeader(3, 1);
  });

  it('a successful fetch after the leader came back restores the full fetch timeout', async () => {
    const context = await followerOfLiveLeader();
    context.random.mockNextInt = () => 500;
    await failFetches(context, 2);
    const [fetch] = context.sentRequests(RaftApiKey.FETCH);
    context.deliverResponse(fetch!, context.fetchResponse({ epoch: 3, leaderId: 1, highWatermark: 0 }));
    await context.poll();
    context.sleep(FETCH_TIMEOUT_MS - 1);
    await context.poll();
    expect(context.client.quorumState().isFollower()).toBe(true);
    context.deliverRequest(RaftApiKey.VOTE, preVoteFrom2(context), 2);
    await context.poll();
    context.assertSentVoteResponse({ epoch: 3, leaderId: 1, voteGranted: false });
  });
});
