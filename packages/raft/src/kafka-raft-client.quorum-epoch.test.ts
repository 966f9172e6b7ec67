import { Errors } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext } from '../test/kit/raft-client-test-context.js';
import { strictExponentialElectionBackoffMs } from './handlers/quorum-epoch-handler.js';
import { RaftApiKey } from './kafka-raft-client.js';

const BEGIN = RaftApiKey.BEGIN_QUORUM_EPOCH;
const END = RaftApiKey.END_QUORUM_EPOCH;

describe('BeginQuorumEpoch', () => {
  it('makes an unattached voter follow the new leader durably', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(2).build();
    context.deliverRequest(BEGIN, context.beginEpochRequest(3, 1), 1);
    await context.poll();
    context.assertSentQuorumEpochResponse(BEGIN, { epoch: 3, leaderId: 1 });
    context.assertElectedLeader(3, 1);
    expect(context.listener.currentLeader()).toEqual({ leaderId: 1, epoch: 3 });
  });

  it('is fenced when its epoch is older than ours', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(5, 2).build();
    context.deliverRequest(BEGIN, context.beginEpochRequest(4, 1), 1);
    await context.poll();
    context.assertSentQuorumEpochResponse(BEGIN, {
      errorCode: Errors.FENCED_LEADER_EPOCH.code,
      epoch: 5,
      leaderId: 2,
    });
    context.assertElectedLeader(5, 2);
  });

  it('a candidate that learns the winner of its epoch follows it', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withVotedCandidate(3, 0).build();
    context.deliverRequest(BEGIN, context.beginEpochRequest(3, 2), 2);
    await context.poll();
    context.assertElectedLeader(3, 2);
    // The vote cast in the epoch is kept.
    expect(context.storedElection()?.votedKey?.id).toBe(0);
  });

  it('two different leaders for one epoch stop the node (split brain guard)', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(3, 1).build();
    context.deliverRequest(BEGIN, context.beginEpochRequest(3, 2), 2);
    await expect(context.poll()).rejects.toThrow(/split brain/);
  });
});

