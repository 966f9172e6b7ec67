import { Errors, type FetchRequestData, type FetchResponseData, KRaftError } from '@kraft/protocol';
import { MemoryRecords, RecordsIterator } from '@kraft/records';
import { describe, expect, it, vi } from 'vitest';
import type { MockLog } from '../test/kit/mock-log.js';
import { RaftClientTestContext, recordsOf } from '../test/kit/raft-client-test-context.js';
import { RaftLogStateError } from './errors/raft-log-state-error.js';
import { RaftApiKey } from './kafka-raft-client.js';
import type { OutboundRequest } from './ports/network-channel.js';
import { singlePartition } from './rpc/raft-messages.js';

const FETCH = RaftApiKey.FETCH;

function offsetsOf(records: Buffer | null): number[] {
  if (records === null) return [];
  return [...new RecordsIterator(MemoryRecords.readableRecords(records))].flatMap((batch) =>
    Array.from({ length: batch.lastOffset - batch.baseOffset + 1 }, (_, index) => batch.baseOffset + index),
  );
}

/**
 * A leader of three voters whose flush covered X (`flushedOffset`) while it appended on to Y
 * (`endOffset`, X + 1); the flush's completion is not reported yet.
 */
async function leaderAppendingDuringFlush() {
  const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
  const epoch = await context.becomeLeader();
  await context.advanceHighWatermarkAsLeader();
  const nowMs = context.time.milliseconds();
  context.client.scheduleAppend(epoch, [Buffer.from('a')]);
  context.client.poll(nowMs);
  const flushedOffset = await context.log.flush();
  context.client.scheduleAppend(epoch, [Buffer.from('b')]);
  context.client.poll(nowMs);
  const endOffset = context.log.endOffset();
  expect(endOffset).toBe(flushedOffset + 1);
  return { context, epoch, nowMs, flushedOffset, endOffset };
}

/** Voter 1 fetches at `fetchOffset`: it holds everything below it. */
function fetchAt(context: RaftClientTestContext, epoch: number, fetchOffset: number): void {
  context.deliverRequest(
    FETCH,
    context.fetchRequest({ epoch, replicaId: 1, fetchOffset, lastFetchedEpoch: epoch }),
    1,
  );
}

