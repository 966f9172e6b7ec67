/**
 * KIP-853 foundation: at kraft.version 1 the quorum's voter set is the latest VotersRecord of the
 * log (to its end, uncommitted included), else the static voters; at kraft.version 0 it stays the
 * static set whatever the log holds.
 */
import { buildControlBatch, buildVotersBatch, ControlRecordType, RecordsIterator } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext, recordsOf } from '../test/kit/raft-client-test-context.js';
import { InvalidConfigurationError } from './errors/invalid-configuration-error.js';
import { RaftApiKey } from './kafka-raft-client.js';
import type { RaftLog } from './ports/raft-log.js';
import { VoterSet } from './voter-set.js';

const STATIC_VOTERS = [0, 1, 2];

/** Appends, before the client starts, a VotersRecord of `ids` in its own batch of `epoch`. */
function appendVotersRecord(ids: readonly number[], epoch = 1) {
  return (log: RaftLog) => {
    log.initializeLeaderEpoch(epoch);
    const options = { baseOffset: log.endOffset(), partitionLeaderEpoch: epoch, timestamp: 0 };
    log.appendAsLeader(buildVotersBatch(options, VoterSet.fromIds(ids).toVotersRecord()), epoch);
  };
}

/** Builds a node 0 over static voters {0, 1, 2} whose log holds a VotersRecord of `logVoters`. */
function nodeWithVotersInLog(kraftVersion: 0 | 1, logVoters: readonly number[]) {
  return RaftClientTestContext.builder(0, STATIC_VOTERS)
    .withKRaftVersion(kraftVersion)
    .withUnknownLeader(1)
    .withLogSetup(appendVotersRecord(logVoters))
    .build();
}

async function preVoteDestinations(context: RaftClientTestContext): Promise<number[]> {
  context.sleep(RaftClientTestContext.ELECTION_TIMEOUT_MS * 2);
  await context.poll();
  return context
    .sentRequests(RaftApiKey.VOTE)
    .map((request) => request.destinationId)
    .sort((left, right) => left - right);
}