describe('EndQuorumEpoch and resignation', () => {
  it('the first preferred successor campaigns at once', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(3, 1).build();
    context.deliverRequest(END, context.endEpochRequest(3, 1, [0, 2]), 1);
    await context.poll();
    context.assertSentQuorumEpochResponse(END, { epoch: 3, leaderId: 1 });
    await context.poll();
    expect(context.client.quorumState().isProspective()).toBe(true);
  });

  it('a later successor waits the strict exponential backoff before campaigning', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2, 3]).withElectedLeader(3, 1).build();
    context.deliverRequest(END, context.endEpochRequest(3, 1, [2, 3, 0]), 1);
    await context.poll();
    const backoffMs = strictExponentialElectionBackoffMs(2, 3, RaftClientTestContext.ELECTION_BACKOFF_MAX_MS);
    expect(backoffMs).toBe(250);
    context.sleep(backoffMs - 1);
    await context.poll();
    expect(context.client.quorumState().isFollower()).toBe(true);
    context.sleep(1);
    await context.poll();
    expect(context.client.quorumState().isProspective()).toBe(true);
  });

  // ADR 0024: the resigned leader has fenced itself for the epoch, so neither an answer to a
  // fetch sent before EndQuorumEpoch nor the fetches of this epoch may delay the successors.
  it('a late answer to a fetch sent before EndQuorumEpoch keeps the successor backoff', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2, 3]).withElectedLeader(3, 1).build();
    await context.poll();
    const fetch = context.assertSentFetchRequest({ epoch: 3, fetchOffset: 0, lastFetchedEpoch: 0 });
    context.deliverRequest(END, context.endEpochRequest(3, 1, [2, 3, 0]), 1);
    await context.poll();
    context.deliverResponse(fetch, context.fetchResponse({ epoch: 3, leaderId: 1, highWatermark: 0 }));
    await context.poll();
    expect(context.client.quorumState().isFollower()).toBe(true);
    context.sleep(strictExponentialElectionBackoffMs(2, 3, RaftClientTestContext.ELECTION_BACKOFF_MAX_MS));
    await context.poll();
    expect(context.client.quorumState().isProspective()).toBe(true);
  });

  it('a follower that fetched from the leader grants pre-votes once the leader resigned', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(3, 1).build();
    await context.poll();
    const fetch = context.assertSentFetchRequest({ epoch: 3, fetchOffset: 0, lastFetchedEpoch: 0 });
    context.deliverResponse(fetch, context.fetchResponse({ epoch: 3, leaderId: 1, highWatermark: 0 }));
    await context.poll();
    const preVote = () =>
      context.voteRequest({ epoch: 3, candidateId: 2, lastEpoch: 0, lastOffset: 0, preVote: true });
    context.deliverRequest(RaftApiKey.VOTE, preVote(), 2);
    await context.poll();
    context.assertSentVoteResponse({ epoch: 3, leaderId: 1, voteGranted: false });
    context.deliverRequest(END, context.endEpochRequest(3, 1, [2, 0]), 1);
    await context.poll();
    context.assertSentQuorumEpochResponse(END, { epoch: 3, leaderId: 1 });
    context.deliverRequest(RaftApiKey.VOTE, preVote(), 2);
    await context.poll();
    expect(context.client.quorumState().isFollower()).toBe(true);
    context.assertSentVoteResponse({ epoch: 3, leaderId: 1, voteGranted: true });
  });

  it('the successor backoff is 0 for the first, doubles for the next, and caps at the maximum', () => {
    expect(strictExponentialElectionBackoffMs(0, 4, 1000)).toBe(0);
    expect(strictExponentialElectionBackoffMs(1, 4, 1000)).toBe(125);
    expect(strictExponentialElectionBackoffMs(2, 4, 1000)).toBe(250);
    expect(strictExponentialElectionBackoffMs(3, 4, 1000)).toBe(500);
    expect(strictExponentialElectionBackoffMs(4, 4, 1000)).toBe(1000);
  });

  it('graceful shutdown of a leader resigns with successors ordered by replication progress', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    context.client.scheduleAppend(epoch, [Buffer.from('a')]);
    await context.poll();
    context.deliverRequest(
      RaftApiKey.FETCH,
      context.fetchRequest({ epoch, replicaId: 2, fetchOffset: 2, lastFetchedEpoch: epoch }),
      2,
    );
    context.deliverRequest(
      RaftApiKey.FETCH,
      context.fetchRequest({ epoch, replicaId: 1, fetchOffset: 1, lastFetchedEpoch: epoch }),
      1,
    );
    await context.poll();
    context.sentResponses(RaftApiKey.FETCH);
    context.client.shutdown(5_000, context.time.milliseconds());
    await context.poll();
    expect(context.client.quorumState().isResigned()).toBe(true);
    const requests = context.assertSentEndQuorumEpochRequests(epoch, [1, 2]);
    const partition = (
      requests[0]!.data as { topics: { partitions: { preferredCandidates: { candidateId: number }[] }[] }[] }
    ).topics[0]!.partitions[0]!;
    expect(partition.preferredCandidates.map((candidate) => candidate.candidateId)).toEqual([2, 1]);
    expect(context.client.isShutdownComplete()).toBe(false);
    // Shutdown completes once another leader is known.
    context.deliverRequest(BEGIN, context.beginEpochRequest(epoch + 1, 2), 2);
    await context.poll();
    expect(context.client.isShutdownComplete()).toBe(true);
    expect(context.listener.beganShutdown).toBe(true);
  });

  it('a leader that begins shutting down resigns at once and stops serving fetches', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    await context.becomeLeader();
    context.client.shutdown(5_000, context.time.milliseconds());
    const epoch = context.client.leaderAndEpoch().epoch;
    context.deliverRequest(
      RaftApiKey.FETCH,
      context.fetchRequest({ epoch, replicaId: 1, fetchOffset: 0, lastFetchedEpoch: 0 }),
      1,
    );
    await context.poll();
    const partition = context.assertSentFetchPartitionResponse({
      errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code,
      epoch,
      leaderId: 0,
    });
    expect(partition).toBeDefined();
  });

  it('resigned leaders stop resending EndQuorumEpoch to voters that acknowledged', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(4, 0).build();
    await context.poll();
    const requests = context.assertSentEndQuorumEpochRequests(4, [1, 2]);
    context.deliverResponse(requests[0]!, context.quorumEpochResponse(4, 0));
    context.deliverResponse(requests[1]!, context.quorumEpochResponse(4, 0));
    context.sleep(RaftClientTestContext.RETRY_BACKOFF_MS);
    await context.poll();
    expect(context.sentRequests(END)).toHaveLength(0);
  });

  it('a single-voter quorum completes shutdown at once', async () => {
    const context = await RaftClientTestContext.builder(0, [0]).build();
    context.client.shutdown(5_000, context.time.milliseconds());
    await context.poll();
    expect(context.client.isShutdownComplete()).toBe(true);
  });
});

