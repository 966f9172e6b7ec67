import { describe, expect, it } from 'vitest';
import { MockLog } from '../test/kit/mock-log.js';
import { MockNetworkChannel } from '../test/kit/mock-network-channel.js';
import { MockQuorumStateStore } from '../test/kit/mock-quorum-state-store.js';
import { MockableRandom, RaftClientTestContext, recordsOf } from '../test/kit/raft-client-test-context.js';
import { KafkaRaftClient, RaftApiKey } from './kafka-raft-client.js';
import { VoterSet } from './voter-set.js';

const ELECTION_TIMEOUT_MS = RaftClientTestContext.ELECTION_TIMEOUT_MS;
const FETCH_TIMEOUT_MS = RaftClientTestContext.FETCH_TIMEOUT_MS;

function metricsOf(context: RaftClientTestContext) {
  return context.client.observableState().metrics;
}

describe('KafkaRaftClient metrics: elections', () => {
  it('an election won counts one election started and its latency from the pre-vote to leading', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(2).build();
    context.sleep(ELECTION_TIMEOUT_MS * 2);
    await context.poll();
    expect(context.client.quorumState().isProspective()).toBe(true);
    expect(metricsOf(context)).toMatchObject({ electionsStarted: 0, completedElections: 0 });
    context.sleep(30);
    const [preVote] = context.sentRequests(RaftApiKey.VOTE);
    context.deliverResponse(preVote!, context.voteResponse({ granted: true, epoch: 2 }));
    await context.poll();
    expect(context.client.quorumState().isCandidate()).toBe(true);
    expect(metricsOf(context).electionsStarted).toBe(1);
    context.sleep(20);
    const [vote] = context.sentRequests(RaftApiKey.VOTE);
    context.deliverResponse(vote!, context.voteResponse({ granted: true, epoch: 3 }));
    await context.poll();
    expect(context.client.quorumState().isLeader()).toBe(true);
    expect(metricsOf(context)).toMatchObject({
      electionsStarted: 1,
      completedElections: 1,
      electionLatencyTotalMs: 50,
      electionLatencyMaxMs: 50,
      electionTimeouts: 0,
    });
  });

  it('learning a leader ends the election; a node that never campaigned records none', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(2).build();
    context.deliverRequest(RaftApiKey.BEGIN_QUORUM_EPOCH, context.beginEpochRequest(2, 1), 1);
    await context.poll();
    expect(context.client.quorumState().isFollower()).toBe(true);
    expect(metricsOf(context)).toMatchObject({ completedElections: 0, electionLatencyMaxMs: undefined });

    const campaigning = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(2).build();
    campaigning.sleep(ELECTION_TIMEOUT_MS * 2);
    await campaigning.poll();
    expect(campaigning.client.quorumState().isProspective()).toBe(true);
    campaigning.sleep(70);
    campaigning.deliverRequest(RaftApiKey.BEGIN_QUORUM_EPOCH, campaigning.beginEpochRequest(3, 1), 1);
    await campaigning.poll();
    expect(campaigning.client.quorumState().isFollower()).toBe(true);
    expect(metricsOf(campaigning)).toMatchObject({
      electionsStarted: 0,
      completedElections: 1,
      electionLatencyTotalMs: 70,
      electionLatencyMaxMs: 70,
    });
  });

  it('a timed-out candidacy and pre-vote count as election timeouts; the latency runs on to the leader', async () => {
    // Restarted as a candidate that voted for itself: the election runs from the restart.
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withVotedCandidate(3, 0).build();
    context.sleep(ELECTION_TIMEOUT_MS);
    await context.poll();
    expect(context.client.quorumState().isProspective()).toBe(true);
    expect(metricsOf(context).electionTimeouts).toBe(1);
    context.sleep(ELECTION_TIMEOUT_MS * 2);
    await context.poll();
    expect(metricsOf(context).electionTimeouts).toBe(2);
    expect(context.client.quorumState().isUnattached()).toBe(true);
    context.deliverRequest(RaftApiKey.BEGIN_QUORUM_EPOCH, context.beginEpochRequest(4, 2), 2);
    await context.poll();
    expect(context.client.quorumState().isFollower()).toBe(true);
    expect(metricsOf(context)).toMatchObject({
      electionsStarted: 0,
      completedElections: 1,
      electionLatencyTotalMs: ELECTION_TIMEOUT_MS * 3,
    });
  });
});

