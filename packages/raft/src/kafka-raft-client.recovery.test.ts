import { describe, expect, it } from 'vitest';
import type { MockLog } from '../test/kit/mock-log.js';
import { RaftClientTestContext, recordsOf } from '../test/kit/raft-client-test-context.js';
import { RaftApiKey } from './kafka-raft-client.js';

const VOTE = RaftApiKey.VOTE;

/**
 * A voter whose log lost flushed data (`@kraft/log` cut a damaged segment with
 * `recover-from-quorum`) runs as a non-voting observer until it has fetched and flushed back past
 * its old recovery point, so it can never help elect a leader without entries it acknowledged.
 */
describe('a voter recovering lost flushed data', () => {
  /** Voter 0 of {0, 1, 2} holding offsets 0-1 of epoch 1, recovering until offset 4. */
  function recovering(builder = RaftClientTestContext.builder(0, [0, 1, 2])) {
    return builder
      .appendToLog(1, ['a', 'b'])
      .withLogSetup((log) => (log as MockLog).startRecoveringLostData(4))
      .build();
  }

  function voteGranted(context: RaftClientTestContext): boolean[] {
    return context
      .sentResponses(VOTE)
      .map(
        (sent) =>
          (sent.data as { topics: { partitions: { voteGranted: boolean }[] }[] }).topics[0]?.partitions[0]
            ?.voteGranted ?? false,
      );
  }

  it('grants neither votes nor pre-votes, even to an up-to-date candidate', async () => {
    const context = await recovering(RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(1));
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 2, candidateId: 1, lastEpoch: 1, lastOffset: 10, preVote: true }),
      1,
    );
    context.deliverRequest(
      VOTE,
      context.voteRequest({ epoch: 2, candidateId: 1, lastEpoch: 1, lastOffset: 10 }),
      1,
    );
    await context.poll();
    expect(voteGranted(context)).toEqual([false, false]);
    expect(context.storedElection()?.votedKey).toBeUndefined();
  });

  it('never campaigns: no pre-vote after its election or fetch timeout, it keeps fetching', async () => {
    const context = await recovering(RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(1, 1));
    expect(context.client.quorumState().isObserver()).toBe(true);
    await context.poll();
    context.assertSentFetchRequest({ epoch: 1, fetchOffset: 2, lastFetchedEpoch: 1 });
    context.sleep(RaftClientTestContext.FETCH_TIMEOUT_MS * 3);
    await context.poll();
    expect(context.client.quorumState().isFollower()).toBe(true);
    expect(context.sentRequests(VOTE)).toHaveLength(0);
  });

  it('does not campaign as an unattached voter either', async () => {
    const context = await recovering(RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(1));
    context.sleep(RaftClientTestContext.ELECTION_TIMEOUT_MS * 3);
    await context.poll();
    expect(context.client.quorumState().isUnattached()).toBe(true);
    expect(context.sentRequests(VOTE)).toHaveLength(0);
  });

  it('rejoins as a voter once fetched and flushed past its old recovery point, not before', async () => {
    const context = await recovering(RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(1, 1));
    const log = context.log as MockLog;
    await context.poll();
    let request = context.assertSentFetchRequest({ epoch: 1, fetchOffset: 2, lastFetchedEpoch: 1 });
    context.deliverResponse(
      request,
      context.fetchResponse({ epoch: 1, leaderId: 1, records: recordsOf(2, 1, ['c']), highWatermark: 3 }),
    );
    await context.poll();
    await context.poll();
    // Fetched and flushed to 3 of 4: still an observer.
    expect(log.recoveringUntilOffset()).toBe(4);
    expect(context.client.quorumState().isObserver()).toBe(true);
    expect(context.client.observableState().recoveringUntilOffset).toBe(4);
    request = context.assertSentFetchRequest({ epoch: 1, fetchOffset: 3, lastFetchedEpoch: 1 });
    context.deliverResponse(
      request,
      context.fetchResponse({
        epoch: 1,
        leaderId: 1,
        records: recordsOf(3, 1, ['d', 'e']),
        highWatermark: 5,
      }),
    );
    // One poll without the driver's flush: appended to 5, not durable, so a crash would lose it again.
    context.client.poll(context.time.milliseconds());
    expect([log.endOffset(), log.lastFlushedOffset()]).toEqual([5, 3]);
    expect(context.client.quorumState().isObserver()).toBe(true);
    log.flushSync();
    context.client.onLogFlushed(log.lastFlushedOffset(), context.time.milliseconds());
    expect(context.client.quorumState().isVoter()).toBe(true);
    expect(context.client.observableState().recoveringUntilOffset).toBeUndefined();
    // A voter again: a fetch timeout now starts a pre-vote.
    context.sleep(RaftClientTestContext.FETCH_TIMEOUT_MS);
    await context.poll();
    expect(context.client.quorumState().isProspective()).toBe(true);
  });

  it('stays an observer across a restart during catch-up (the log keeps the state)', async () => {
    const context = await recovering(RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(1, 1));
    const log = context.log as MockLog;
    log.crashAndReopen();
    const restarted = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withElectedLeader(1, 1)
      .withLogFactory(() => log)
      .build();
    expect(restarted.client.quorumState().isObserver()).toBe(true);
    restarted.sleep(RaftClientTestContext.FETCH_TIMEOUT_MS * 3);
    await restarted.poll();
    expect(restarted.sentRequests(VOTE)).toHaveLength(0);
  });
});