describe('Fetch handling by the leader', () => {
  it('advances the high watermark once a majority has the data, past the epoch start', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    await context.poll();
    expect(context.client.highWatermark()).toBeUndefined();
    // A fetch at the epoch start offset proves nothing of this epoch: no HWM yet.
    context.deliverRequest(
      FETCH,
      context.fetchRequest({ epoch, replicaId: 1, fetchOffset: 0, lastFetchedEpoch: 0 }),
      1,
    );
    await context.poll();
    const first = context.assertSentFetchPartitionResponse({ epoch, leaderId: 0 });
    expect(Number(first.highWatermark)).toBe(-1);
    expect(offsetsOf(first.records)).toEqual([0]);
    context.deliverRequest(
      FETCH,
      context.fetchRequest({ epoch, replicaId: 1, fetchOffset: 1, lastFetchedEpoch: epoch }),
      1,
    );
    await context.poll();
    const second = context.assertSentFetchPartitionResponse({ epoch, leaderId: 0 });
    expect(Number(second.highWatermark)).toBe(1);
    expect(context.client.highWatermark()).toBe(1);
  });

  it('counts its own log only once flushed', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    await context.advanceHighWatermarkAsLeader();
    const hwm = context.client.highWatermark()!;
    context.client.scheduleAppend(epoch, [Buffer.from('x')]);
    context.client.poll(context.time.milliseconds());
    expect(context.client.needsFlush()).toBe(true);
    // One follower has it, but the leader has not flushed: no majority of durable copies.
    context.deliverRequest(
      FETCH,
      context.fetchRequest({ epoch, replicaId: 1, fetchOffset: hwm + 1, lastFetchedEpoch: epoch }),
      1,
    );
    context.client.poll(context.time.milliseconds());
    expect(context.client.highWatermark()).toBe(hwm);
    const flushed = await context.log.flush();
    context.client.onLogFlushed(flushed, context.time.milliseconds());
    expect(context.client.highWatermark()).toBe(hwm + 1);
  });

  it('counts only what the flush covered, not what was appended while it ran', async () => {
    const { context, epoch, nowMs, flushedOffset, endOffset } = await leaderAppendingDuringFlush();
    context.client.onLogFlushed(flushedOffset, nowMs);
    // One follower holds Y: with the leader's durable X that is a majority at X only.
    fetchAt(context, epoch, endOffset);
    context.client.poll(nowMs);
    expect(context.client.highWatermark()).toBe(flushedOffset);
  });

  it('a flush report above what the log has made durable counts only the durable part', async () => {
    const { context, epoch, nowMs, flushedOffset, endOffset } = await leaderAppendingDuringFlush();
    // A driver that reports the log end instead of what its flush covered.
    context.client.onLogFlushed(endOffset, nowMs);
    fetchAt(context, epoch, endOffset);
    context.client.poll(nowMs);
    expect(context.log.lastFlushedOffset()).toBe(flushedOffset);
    expect(context.client.highWatermark()).toBe(flushedOffset);
  });

  it('never moves the high watermark backwards when a follower reports a lower offset', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    context.client.scheduleAppend(epoch, [Buffer.from('a'), Buffer.from('b')]);
    await context.poll();
    await context.advanceHighWatermarkAsLeader();
    expect(context.client.highWatermark()).toBe(3);
    context.deliverRequest(
      FETCH,
      context.fetchRequest({ epoch, replicaId: 1, fetchOffset: 1, lastFetchedEpoch: epoch }),
      1,
    );
    context.deliverRequest(
      FETCH,
      context.fetchRequest({ epoch, replicaId: 2, fetchOffset: 1, lastFetchedEpoch: epoch }),
      2,
    );
    await context.poll();
    expect(context.client.highWatermark()).toBe(3);
  });

  it('answers stale, future and misdirected epochs with the right errors', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(3, 1).build();
    context.deliverRequest(
      FETCH,
      context.fetchRequest({ epoch: 2, replicaId: 2, fetchOffset: 0, lastFetchedEpoch: 0 }),
      2,
    );
    await context.poll();
    context.assertSentFetchPartitionResponse({
      errorCode: Errors.FENCED_LEADER_EPOCH.code,
      epoch: 3,
      leaderId: 1,
    });
    context.deliverRequest(
      FETCH,
      context.fetchRequest({ epoch: 4, replicaId: 2, fetchOffset: 0, lastFetchedEpoch: 0 }),
      2,
    );
    await context.poll();
    context.assertSentFetchPartitionResponse({
      errorCode: Errors.UNKNOWN_LEADER_EPOCH.code,
      epoch: 3,
      leaderId: 1,
    });
    context.deliverRequest(
      FETCH,
      context.fetchRequest({ epoch: 3, replicaId: 2, fetchOffset: 0, lastFetchedEpoch: 0 }),
      2,
    );
    await context.poll();
    context.assertSentFetchPartitionResponse({
      errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code,
      epoch: 3,
      leaderId: 1,
    });
  });

  it('rejects a last fetched epoch above the current leader epoch as INVALID_REQUEST', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    context.deliverRequest(
      FETCH,
      context.fetchRequest({ epoch, replicaId: 1, fetchOffset: 0, lastFetchedEpoch: epoch + 1 }),
      1,
    );
    await context.poll();
    context.assertSentFetchPartitionResponse({ errorCode: Errors.INVALID_REQUEST.code, epoch, leaderId: 0 });
  });

  it('tells a diverging follower where its epoch ends', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withUnknownLeader(3)
      .appendToLog(1, ['a', 'b'])
      .appendToLog(3, ['c'])
      .build();
    const epoch = await context.becomeLeader();
    // The follower has epoch 2 entries up to offset 5 that the leader never had.
    context.deliverRequest(
      FETCH,
      context.fetchRequest({ epoch, replicaId: 1, fetchOffset: 5, lastFetchedEpoch: 2 }),
      1,
    );
    await context.poll();
    const partition = context.assertSentFetchPartitionResponse({ epoch, leaderId: 0 });
    expect(partition.divergingEpoch.epoch).toBe(1);
    expect(Number(partition.divergingEpoch.endOffset)).toBe(2);
    expect(offsetsOf(partition.records)).toEqual([]);
  });

  it('answers at once a caught-up follower that knows no high watermark, instead of holding its fetch', async () => {
    const { context, epoch } = await leaderWithCaughtUpFetch({ replicaId: 2, highWatermark: undefined });
    await context.poll();
    const partition = context.assertSentFetchPartitionResponse({ epoch, leaderId: 0 });
    expect(Number(partition.highWatermark)).toBe(context.client.highWatermark());
  });

  it('parks a fetch with no new data until the leader appends', async () => {
    const { context, epoch, end } = await leaderWithCaughtUpFetch();
    await context.poll();
    expect(context.sentResponses(FETCH)).toHaveLength(0);
    context.client.scheduleAppend(epoch, [Buffer.from('new')]);
    await context.poll();
    const partition = context.assertSentFetchPartitionResponse({ epoch, leaderId: 0 });
    expect(offsetsOf(partition.records)).toEqual([end]);
  });

  it('answers a parked fetch with the empty response when its wait expires', async () => {
    const { context, epoch } = await leaderWithCaughtUpFetch();
    await context.poll();
    context.sleep(499);
    await context.poll();
    expect(context.sentResponses(FETCH)).toHaveLength(0);
    context.sleep(1);
    await context.poll();
    const partition = context.assertSentFetchPartitionResponse({ epoch, leaderId: 0 });
    expect(offsetsOf(partition.records)).toEqual([]);
    expect(Number(partition.highWatermark)).toBe(context.client.highWatermark());
  });

  it('parks a caught-up fetch without reading the log and reads it once on completion', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    await context.advanceHighWatermarkAsLeader();
    const end = context.log.endOffset();
    const read = vi.spyOn(context.log, 'read');
    const fetchReadsAtEnd = () =>
      read.mock.calls.filter(([offset, isolation]) => offset === end && isolation === 'uncommitted').length;
    context.deliverRequest(
      FETCH,
      context.fetchRequest({
        epoch,
        replicaId: 1,
        fetchOffset: end,
        lastFetchedEpoch: epoch,
        maxWaitMs: 500,
      }),
      1,
    );
    await context.poll();
    context.sleep(100);
    await context.poll();
    expect(context.sentResponses(FETCH)).toHaveLength(0);
    expect(fetchReadsAtEnd()).toBe(0);
    context.client.scheduleAppend(epoch, [Buffer.from('new')]);
    await context.poll();
    const partition = context.assertSentFetchPartitionResponse({ epoch, leaderId: 0 });
    expect(offsetsOf(partition.records)).toEqual([end]);
    expect(fetchReadsAtEnd()).toBe(1);
  });

  it('answers a parked fetch when another voter moves the high watermark', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2, 3, 4]).build();
    const epoch = await context.becomeLeader();
    await context.advanceHighWatermarkAsLeader();
    const hwm = context.client.highWatermark()!;
    context.client.scheduleAppend(epoch, [Buffer.from('x')]);
    await context.poll();
    const end = context.log.endOffset();
    expect(end).toBe(hwm + 1);
    context.deliverRequest(
      FETCH,
      context.fetchRequest({
        epoch,
        replicaId: 1,
        fetchOffset: end,
        lastFetchedEpoch: epoch,
        maxWaitMs: 500,
      }),
      1,
    );
    await context.poll();
    // The leader and one follower of five: no majority yet, so the fetch waits.
    expect(context.client.highWatermark()).toBe(hwm);
    expect(context.sentResponses(FETCH)).toHaveLength(0);
    context.deliverRequest(
      FETCH,
      context.fetchRequest({ epoch, replicaId: 2, fetchOffset: end, lastFetchedEpoch: epoch }),
      2,
    );
    await context.poll();
    expect(context.client.highWatermark()).toBe(end);
    const responses = context.sentResponses(FETCH);
    expect(responses.map((sent) => sent.request.sourceId).sort()).toEqual([1, 2]);
    for (const sent of responses) {
      const partition = singlePartition((sent.data as FetchResponseData).responses);
      if (partition === undefined) throw new Error('fetch response has no partition');
      expect(Number(partition.highWatermark)).toBe(end);
      expect(offsetsOf(partition.records)).toEqual([]);
    }
  });

  it('tracks observers without letting them move the high watermark', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    await context.poll();
    context.deliverRequest(
      FETCH,
      context.fetchRequest({ epoch, replicaId: 9, fetchOffset: 1, lastFetchedEpoch: epoch }),
      9,
    );
    await context.poll();
    context.assertSentFetchPartitionResponse({ epoch, leaderId: 0 });
    expect(context.client.highWatermark()).toBeUndefined();
    context.deliverRequest(RaftApiKey.DESCRIBE_QUORUM, context.describeQuorumRequest(), -1, 2);
    await context.poll();
    const describe = context.assertSentDescribeQuorumResponse();
    const partition = describe.topics[0]!.partitions[0]!;
    expect(partition.currentVoters.map((voter) => voter.replicaId)).toEqual([0, 1, 2]);
    expect(
      partition.observers.map((observer) => [observer.replicaId, Number(observer.logEndOffset)]),
    ).toEqual([[9, 1]]);
    expect(Number(partition.observers[0]!.lastFetchTimestamp)).toBe(context.time.milliseconds());
  });
});