describe('the voter set at kraft.version 1 comes from the log (KIP-853)', () => {
  it('campaigns among the voters of the VotersRecord in its log, not the static ones', async () => {
    const context = await nodeWithVotersInLog(1, [0, 1, 2, 3]);
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1, 2, 3]);
    expect(context.client.observableState().numberOfVoters).toBe(4);
    expect(await preVoteDestinations(context)).toEqual([1, 2, 3]);
  });

  it('ignores the VotersRecord at kraft.version 0', async () => {
    const context = await nodeWithVotersInLog(0, [0, 1, 2, 3]);
    expect(context.client.lastVoterSet().voterIds()).toEqual(STATIC_VOTERS);
    expect(context.client.voterSetAtOffset(0).voterIds()).toEqual(STATIC_VOTERS);
    // Past the log end there is no voter set to give.
    expect(() => context.client.voterSetAtOffset(context.log.endOffset())).toThrow(InvalidConfigurationError);
    expect(await preVoteDestinations(context)).toEqual([1, 2]);
  });

  it('is an observer when the log leaves it out of the voter set', async () => {
    const context = await nodeWithVotersInLog(1, [1, 2, 3]);
    expect(context.client.quorumState().isVoter()).toBe(false);
    expect(await preVoteDestinations(context)).toEqual([]);
  });

  it('as leader, counts the high watermark over the voters of its log', async () => {
    const context = await nodeWithVotersInLog(1, [0, 1, 2, 3, 4]);
    const epoch = await context.becomeLeader();
    await context.poll();
    const end = context.log.endOffset();
    // Of five voters, the leader and voter 1 are not a majority (of the static three they were).
    context.deliverVoterFetch(1, epoch, end);
    await context.poll();
    expect(context.client.highWatermark()).toBeUndefined();
    context.deliverVoterFetch(3, epoch, end);
    await context.poll();
    expect(context.client.highWatermark()).toBe(end);
  });

  it('as leader, counts a VotersRecord it appends at once, and commits it with the new set', async () => {
    const context = await nodeWithVotersInLog(1, STATIC_VOTERS);
    const epoch = await context.becomeLeader();
    await context.advanceHighWatermarkAsLeader();
    const votersOffset = context.log.endOffset();
    const added = VoterSet.fromIds([0, 1, 2, 3]);
    expect(context.client.appendVotersRecord(added, context.time.milliseconds())).toEqual({
      kind: 'appended',
      offset: votersOffset,
    });
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1, 2, 3]);
    // The leader counts over it from now on, not from its next poll.
    expect(context.client.quorumState().leaderStateOrThrow().voters().voterIds()).toEqual([0, 1, 2, 3]);
    // One change at a time: the next waits until this one commits.
    const another = VoterSet.fromIds([0, 1, 2, 3, 4]);
    expect(context.client.appendVotersRecord(another, context.time.milliseconds())).toEqual({
      kind: 'rejected',
      reason: 'uncommitted-voter-change',
    });
    await context.poll();
    const end = context.log.endOffset();
    // Of the new four voters, the leader and voter 1 are not a majority: the new set commits it.
    context.deliverVoterFetch(1, epoch, end);
    await context.poll();
    expect(context.client.highWatermark()).toBeLessThanOrEqual(votersOffset);
    context.deliverVoterFetch(3, epoch, end);
    await context.poll();
    expect(context.client.highWatermark()).toBe(end);
    context.deliverRequest(RaftApiKey.DESCRIBE_QUORUM, context.describeQuorumRequest(), -1);
    await context.poll();
    const described = context.assertSentDescribeQuorumResponse();
    expect(described.topics[0]?.partitions[0]?.currentVoters.map((voter) => voter.replicaId)).toEqual([
      0, 1, 2, 3,
    ]);
    // Committed: the next change may go, and data appends go on after the control batch.
    expect(context.client.appendVotersRecord(another, context.time.milliseconds())).toEqual({
      kind: 'appended',
      offset: end,
    });
    expect(context.client.scheduleAppend(epoch, [Buffer.from('after')])).toBe(end + 1);
    await context.poll();
    expect(context.log.endOffset()).toBe(end + 2);
  });

  it('refuses to append a VotersRecord, as a value, when it may not', async () => {
    const follower = await nodeWithVotersInLog(1, STATIC_VOTERS);
    const now = follower.time.milliseconds();
    const next = VoterSet.fromIds([0, 1, 2, 3]);
    expect(follower.client.appendVotersRecord(next, now)).toEqual({ kind: 'rejected', reason: 'not-leader' });

    const leader = await nodeWithVotersInLog(1, STATIC_VOTERS);
    const epoch = await leader.becomeLeader();
    const reasonFor = (voters: VoterSet) => {
      const result = leader.client.appendVotersRecord(voters, leader.time.milliseconds());
      return result.kind === 'rejected' ? result.reason : `appended at ${result.offset}`;
    };
    expect(reasonFor(next)).toBe('no-high-watermark');
    await leader.advanceHighWatermarkAsLeader();
    expect(reasonFor(VoterSet.fromIds([0, 1, 2, 3, 4]))).toBe('no-overlapping-majority');
    leader.client.scheduleAppend(epoch, [Buffer.from('waiting')]);
    expect(reasonFor(next)).toBe('pending-appends');

    const staticLeader = await nodeWithVotersInLog(0, STATIC_VOTERS);
    await staticLeader.becomeLeader();
    await staticLeader.advanceHighWatermarkAsLeader();
    const result = staticLeader.client.appendVotersRecord(next, staticLeader.time.milliseconds());
    expect(result).toEqual({ kind: 'rejected', reason: 'kraft-version-0' });
  });

  it('as follower, takes a fetched VotersRecord at once and gives it back when the log is truncated', async () => {
    const context = await RaftClientTestContext.builder(0, STATIC_VOTERS)
      .withKRaftVersion(1)
      .withElectedLeader(2, 1)
      .build();
    await context.poll();
    const added = VoterSet.fromIds([0, 1, 2, 3]);
    const fetched = buildControlBatch({ baseOffset: 0, partitionLeaderEpoch: 1, timestamp: 0 }, [
      { type: ControlRecordType.KRAFT_VOTERS, message: added.toVotersRecord() },
    ]);
    context.answerFetch(
      { epoch: 2, fetchOffset: 0, lastFetchedEpoch: 0 },
      { epoch: 2, leaderId: 1, records: fetched, highWatermark: 0 },
    );
    await context.poll();
    // Uncommitted (the high watermark is 0), and in force already.
    expect(context.client.highWatermark()).toBe(0);
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1, 2, 3]);
    expect(context.client.observableState().numberOfVoters).toBe(4);
    // The leader of epoch 2 never had that epoch-1 record: the follower truncates it away.
    await context.poll();
    context.answerFetch(
      { epoch: 2, fetchOffset: 1, lastFetchedEpoch: 1 },
      { epoch: 2, leaderId: 1, highWatermark: 0, divergingEpoch: { offset: 0, epoch: 1 } },
    );
    await context.poll();
    expect(context.log.endOffset()).toBe(0);
    expect(context.client.lastVoterSet().voterIds()).toEqual(STATIC_VOTERS);
    // A new tail at the same offset is read again.
    await context.poll();
    context.answerFetch(
      { epoch: 2, fetchOffset: 0, lastFetchedEpoch: 0 },
      {
        epoch: 2,
        leaderId: 1,
        records: buildVotersBatch(
          { baseOffset: 0, partitionLeaderEpoch: 2, timestamp: 0 },
          VoterSet.fromIds([0, 1]).toVotersRecord(),
        ),
        highWatermark: 0,
      },
    );
    await context.poll();
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1]);
  });

  it('restates the latest voter set in the epoch start batch, and a snapshot stores the set at its end', async () => {
    const context = await nodeWithVotersInLog(1, [0, 1, 2, 3, 4]);
    const epoch = await context.becomeLeader();
    const epochStart = context.client.quorumState().leaderStateOrThrow().epochStartOffset;
    const batch = [...new RecordsIterator(context.log.read(epochStart, 'uncommitted').records)][0];
    const voters = batch?.controlRecords.find((record) => record.type === ControlRecordType.KRAFT_VOTERS);
    expect(
      voters?.type === ControlRecordType.KRAFT_VOTERS && voters.message.voters.map((v) => v.voterId),
    ).toEqual([0, 1, 2, 3, 4]);
    context.client.scheduleAppend(epoch, [Buffer.from('a')]);
    await context.poll();
    for (const voterId of [1, 2]) context.deliverVoterFetch(voterId, epoch, context.log.endOffset());
    await context.poll();
    const snapshotEnd = context.client.highWatermark() as number;
    const writer = context.client.createSnapshot({ offset: snapshotEnd, epoch }, 0);
    writer?.freeze();
    const raw = context.log.readSnapshot({ offset: snapshotEnd, epoch });
    const header = [...new RecordsIterator(raw?.records() ?? recordsOf(0, 0, []))][0];
    expect(header?.controlRecords.map((record) => record.type)).toEqual([
      ControlRecordType.SNAPSHOT_HEADER,
      ControlRecordType.KRAFT_VERSION,
      ControlRecordType.KRAFT_VOTERS,
    ]);
    const stored = header?.controlRecords[2];
    expect(
      stored?.type === ControlRecordType.KRAFT_VOTERS && VoterSet.fromVotersRecord(stored.message).voterIds(),
    ).toEqual([0, 1, 2, 3, 4]);
  });

  it('takes its voter set from the bootstrap checkpoint 0-0 of a formatted dynamic quorum', async () => {
    const bootstrap = VoterSet.fromIds([0, 1, 2, 3, 4]);
    const context = await RaftClientTestContext.builder(0, STATIC_VOTERS)
      .withKRaftVersion(1)
      .withLogSetup((log) => {
        const writer = log.createNewSnapshotUnchecked({ offset: 0, epoch: 0 });
        const options = (baseOffset: number) => ({ baseOffset, partitionLeaderEpoch: 0, timestamp: 0 });
        writer?.append(
          buildControlBatch(options(0), [
            {
              type: ControlRecordType.SNAPSHOT_HEADER,
              message: { version: 0, lastContainedLogTimestamp: 0n },
            },
            { type: ControlRecordType.KRAFT_VERSION, message: { version: 0, kRaftVersion: 1 } },
            { type: ControlRecordType.KRAFT_VOTERS, message: bootstrap.toVotersRecord() },
          ]),
        );
        writer?.append(
          buildControlBatch(options(3), [
            { type: ControlRecordType.SNAPSHOT_FOOTER, message: { version: 0 } },
          ]),
        );
        writer?.freeze();
      })
      .build();
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1, 2, 3, 4]);
    expect(await preVoteDestinations(context)).toEqual([1, 2, 3, 4]);
  });
});
