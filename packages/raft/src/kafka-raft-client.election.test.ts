import { Errors } from '@kraft/protocol';
import { ControlRecordType, RecordsIterator } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext } from '../test/kit/raft-client-test-context.js';
import { RaftApiKey } from './kafka-raft-client.js';

const ELECTION_TIMEOUT_MS = RaftClientTestContext.ELECTION_TIMEOUT_MS;

describe('KafkaRaftClient elections', () => {
  it('a lone voter restarted after a clean shutdown (Resigned) leads again at initialize', async () => {
    // The stored election names it leader of epoch 5: it restarts Resigned, not after a timeout.
    const context = await RaftClientTestContext.builder(0, [0]).withElectedLeader(5, 0).build();
    expect(context.client.quorumState().isLeader()).toBe(true);
    expect(context.client.leaderAndEpoch()).toEqual({ leaderId: 0, epoch: 6 });
    context.assertElectedLeader(6, 0);
  });

  it('a lone voter restarted as a candidate that voted for itself leads at initialize', async () => {
    const context = await RaftClientTestContext.builder(0, [0]).withVotedCandidate(5, 0).build();
    expect(context.client.leaderAndEpoch()).toEqual({ leaderId: 0, epoch: 5 });
  });

  it('a restarted leader of a three-voter quorum stays Resigned at initialize', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(5, 0).build();
    expect(context.client.quorumState().isResigned()).toBe(true);
    expect(context.client.leaderAndEpoch()).toEqual({ leaderId: 0, epoch: 5 });
  });

  it('a lone voter elects itself at initialize and commits its epoch start', async () => {
    const context = await RaftClientTestContext.builder(0, [0]).build();
    expect(context.client.quorumState().isLeader()).toBe(true);
    context.assertElectedLeader(1, 0);
    expect(context.log.endOffset()).toBe(1);
    await context.poll();
    await context.poll();
    expect(context.client.highWatermark()).toBe(1);
    expect(context.listener.currentLeader()).toEqual({ leaderId: 0, epoch: 1 });
  });

  it('an unattached voter starts a pre-vote at the same epoch when the election timer expires', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(2).build();
    await context.poll();
    expect(context.sentRequests(RaftApiKey.VOTE)).toHaveLength(0);
    context.sleep(ELECTION_TIMEOUT_MS);
    await context.poll();
    expect(context.client.quorumState().isProspective()).toBe(true);
    context.assertSentVoteRequests({ epoch: 2, lastEpoch: 0, lastOffset: 0, preVote: true, count: 2 });
    // Pre-vote never bumps (or persists) the epoch.
    expect(context.storedElection()?.epoch).toBe(2);
  });

  it('a granted pre-vote majority becomes a candidate in epoch + 1 with a durable self vote', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(2).build();
    context.sleep(ELECTION_TIMEOUT_MS);
    await context.poll();
    const [first] = context.sentRequests(RaftApiKey.VOTE);
    context.deliverResponse(first!, context.voteResponse({ granted: true, epoch: 2 }));
    await context.poll();
    expect(context.client.quorumState().isCandidate()).toBe(true);
    context.assertVotedCandidate(3, 0);
    context.assertSentVoteRequests({ epoch: 3, lastEpoch: 0, lastOffset: 0, preVote: false, count: 2 });
  });

  it('a candidate with a majority becomes leader and sends BeginQuorumEpoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    expect(epoch).toBe(1);
    context.assertElectedLeader(1, 0);
    // Resent every fetch.timeout / 2 to voters that have not fetched yet.
    context.sleep(RaftClientTestContext.FETCH_TIMEOUT_MS / 2);
    await context.poll();
    context.assertSentBeginQuorumEpochRequests(1, [1, 2]);
  });

  it('a lost pre-vote goes back to unattached in the same epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(4).build();
    context.sleep(ELECTION_TIMEOUT_MS);
    await context.poll();
    for (const request of context.sentRequests(RaftApiKey.VOTE)) {
      context.deliverResponse(request, context.voteResponse({ granted: false, epoch: 4 }));
    }
    await context.poll();
    expect(context.client.quorumState().isUnattached()).toBe(true);
    expect(context.client.leaderAndEpoch().epoch).toBe(4);
  });

  it('a candidate whose election times out returns to pre-vote without bumping the epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withVotedCandidate(3, 0).build();
    expect(context.client.quorumState().isCandidate()).toBe(true);
    context.sleep(ELECTION_TIMEOUT_MS);
    await context.poll();
    expect(context.client.quorumState().isProspective()).toBe(true);
    expect(context.client.leaderAndEpoch().epoch).toBe(3);
  });

  it('a pre-vote answered UNSUPPORTED_VERSION skips straight to a candidacy', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(2).build();
    context.sleep(ELECTION_TIMEOUT_MS);
    await context.poll();
    const [first] = context.sentRequests(RaftApiKey.VOTE);
    context.deliverResponse(first!, { errorCode: Errors.UNSUPPORTED_VERSION.code });
    await context.poll();
    expect(context.client.quorumState().isCandidate()).toBe(true);
    expect(context.client.leaderAndEpoch().epoch).toBe(3);
  });

  it('restarts as resigned, never as leader, when the stored election names this node leader', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(5, 0).build();
    expect(context.client.quorumState().isResigned()).toBe(true);
    await context.poll();
    context.assertSentEndQuorumEpochRequests(5, [1, 2]);
    context.sleep(ELECTION_TIMEOUT_MS);
    await context.poll();
    expect(context.client.quorumState().isUnattached()).toBe(true);
    expect(context.client.leaderAndEpoch().epoch).toBe(6);
  });

  it('the epoch start batch holds LeaderChangeMessage with the granting voters', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    await context.becomeLeader();
    const [batch] = [...new RecordsIterator(context.log.read(0, 'uncommitted').records)];
    expect(batch!.isControl).toBe(true);
    expect(batch!.epoch).toBe(1);
    const [record] = batch!.controlRecords;
    expect(record!.type).toBe(ControlRecordType.LEADER_CHANGE);
    expect(record!.message).toMatchObject({ version: 0, leaderId: 0 });
    expect(
      (record!.message as { grantingVoters: { voterId: number }[] }).grantingVoters.map(
        (voter) => voter.voterId,
      ),
    ).toEqual([0, 1]);
  });

  it('under kraft.version 1 the epoch start batch also carries KRaftVersion and Voters records', async () => {
    const context = await RaftClientTestContext.builder(0, [0]).withKRaftVersion(1).build();
    const [batch] = [...new RecordsIterator(context.log.read(0, 'uncommitted').records)];
    expect(batch!.controlRecords.map((record) => record.type)).toEqual([
      ControlRecordType.LEADER_CHANGE,
      ControlRecordType.KRAFT_VERSION,
      ControlRecordType.KRAFT_VOTERS,
    ]);
    expect(context.store.writes.at(-1)?.dataVersion).toBe(1);
  });

  it('follows a leader learned from a vote response in its own epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withVotedCandidate(3, 0).build();
    await context.poll();
    const requests = context.sentRequests(RaftApiKey.VOTE);
    context.deliverResponse(requests[0]!, context.voteResponse({ granted: false, epoch: 3, leaderId: 2 }));
    await context.poll();
    context.assertElectedLeader(3, 2);
  });

  it('an election in a higher epoch seen in a vote response moves a candidate to unattached', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withVotedCandidate(3, 0).build();
    await context.poll();
    const requests = context.sentRequests(RaftApiKey.VOTE);
    context.deliverResponse(requests[0]!, context.voteResponse({ granted: false, epoch: 5 }));
    await context.poll();
    context.assertUnknownLeader(5);
    expect(context.client.quorumState().isUnattached()).toBe(true);
  });

  it('retries a vote request after the backoff when the voter was unreachable', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withVotedCandidate(3, 0).build();
    await context.poll();
    const requests = context.sentRequests(RaftApiKey.VOTE);
    context.deliverResponse(requests[0]!, { errorCode: Errors.BROKER_NOT_AVAILABLE.code });
    const deadline = await context.poll();
    expect(deadline - context.time.milliseconds()).toBeLessThanOrEqual(
      RaftClientTestContext.RETRY_BACKOFF_MS,
    );
    context.sleep(RaftClientTestContext.RETRY_BACKOFF_MS);
    await context.poll();
    expect(context.sentRequests(RaftApiKey.VOTE).map((request) => request.destinationId)).toEqual([
      requests[0]!.destinationId,
    ]);
  });
});