/**
 * A leader of three voters with its high watermark at its log end, and a Fetch at that end with
 * a 500 ms wait delivered from `replicaId` (by default a follower that knows the high watermark).
 */
async function leaderWithCaughtUpFetch(
  fetch: { replicaId?: number; highWatermark?: number | undefined } = {},
) {
  const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
  const epoch = await context.becomeLeader();
  await context.advanceHighWatermarkAsLeader();
  const end = context.log.endOffset();
  const replicaId = fetch.replicaId ?? 1;
  const known = 'highWatermark' in fetch ? { highWatermark: fetch.highWatermark } : {};
  context.deliverRequest(
    FETCH,
    context.fetchRequest({
      epoch,
      replicaId,
      fetchOffset: end,
      lastFetchedEpoch: epoch,
      maxWaitMs: 500,
      ...known,
    }),
    replicaId,
  );
  return { context, epoch, end };
}

/** The one partition of a Fetch request the client sent. */
function fetchPartitionOf(request: OutboundRequest) {
  const partition = singlePartition((request.data as FetchRequestData).topics);
  if (partition === undefined) throw new Error('fetch request without its partition');
  return partition;
}

describe('Fetch handling by the follower', () => {
  it('says -1 for the high watermark it does not know yet, then the one it learnt (Fetch v18)', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
    await context.poll();
    const first = context.assertSentFetchRequest({ epoch: 2, fetchOffset: 0, lastFetchedEpoch: 0 });
    expect(Number(fetchPartitionOf(first).highWatermark)).toBe(-1);
    context.deliverResponse(
      first,
      context.fetchResponse({
        epoch: 2,
        leaderId: 1,
        records: recordsOf(0, 2, ['a', 'b']),
        highWatermark: 1,
      }),
    );
    await context.poll();
    expect(context.client.highWatermark()).toBe(1);
    await context.poll();
    const second = context.assertSentFetchRequest({ epoch: 2, fetchOffset: 2, lastFetchedEpoch: 2 });
    expect(Number(fetchPartitionOf(second).highWatermark)).toBe(1);
  });

  it('appends fetched records and takes the leader HWM capped at its log end', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
    await context.poll();
    const request = context.assertSentFetchRequest({ epoch: 2, fetchOffset: 0, lastFetchedEpoch: 0 });
    context.deliverResponse(
      request,
      context.fetchResponse({
        epoch: 2,
        leaderId: 1,
        records: recordsOf(0, 2, ['a', 'b']),
        highWatermark: 5,
      }),
    );
    await context.poll();
    expect(context.log.endOffset()).toBe(2);
    expect(context.client.highWatermark()).toBe(2);
    expect(context.listener.committedValues()).toEqual(['a', 'b']);
  });

  it('sends its next fetch only after the appended data is flushed', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
    await context.poll();
    const request = context.assertSentFetchRequest({ epoch: 2, fetchOffset: 0, lastFetchedEpoch: 0 });
    context.deliverResponse(
      request,
      context.fetchResponse({ epoch: 2, leaderId: 1, records: recordsOf(0, 2, ['a']), highWatermark: 0 }),
    );
    context.client.poll(context.time.milliseconds());
    expect(context.client.needsFlush()).toBe(true);
    expect(context.sentRequests(FETCH)).toHaveLength(0);
    (context.log as unknown as MockLog).flushSync();
    context.client.onLogFlushed(1, context.time.milliseconds());
    context.client.poll(context.time.milliseconds());
    context.assertSentFetchRequest({ epoch: 2, fetchOffset: 1, lastFetchedEpoch: 2 });
  });

  it('truncates to the end of the diverging epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withElectedLeader(4, 1)
      .appendToLog(1, ['a', 'b'])
      .appendToLog(2, ['c', 'd'])
      .build();
    await context.poll();
    const request = context.assertSentFetchRequest({ epoch: 4, fetchOffset: 4, lastFetchedEpoch: 2 });
    context.deliverResponse(
      request,
      context.fetchResponse({
        epoch: 4,
        leaderId: 1,
        highWatermark: 0,
        divergingEpoch: { epoch: 1, offset: 2 },
      }),
    );
    await context.poll();
    expect(context.log.endOffset()).toBe(2);
    expect(context.log.lastFetchedEpoch()).toBe(1);
    context.assertSentFetchRequest({ epoch: 4, fetchOffset: 2, lastFetchedEpoch: 1 });
  });

  it('refuses to truncate below its high watermark', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withElectedLeader(4, 1)
      .appendToLog(2, ['a', 'b'])
      .build();
    await context.poll();
    const first = context.assertSentFetchRequest({ epoch: 4, fetchOffset: 2, lastFetchedEpoch: 2 });
    context.deliverResponse(first, context.fetchResponse({ epoch: 4, leaderId: 1, highWatermark: 2 }));
    await context.poll();
    expect(context.client.highWatermark()).toBe(2);
    const second = context.assertSentFetchRequest({ epoch: 4, fetchOffset: 2, lastFetchedEpoch: 2 });
    context.deliverResponse(
      second,
      context.fetchResponse({
        epoch: 4,
        leaderId: 1,
        highWatermark: 2,
        divergingEpoch: { epoch: 1, offset: 0 },
      }),
    );
    await expect(context.poll()).rejects.toBeInstanceOf(RaftLogStateError);
  });

  it('starts a pre-vote when the leader stops answering for the fetch timeout', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
    await context.poll();
    context.sleep(RaftClientTestContext.FETCH_TIMEOUT_MS);
    await context.poll();
    expect(context.client.quorumState().isProspective()).toBe(true);
    expect(context.client.leaderAndEpoch()).toEqual({ leaderId: 1, epoch: 2 });
  });

  it('learns a new leader from a fetch answer naming a higher epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
    await context.poll();
    const request = context.assertSentFetchRequest({ epoch: 2, fetchOffset: 0, lastFetchedEpoch: 0 });
    context.deliverResponse(
      request,
      context.fetchResponse({
        epoch: 3,
        leaderId: 2,
        highWatermark: 0,
        errorCode: Errors.FENCED_LEADER_EPOCH.code,
      }),
    );
    await context.poll();
    context.assertElectedLeader(3, 2);
  });

  it('an observer follows a leader but never campaigns', async () => {
    const context = await RaftClientTestContext.builder(5, [0, 1, 2]).withElectedLeader(2, 1).build();
    expect(context.client.quorumState().isObserver()).toBe(true);
    await context.poll();
    context.assertSentFetchRequest({ epoch: 2, fetchOffset: 0, lastFetchedEpoch: 0 });
    context.sleep(RaftClientTestContext.FETCH_TIMEOUT_MS * 3);
    await context.poll();
    expect(context.client.quorumState().isFollower()).toBe(true);
    expect(context.sentRequests(RaftApiKey.VOTE)).toHaveLength(0);
  });

  it('an unattached observer discovers the leader by fetching from a voter', async () => {
    const context = await RaftClientTestContext.builder(5, [0, 1, 2]).build();
    await context.poll();
    const request = context.sentRequests(FETCH)[0]!;
    context.deliverResponse(
      request,
      context.fetchResponse({
        epoch: 3,
        leaderId: 2,
        highWatermark: 0,
        errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code,
      }),
    );
    await context.poll();
    expect(context.client.leaderAndEpoch()).toEqual({ leaderId: 2, epoch: 3 });
    expect(context.client.quorumState().isFollower()).toBe(true);
  });
});