describe('KafkaRaftClient metrics: timeouts', () => {
  it("a voter's fetch timeout is counted once when it starts a pre-vote", async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
    await context.poll();
    context.sleep(FETCH_TIMEOUT_MS - 1);
    await context.poll();
    expect(metricsOf(context).fetchTimeouts).toBe(0);
    context.sleep(1);
    await context.poll();
    expect(context.client.quorumState().isProspective()).toBe(true);
    expect(metricsOf(context).fetchTimeouts).toBe(1);
  });

  it('an observer has no fetch timeout to count', async () => {
    const context = await RaftClientTestContext.builder(5, [0, 1, 2]).withElectedLeader(2, 1).build();
    await context.poll();
    context.sleep(FETCH_TIMEOUT_MS * 3);
    await context.poll();
    expect(context.client.observableState().isObserver).toBe(true);
    expect(metricsOf(context).fetchTimeouts).toBe(0);
  });

  it('a leader resigning on check-quorum counts one check-quorum resignation', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    await context.becomeLeader();
    context.sleep(FETCH_TIMEOUT_MS * 1.5 - 1);
    await context.poll();
    expect(metricsOf(context).checkQuorumResignations).toBe(0);
    context.sleep(1);
    await context.poll();
    expect(context.client.quorumState().isResigned()).toBe(true);
    expect(metricsOf(context).checkQuorumResignations).toBe(1);
  });

  it('a resignation asked for by the application is not a check-quorum resignation', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    context.client.resign(epoch);
    await context.poll();
    expect(context.client.quorumState().isResigned()).toBe(true);
    expect(metricsOf(context).checkQuorumResignations).toBe(0);
  });
});

describe('KafkaRaftClient metrics: records and snapshots', () => {
  it('the leader counts every appended offset, its epoch start batch included', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    // The epoch start batch: one LeaderChangeMessage.
    expect(metricsOf(context).appendedRecords).toBe(1);
    context.client.scheduleAppend(epoch, [Buffer.from('a'), Buffer.from('b'), Buffer.from('c')]);
    await context.poll();
    expect(context.log.endOffset()).toBe(4);
    expect(metricsOf(context)).toMatchObject({ appendedRecords: 4, fetchedRecords: 0 });
  });

  it('a follower counts the records it appends from the leader, not those it could not append', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
    await context.poll();
    const [fetch] = context.sentRequests(RaftApiKey.FETCH);
    context.deliverResponse(
      fetch!,
      context.fetchResponse({
        epoch: 2,
        leaderId: 1,
        highWatermark: 0,
        records: recordsOf(0, 2, ['a', 'b']),
      }),
    );
    await context.poll();
    expect(context.log.endOffset()).toBe(2);
    expect(metricsOf(context)).toMatchObject({ fetchedRecords: 2, appendedRecords: 0 });
    // Records that do not follow the log end are refused: nothing appended, nothing counted.
    await context.poll();
    const [next] = context.sentRequests(RaftApiKey.FETCH);
    context.deliverResponse(
      next!,
      context.fetchResponse({ epoch: 2, leaderId: 1, highWatermark: 2, records: recordsOf(5, 2, ['x']) }),
    );
    await context.poll();
    expect(context.log.endOffset()).toBe(2);
    expect(metricsOf(context).fetchedRecords).toBe(2);
  });

  it('counts generated snapshots with the latest size and log time, and snapshots fetched whole', async () => {
    const leader = await RaftClientTestContext.builder(0, [0]).build();
    const epoch = leader.client.leaderAndEpoch().epoch;
    leader.client.scheduleAppend(epoch, [Buffer.from('a'), Buffer.from('b')]);
    await leader.poll();
    await leader.poll();
    const snapshotId = { offset: leader.client.highWatermark()!, epoch };
    const writer = leader.client.createSnapshot(snapshotId, 1234)!;
    writer.append([Buffer.from('state')]);
    expect(metricsOf(leader).snapshotsGenerated).toBe(0);
    const sizeInBytes = writer.freeze();
    writer.close();
    expect(metricsOf(leader)).toMatchObject({
      snapshotsGenerated: 1,
      latestSnapshotGeneratedBytes: sizeInBytes,
      latestSnapshotGeneratedLogTimestampMs: 1234,
    });
    const bytes = (leader.log.readSnapshot(snapshotId)!.records() as { buffer(): Buffer }).buffer();
    expect(bytes.length).toBe(sizeInBytes);

    const follower = await RaftClientTestContext.builder(5, [0, 1, 2]).withElectedLeader(epoch, 0).build();
    await follower.startSnapshotDownload(epoch, 0, snapshotId);
    await follower.downloadSnapshot(epoch, 0, snapshotId, bytes, 40);
    expect(follower.log.startOffset()).toBe(snapshotId.offset);
    expect(metricsOf(follower)).toMatchObject({
      snapshotsFetched: 1,
      snapshotFetchedBytes: sizeInBytes,
      snapshotsGenerated: 0,
    });
  });
});

