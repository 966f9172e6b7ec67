import { Errors, type Logger, Uuid, type VoteRequestData, type VoteResponseData } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import type { MockLog } from '../test/kit/mock-log.js';
import { RaftClientTestContext, recordsOf } from '../test/kit/raft-client-test-context.js';
import { RaftApiKey } from './kafka-raft-client.js';

// Tests written for mutants of the consensus rules that survived `pnpm mutation`
// (docs/reliability.md, "Mutation testing"): each names the rule it pins down.

const CHECK_QUORUM_MS = RaftClientTestContext.FETCH_TIMEOUT_MS * 1.5;

/** Leader `localId` of voters 0, 1 and 2 with one committed batch and a frozen snapshot at the HWM. */
async function snapshottingLeader(localId: number) {
  const context = await RaftClientTestContext.builder(localId, [0, 1, 2]).build();
  const epoch = await context.becomeLeader();
  context.client.scheduleAppend(epoch, [Buffer.from('value')]);
  await context.poll();
  await context.advanceHighWatermarkAsLeader();
  const snapshotId = { offset: context.client.highWatermark() as number, epoch };
  const writer = context.client.createSnapshot(snapshotId, 0);
  if (writer === undefined) throw new Error('no snapshot writer');
  writer.append([Buffer.from('state')]);
  writer.freeze();
  context.channel.drainSentResponses();
  const size = context.log.readSnapshot(snapshotId)?.sizeInBytes() ?? 0;
  return { context, epoch, snapshotId, size };
}

describe('snapshot bounds (FetchSnapshot)', () => {
  it.each([-1, -4096])('a negative position %d is POSITION_OUT_OF_RANGE, never a chunk', async (position) => {
    const { context, epoch, snapshotId, size } = await snapshottingLeader(0);
    expect(size).toBeGreaterThan(0);
    context.deliverRequest(
      RaftApiKey.FETCH_SNAPSHOT,
      context.fetchSnapshotRequest({ epoch, replicaId: 1, snapshotId, position }),
      1,
    );
    await context.poll();
    const partition = context.assertSentFetchSnapshotResponse().topics[0]?.partitions[0];
    expect(partition?.errorCode).toBe(Errors.POSITION_OUT_OF_RANGE.code);
    expect(partition?.unalignedRecords.length ?? 0).toBe(0);
  });

  it('a voter downloading a snapshot counts toward check-quorum, also when its id is 0', async () => {
    // Leader 1; voter 0 only fetches the snapshot (it is too far behind to Fetch), voter 2 is away.
    const { context, epoch, snapshotId } = await snapshottingLeader(1);
    const fetchSnapshotFromVoterZero = async (): Promise<void> => {
      context.deliverRequest(
        RaftApiKey.FETCH_SNAPSHOT,
        context.fetchSnapshotRequest({ epoch, replicaId: 0, snapshotId, position: 0 }),
        0,
      );
      await context.poll();
      expect(context.assertSentFetchSnapshotResponse().topics[0]?.partitions[0]?.errorCode).toBe(
        Errors.NONE.code,
      );
    };
    context.sleep(CHECK_QUORUM_MS - 1);
    await fetchSnapshotFromVoterZero();
    context.sleep(CHECK_QUORUM_MS - 1);
    await context.poll();
    expect(context.client.quorumState().isLeader()).toBe(true);
    // Without a fetch of any kind for a whole check-quorum period, the leader resigns.
    context.sleep(1);
    await context.poll();
    expect(context.client.quorumState().isResigned()).toBe(true);
  });
});