describe('check-quorum', () => {
  it('a leader resigns when a majority has not fetched within 1.5 × the fetch timeout', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    const checkQuorumMs = RaftClientTestContext.FETCH_TIMEOUT_MS * 1.5;
    context.sleep(checkQuorumMs - 1);
    await context.poll();
    expect(context.client.quorumState().isLeader()).toBe(true);
    context.sleep(1);
    await context.poll();
    expect(context.client.quorumState().isResigned()).toBe(true);
    expect(context.client.leaderAndEpoch().epoch).toBe(epoch);
  });

  it('fetches from a majority reset the check-quorum timer', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    const checkQuorumMs = RaftClientTestContext.FETCH_TIMEOUT_MS * 1.5;
    context.sleep(checkQuorumMs - 1);
    context.deliverRequest(
      RaftApiKey.FETCH,
      context.fetchRequest({ epoch, replicaId: 1, fetchOffset: 1, lastFetchedEpoch: epoch }),
      1,
    );
    await context.poll();
    context.sleep(checkQuorumMs - 1);
    await context.poll();
    expect(context.client.quorumState().isLeader()).toBe(true);
    context.sleep(1);
    await context.poll();
    expect(context.client.quorumState().isResigned()).toBe(true);
  });

  it('an observer fetch does not count toward check-quorum', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    context.sleep(RaftClientTestContext.FETCH_TIMEOUT_MS);
    context.deliverRequest(
      RaftApiKey.FETCH,
      context.fetchRequest({ epoch, replicaId: 7, fetchOffset: 1, lastFetchedEpoch: epoch }),
      7,
    );
    await context.poll();
    context.sleep(RaftClientTestContext.FETCH_TIMEOUT_MS / 2);
    await context.poll();
    expect(context.client.quorumState().isResigned()).toBe(true);
  });
});

describe('DescribeQuorum', () => {
  it('a non-leader answers NOT_LEADER_OR_FOLLOWER', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
    context.deliverRequest(RaftApiKey.DESCRIBE_QUORUM, context.describeQuorumRequest(), -1, 2);
    await context.poll();
    const data = context.assertSentDescribeQuorumResponse();
    expect(data.topics[0]!.partitions[0]!.errorCode).toBe(Errors.NOT_LEADER_OR_FOLLOWER.code);
  });

  it('the leader reports voters with log end offsets and caught-up times', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    await context.poll();
    const leaderFlushMs = context.time.milliseconds();
    context.sleep(10);
    context.deliverRequest(
      RaftApiKey.FETCH,
      context.fetchRequest({ epoch, replicaId: 1, fetchOffset: 1, lastFetchedEpoch: epoch }),
      1,
    );
    await context.poll();
    context.deliverRequest(RaftApiKey.DESCRIBE_QUORUM, context.describeQuorumRequest(), -1, 2);
    await context.poll();
    const partition = context.assertSentDescribeQuorumResponse().topics[0]!.partitions[0]!;
    expect([partition.leaderId, partition.leaderEpoch, Number(partition.highWatermark)]).toEqual([
      0,
      epoch,
      1,
    ]);
    const voters = partition.currentVoters.map((voter) => [
      voter.replicaId,
      Number(voter.logEndOffset),
      Number(voter.lastCaughtUpTimestamp),
    ]);
    // Kafka reports the leader itself as caught up at the time of the DescribeQuorum.
    expect(voters).toEqual([
      [0, 1, context.time.milliseconds()],
      [1, 1, leaderFlushMs + 10],
      [2, -1, -1],
    ]);
  });
});