describe('KafkaRaftClient observable state for metrics', () => {
  it('the leader reports its observers; other states report none', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    expect(context.client.observableState().numberOfObservers).toBeUndefined();
    const epoch = await context.becomeLeader();
    expect(context.client.observableState().numberOfObservers).toBe(0);
    context.deliverRequest(
      RaftApiKey.FETCH,
      context.fetchRequest({ epoch, replicaId: 7, fetchOffset: 0, lastFetchedEpoch: 0 }),
      7,
    );
    await context.poll();
    expect(context.client.observableState()).toMatchObject({
      numberOfObservers: 1,
      numberOfVoters: 3,
      isObserver: false,
      // The test context's voters are bare ids: no address is known for the other two.
      unknownVoterConnections: 2,
    });
  });

  it('voters from controller.quorum.voters all have an address: no unknown voter connection', () => {
    const client = new KafkaRaftClient({
      nodeId: 0,
      voters: VoterSet.fromQuorumVotersConfig('0@localhost:9990,1@localhost:9991,2@localhost:9992'),
      log: new MockLog(),
      network: new MockNetworkChannel(),
      quorumStateStore: new MockQuorumStateStore(),
      random: new MockableRandom(),
    });
    client.initialize(0);
    expect(client.observableState().unknownVoterConnections).toBe(0);
  });

  it('counting changes nothing the client sends: two runs, one read after every step, send the same', async () => {
    const run = async (readMetrics: boolean) => {
      const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
      const read = () => {
        if (readMetrics) context.client.observableState();
      };
      const epoch = await context.becomeLeader();
      read();
      context.client.scheduleAppend(epoch, [Buffer.from('a')]);
      await context.poll();
      read();
      context.deliverVoterFetch(1, epoch, context.log.endOffset());
      await context.poll();
      read();
      return {
        responses: context.sentResponses(RaftApiKey.FETCH).map((sent) => sent.data),
        highWatermark: context.client.highWatermark(),
        metrics: metricsOf(context),
      };
    };
    const withReads = await run(true);
    const withoutReads = await run(false);
    expect(withReads).toEqual(withoutReads);
    // The epoch start batch is not a commit-latency sample; the appended batch is.
    expect(withReads.metrics.committedBatches).toBe(1);
  });
});