describe('vote granting', () => {
  it('a prospective that knows the leader of its epoch refuses a standard vote in that epoch, but may grant a pre-vote', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(5, 1).build();
    context.sleep(RaftClientTestContext.FETCH_TIMEOUT_MS);
    await context.poll();
    expect(context.client.quorumState().isProspective()).toBe(true);
    expect(context.client.leaderAndEpoch()).toEqual({ leaderId: 1, epoch: 5 });
    context.channel.drainSendQueue();
    // Voter 2 campaigned in epoch 5 too and lost to 1; its request arrives late.
    context.deliverRequest(
      RaftApiKey.VOTE,
      context.voteRequest({ epoch: 5, candidateId: 2, lastEpoch: 0, lastOffset: 0 }),
      2,
    );
    await context.poll();
    context.assertSentVoteResponse({ epoch: 5, leaderId: 1, voteGranted: false });
    expect(context.storedElection()?.votedKey).toBeUndefined();
    context.deliverRequest(
      RaftApiKey.VOTE,
      context.voteRequest({ epoch: 5, candidateId: 2, lastEpoch: 0, lastOffset: 0, preVote: true }),
      2,
    );
    await context.poll();
    context.assertSentVoteResponse({ epoch: 5, leaderId: 1, voteGranted: true });
  });
});

describe('vote granting by state', () => {
  function votesGranted(context: RaftClientTestContext): boolean[] {
    return context
      .sentResponses(RaftApiKey.VOTE)
      .map((sent) => (sent.data as VoteResponseData).topics[0]?.partitions[0]?.voteGranted ?? false);
  }

  it('a resigned leader grants an up-to-date pre-vote but neither a stale pre-vote nor a standard vote in its epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    context.sleep(CHECK_QUORUM_MS);
    await context.poll();
    expect(context.client.quorumState().isResigned()).toBe(true);
    const lastOffset = context.log.endOffset();
    const vote = (fields: { lastEpoch: number; lastOffset: number; preVote: boolean; epoch: number }) =>
      context.deliverRequest(RaftApiKey.VOTE, context.voteRequest({ candidateId: 1, ...fields }), 1);
    vote({ epoch: epoch + 1, lastEpoch: epoch, lastOffset, preVote: true });
    vote({ epoch: epoch + 1, lastEpoch: epoch, lastOffset: lastOffset - 1, preVote: true });
    vote({ epoch, lastEpoch: epoch - 1, lastOffset: lastOffset + 5, preVote: false });
    await context.poll();
    expect(votesGranted(context)).toEqual([true, false, false]);
    expect(context.client.quorumState().isResigned()).toBe(true);
  });

  it('an unattached voter that voted still grants an up-to-date pre-vote to another candidate, never a standard vote', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withVotedCandidate(2, 1).build();
    context.deliverRequest(
      RaftApiKey.VOTE,
      context.voteRequest({ epoch: 3, candidateId: 2, lastEpoch: 0, lastOffset: 0, preVote: true }),
      2,
    );
    context.deliverRequest(
      RaftApiKey.VOTE,
      context.voteRequest({ epoch: 2, candidateId: 2, lastEpoch: 0, lastOffset: 0 }),
      2,
    );
    await context.poll();
    expect(votesGranted(context)).toEqual([true, false]);
    context.assertVotedCandidate(2, 1);
  });

  it('a vote cast for a candidate without a directory id is granted again whatever directory asks; one with an id only to that directory', async () => {
    const directoryA = Uuid.fromLongs(0x0a0bn, 0x0c0dn);
    const directoryB = Uuid.fromLongs(0x1a1bn, 0x1c1dn);
    const unknownDirectory = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withVotedCandidate(2, 1)
      .build();
    unknownDirectory.deliverRequest(
      RaftApiKey.VOTE,
      unknownDirectory.voteRequest({
        epoch: 2,
        candidateId: 1,
        lastEpoch: 0,
        lastOffset: 0,
        candidateDirectoryId: directoryA,
      }),
      1,
    );
    await unknownDirectory.poll();
    expect(votesGranted(unknownDirectory)).toEqual([true]);

    const known = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(2).build();
    for (const candidateDirectoryId of [directoryA, directoryB, directoryA]) {
      known.deliverRequest(
        RaftApiKey.VOTE,
        known.voteRequest({ epoch: 2, candidateId: 1, lastEpoch: 0, lastOffset: 0, candidateDirectoryId }),
        1,
      );
      await known.poll();
    }
    expect(votesGranted(known)).toEqual([true, false, true]);
  });
});

