import { Errors, type Logger, silentLogger } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext } from '../test/kit/raft-client-test-context.js';
import { RaftApiKey } from './kafka-raft-client.js';

const ELECTION_TIMEOUT_MS = RaftClientTestContext.ELECTION_TIMEOUT_MS;

describe('client transitions not covered elsewhere', () => {
  it('an unattached voter that voted times out into a pre-vote, keeping its vote', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withVotedCandidate(3, 1).build();
    context.sleep(ELECTION_TIMEOUT_MS);
    await context.poll();
    expect(context.client.quorumState().isProspective()).toBe(true);
    expect(context.client.quorumState().prospectiveStateOrThrow().votedKey?.id).toBe(1);
    context.assertVotedCandidate(3, 1);
  });

  it('a follower whose pre-vote is rejected by everyone goes back to following the same leader', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
    context.sleep(RaftClientTestContext.FETCH_TIMEOUT_MS);
    await context.poll();
    expect(context.client.quorumState().isProspective()).toBe(true);
    for (const request of context.sentRequests(RaftApiKey.VOTE)) {
      context.deliverResponse(request, context.voteResponse({ granted: false, epoch: 2 }));
    }
    await context.poll();
    expect(context.client.quorumState().isFollower()).toBe(true);
    context.assertElectedLeader(2, 1);
  });

  it('a prospective whose pre-vote times out falls back the same way', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
    context.sleep(RaftClientTestContext.FETCH_TIMEOUT_MS);
    await context.poll();
    context.sleep(ELECTION_TIMEOUT_MS);
    await context.poll();
    expect(context.client.quorumState().isFollower()).toBe(true);
  });

  it('ignores vote responses from an older epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withVotedCandidate(5, 0).build();
    await context.poll();
    const requests = context.sentRequests(RaftApiKey.VOTE);
    for (const request of requests)
      context.deliverResponse(request, context.voteResponse({ granted: true, epoch: 4 }));
    await context.poll();
    expect(context.client.quorumState().isCandidate()).toBe(true);
  });

  it('ignores a stale EndQuorumEpoch and answers FENCED_LEADER_EPOCH', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(5, 1).build();
    context.deliverRequest(RaftApiKey.END_QUORUM_EPOCH, context.endEpochRequest(4, 2, [0]), 2);
    await context.poll();
    context.assertSentQuorumEpochResponse(RaftApiKey.END_QUORUM_EPOCH, {
      errorCode: Errors.FENCED_LEADER_EPOCH.code,
      epoch: 5,
      leaderId: 1,
    });
    expect(context.client.quorumState().isFollower()).toBe(true);
  });

  it('an EndQuorumEpoch from a newer epoch’s leader makes it our leader first', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(5, 1).build();
    context.deliverRequest(RaftApiKey.END_QUORUM_EPOCH, context.endEpochRequest(6, 2, [1, 0]), 2);
    await context.poll();
    context.assertElectedLeader(6, 2);
  });

  it('a leader that hears of a higher epoch steps down and drops unappended writes', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withConfig({ appendLingerMs: 1000 })
      .build();
    const epoch = await context.becomeLeader();
    context.client.scheduleAppend(epoch, [Buffer.from('lost')]);
    context.deliverRequest(RaftApiKey.BEGIN_QUORUM_EPOCH, context.beginEpochRequest(epoch + 1, 2), 2);
    await context.poll();
    context.assertElectedLeader(epoch + 1, 2);
    expect(() => context.client.scheduleAppend(epoch, [Buffer.from('late')])).toThrow(/not the leader/);
  });

  it('a leader answers parked fetches NOT_LEADER_OR_FOLLOWER when it loses leadership', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    await context.advanceHighWatermarkAsLeader();
    context.deliverRequest(
      RaftApiKey.FETCH,
      context.fetchRequest({
        epoch,
        replicaId: 1,
        fetchOffset: context.log.endOffset(),
        lastFetchedEpoch: epoch,
        maxWaitMs: 500,
      }),
      1,
    );
    await context.poll();
    expect(context.sentResponses(RaftApiKey.FETCH)).toHaveLength(0);
    context.deliverRequest(RaftApiKey.BEGIN_QUORUM_EPOCH, context.beginEpochRequest(epoch + 1, 2), 2);
    await context.poll();
    context.assertSentFetchPartitionResponse({
      errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code,
      epoch: epoch + 1,
      leaderId: 2,
    });
  });

  it('a candidate elected while shutting down resigns at once', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withVotedCandidate(3, 0).build();
    await context.poll();
    context.client.shutdown(10_000, context.time.milliseconds());
    const [request] = context.sentRequests(RaftApiKey.VOTE);
    context.deliverResponse(request!, context.voteResponse({ granted: true, epoch: 3 }));
    await context.poll();
    expect(context.client.quorumState().isResigned()).toBe(true);
  });

  it('a leader resigning to shut down drops its unappended records without a warning', async () => {
    const levels: string[] = [];
    const record = (level: string) => (_fields: object, message?: string) => {
      if (message === 'dropped unappended records on losing leadership') levels.push(level);
    };
    const logger: Logger = {
      ...silentLogger,
      info: record('info'),
      warn: record('warn'),
      child: () => logger,
    };
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withConfig({ appendLingerMs: 60_000 })
      .withLogger(logger)
      .build();
    const epoch = await context.becomeLeader();
    context.client.scheduleAppend(epoch, [Buffer.from('never appended')]);
    context.client.shutdown(10_000, context.time.milliseconds());
    await context.poll();
    expect(context.client.quorumState().isResigned()).toBe(true);
    expect(levels).toEqual(['info']);
  });

  it('shutdown completes at its deadline even without a new leader', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(2).build();
    context.client.shutdown(100, context.time.milliseconds());
    await context.poll();
    expect(context.client.isShutdownComplete()).toBe(false);
    context.sleep(100);
    await context.poll();
    expect(context.client.isShutdownComplete()).toBe(true);
  });
});