/** `records`' bytes with the last one flipped: the batch's CRC no longer matches. */
function withCorruptLastByte(records: MemoryRecords): Buffer {
  const bytes = Buffer.from(records.buffer());
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
  return bytes;
}

/**
 * A follower of leader 1 in epoch 2 with an empty log, its first Fetch answered with `records`
 * (handled at the next poll), and a spy on its log's follower appends.
 */
async function followerFetching(records: MemoryRecords, highWatermark: number) {
  const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
  const append = vi.spyOn(context.log, 'appendAsFollower');
  await context.poll();
  context.answerFetch(
    { epoch: 2, fetchOffset: 0, lastFetchedEpoch: 0 },
    { epoch: 2, leaderId: 1, highWatermark, records },
  );
  return { context, append };
}

describe('bad records from the network', () => {
  it('a follower drops a corrupt batch, keeps running and fetches the same offset again', async () => {
    const corrupt = withCorruptLastByte(recordsOf(0, 2, ['a', 'b']));
    const { context, append } = await followerFetching(MemoryRecords.readableRecords(corrupt), 2);
    await context.poll();
    expect(append.mock.results).toMatchObject([
      { type: 'return', value: { kind: 'rejected', reason: 'corrupt' } },
    ]);
    expect(context.log.endOffset()).toBe(0);
    expect(context.client.highWatermark()).toBeUndefined();
    expect(context.client.quorumState().isFollower()).toBe(true);
    context.sleep(RaftClientTestContext.RETRY_BACKOFF_MS);
    await context.poll();
    context.assertSentFetchRequest({ epoch: 2, fetchOffset: 0, lastFetchedEpoch: 0 });
  });

  it.each([
    ['an IO error', new KRaftError('EIO', 'write failed')],
    // Only a returned rejection is bad input: a thrown error stays a failure whatever its code.
    ['a thrown error coded as a corrupt record', new KRaftError('CORRUPT_RECORD', 'thrown, not returned')],
  ])('a follower append that fails with %s stops the poll instead of being dropped', async (_name, error) => {
    const { context, append } = await followerFetching(recordsOf(0, 2, ['a', 'b']), 2);
    append.mockImplementation(() => {
      throw error;
    });
    await expect(context.poll()).rejects.toBe(error);
  });

  it('records that do not start at the log end are rejected the same way', async () => {
    const { context, append } = await followerFetching(recordsOf(5, 2, ['x']), 7);
    await context.poll();
    expect(append.mock.results).toMatchObject([
      { type: 'return', value: { kind: 'rejected', reason: 'invalid' } },
    ]);
    expect(context.log.endOffset()).toBe(0);
  });

  it('a fetch whose second batch is corrupt appends neither batch', async () => {
    const records = Buffer.concat([
      recordsOf(0, 2, ['a', 'b']).buffer(),
      withCorruptLastByte(recordsOf(2, 2, ['c'])),
    ]);
    const { context } = await followerFetching(MemoryRecords.readableRecords(records), 3);
    await context.poll();
    expect(context.log.endOffset()).toBe(0);
    expect(context.client.highWatermark()).toBeUndefined();
  });
});

describe('fetch errors that teach nothing new', () => {
  it('back off before fetching again from a leader that says it is not the leader', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
    await context.poll();
    const request = context.assertSentFetchRequest({ epoch: 2, fetchOffset: 0, lastFetchedEpoch: 0 });
    context.deliverResponse(
      request,
      context.fetchResponse({
        epoch: 2,
        leaderId: 1,
        highWatermark: -1,
        errorCode: Errors.NOT_LEADER_OR_FOLLOWER.code,
      }),
    );
    await context.poll();
    expect(context.sentRequests(FETCH)).toHaveLength(0);
    context.sleep(RaftClientTestContext.RETRY_BACKOFF_MS);
    await context.poll();
    context.assertSentFetchRequest({ epoch: 2, fetchOffset: 0, lastFetchedEpoch: 0 });
  });
});