describe('vote request validation: a malformed or foreign request never grants a vote', () => {
  type VotePartition = VoteRequestData['topics'][number]['partitions'][number];

  /** Voter 0 of 0, 1 and 2, unattached in epoch 1 with an empty log: it would grant `valid`. */
  async function voter() {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withUnknownLeader(1)
      .withClusterId('cluster-a')
      .build();
    const valid = context.voteRequest({ epoch: 2, candidateId: 1, lastEpoch: 1, lastOffset: 5 });
    return { context, valid: { ...valid, clusterId: 'cluster-a' } as VoteRequestData };
  }

  function withPartitions(data: VoteRequestData, partitions: VotePartition[]): VoteRequestData {
    return { ...data, topics: data.topics.map((topic) => ({ ...topic, partitions })) };
  }

  function firstPartition(data: VoteRequestData): VotePartition {
    return data.topics[0]?.partitions[0] as VotePartition;
  }

  async function answer(request: VoteRequestData) {
    const { context } = await voter();
    context.deliverRequest(RaftApiKey.VOTE, request, 1);
    await context.poll();
    const [sent] = context.sentResponses(RaftApiKey.VOTE);
    const data = sent?.data as VoteResponseData;
    return { context, data, partition: data.topics[0]?.partitions[0] };
  }

  it('the valid request of these tests is granted (the baseline the others change one field of)', async () => {
    const { valid } = await voter();
    const { partition, context } = await answer(valid);
    expect(partition?.voteGranted).toBe(true);
    context.assertVotedCandidate(2, 1);
  });

  it('another cluster id is INCONSISTENT_CLUSTER_ID without a vote', async () => {
    const { valid } = await voter();
    const { data, context } = await answer({ ...valid, clusterId: 'cluster-b' });
    expect(data.errorCode).toBe(Errors.INCONSISTENT_CLUSTER_ID.code);
    expect(data.topics.flatMap((topic) => topic.partitions).some((each) => each.voteGranted)).toBe(false);
    expect(context.storedElection()?.votedKey).toBeUndefined();
  });

  it.each([
    ['no partition', (valid: VoteRequestData) => withPartitions(valid, [])],
    [
      'partition 1',
      (valid: VoteRequestData) => withPartitions(valid, [{ ...firstPartition(valid), partitionIndex: 1 }]),
    ],
  ])('a request for %s of the topic is INVALID_REQUEST without a vote', async (_name, change) => {
    const { valid } = await voter();
    const { data, context } = await answer(change(valid));
    expect(data.errorCode).toBe(Errors.INVALID_REQUEST.code);
    expect(data.topics.flatMap((topic) => topic.partitions).some((each) => each.voteGranted)).toBe(false);
    expect(context.storedElection()?.votedKey).toBeUndefined();
  });

  it.each([
    ['a negative last offset', { lastOffset: -1n }],
    ['a negative last epoch', { lastOffsetEpoch: -1, lastOffset: 0n }],
    ['a pre-vote whose last epoch is above its epoch', { preVote: true, lastOffsetEpoch: 3 }],
    ['a standard vote whose last epoch is its epoch', { lastOffsetEpoch: 2 }],
  ])('%s is a partition INVALID_REQUEST without a vote', async (_name, fields: Partial<VotePartition>) => {
    const { valid } = await voter();
    const { partition, context } = await answer(
      withPartitions(valid, [{ ...firstPartition(valid), ...fields }]),
    );
    expect(partition?.errorCode).toBe(Errors.INVALID_REQUEST.code);
    expect(partition?.voteGranted).toBe(false);
    expect(context.storedElection()?.votedKey).toBeUndefined();
  });
});

describe('flush before acknowledgement', () => {
  /** A lone-voter leader with two records appended by a bare `client.poll`, not yet flushed. */
  async function leaderWithUnflushedAppend() {
    const context = await RaftClientTestContext.builder(0, [0]).build();
    await context.poll();
    await context.poll();
    expect(context.client.quorumState().isLeader()).toBe(true);
    const committedBefore = context.client.highWatermark() as number;
    context.client.scheduleAppend(context.client.leaderAndEpoch().epoch, [
      Buffer.from('a'),
      Buffer.from('b'),
    ]);
    context.client.poll(context.time.milliseconds());
    expect(context.log.endOffset()).toBe(committedBefore + 2);
    return { context, committedBefore };
  }

  it('the flush target covers every appended record, and the HWM moves only once they are flushed', async () => {
    const { context, committedBefore } = await leaderWithUnflushedAppend();
    expect(context.client.needsFlush()).toBe(true);
    expect(context.client.flushTargetOffset()).toBe(context.log.endOffset());
    expect(context.client.highWatermark()).toBe(committedBefore);
    const flushed = await context.log.flush();
    context.client.onLogFlushed(flushed, context.time.milliseconds());
    expect(context.client.highWatermark()).toBe(context.log.endOffset());
  });

  it('a flushed offset reported beyond what the log made durable does not move the HWM', async () => {
    const { context, committedBefore } = await leaderWithUnflushedAppend();
    context.client.onLogFlushed(context.log.endOffset(), context.time.milliseconds());
    expect(context.client.highWatermark()).toBe(committedBefore);
  });
});

describe('a voter that lost flushed data says once when it votes again', () => {
  /** Info lines (message and fields) of a client, for the operator-facing rejoin message. */
  function infoRecorder(lines: { message: string; fields: object }[]): Logger {
    const ignore = (): void => {};
    const logger: Logger = {
      trace: ignore,
      debug: ignore,
      info: (fields: object, message?: string) => lines.push({ message: message ?? '', fields }),
      warn: ignore,
      error: ignore,
      fatal: ignore,
      child: () => logger,
      isLevelEnabled: () => true,
    };
    return logger;
  }

  it('logs "voting again" with the flushed offset once it flushed past its old recovery point, not before and not twice', async () => {
    const lines: { message: string; fields: object }[] = [];
    const rejoined = () =>
      lines.filter((line) => line.message === 'lost flushed data fetched back: voting again');
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withElectedLeader(1, 1)
      .withLogger(infoRecorder(lines))
      .appendToLog(1, ['a', 'b'])
      .withLogSetup((log) => (log as MockLog).startRecoveringLostData(4))
      .build();
    const log = context.log as MockLog;
    const fetchAndFlush = async (offset: number, values: string[]): Promise<void> => {
      const request = context.assertSentFetchRequest({ epoch: 1, fetchOffset: offset, lastFetchedEpoch: 1 });
      context.deliverResponse(
        request,
        context.fetchResponse({
          epoch: 1,
          leaderId: 1,
          records: recordsOf(offset, 1, values),
          highWatermark: offset + values.length,
        }),
      );
      context.client.poll(context.time.milliseconds());
      log.flushSync();
      context.client.onLogFlushed(log.lastFlushedOffset(), context.time.milliseconds());
      await context.poll();
    };
    await context.poll();
    await fetchAndFlush(2, ['c']);
    expect(context.client.quorumState().isObserver()).toBe(true);
    expect(rejoined()).toHaveLength(0);
    await fetchAndFlush(3, ['d', 'e']);
    expect(context.client.quorumState().isVoter()).toBe(true);
    expect(rejoined()).toEqual([
      { message: 'lost flushed data fetched back: voting again', fields: { flushedOffset: 5 } },
    ]);
    await fetchAndFlush(5, ['f']);
    expect(rejoined()).toHaveLength(1);
  });
});
