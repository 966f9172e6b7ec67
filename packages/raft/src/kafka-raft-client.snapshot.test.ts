import { Errors } from '@kraft/protocol';
import { describe, expect, it, vi } from 'vitest';
import type { MockLog } from '../test/kit/mock-log.js';
import { RaftClientTestContext, recordsOf } from '../test/kit/raft-client-test-context.js';
import { InvalidSnapshotError } from './errors/invalid-snapshot-error.js';
import { RaftApiKey } from './kafka-raft-client.js';
import { FollowerState } from './states/follower-state.js';

/** A lone-voter leader with `values` committed one per batch, and a snapshot at the HWM. */
async function leaderWithSnapshot(values: readonly string[], voters = [0]) {
  const context = await RaftClientTestContext.builder(0, voters).build();
  if (voters.length > 1) await context.becomeLeader();
  const epoch = context.client.leaderAndEpoch().epoch;
  for (const value of values) {
    context.client.scheduleAppend(epoch, [Buffer.from(value)]);
    await context.poll();
  }
  if (voters.length > 1) await context.advanceHighWatermarkAsLeader();
  await context.poll();
  const highWatermark = context.client.highWatermark()!;
  const writer = context.client.createSnapshot({ offset: highWatermark, epoch }, 1234)!;
  writer.append(values.map((value) => Buffer.from(`state:${value}`)));
  writer.freeze();
  const snapshotId = { offset: highWatermark, epoch };
  const snapshotBytes = (context.log.readSnapshot(snapshotId)!.records() as { buffer(): Buffer }).buffer();
  return { context, epoch, snapshotId, snapshotBytes };
}

describe('createSnapshot', () => {
  it('refuses an end offset past the log end', async () => {
    const context = await RaftClientTestContext.builder(0, [0]).build();
    await context.poll();
    expect(() => context.client.createSnapshot({ offset: 5, epoch: 1 }, 0)).toThrow(InvalidSnapshotError);
  });

  it('refuses an end offset above the high watermark but within the log, before asking the log', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    await context.advanceHighWatermarkAsLeader();
    const highWatermark = context.client.highWatermark()!;
    // Uncommitted batches above the high watermark: the id is valid and batch aligned in the log.
    context.client.scheduleAppend(epoch, [Buffer.from('a')]);
    await context.poll();
    context.client.scheduleAppend(epoch, [Buffer.from('b')]);
    await context.poll();
    expect(context.client.highWatermark()).toBe(highWatermark);
    expect(context.log.endOffset()).toBe(highWatermark + 2);
    const createNewSnapshot = vi.spyOn(context.log, 'createNewSnapshot');
    for (const offset of [highWatermark + 1, highWatermark + 2]) {
      expect(context.log.validateOffsetAndEpoch(offset, epoch).kind).toBe('valid');
      expect(() => context.client.createSnapshot({ offset, epoch }, 0)).toThrow(InvalidSnapshotError);
    }
    // The core refuses on its own: the log's own check is never what stops it.
    expect(createNewSnapshot).not.toHaveBeenCalled();
    expect(context.client.createSnapshot({ offset: highWatermark, epoch }, 0)).toBeDefined();
  });

  it('refuses an id whose epoch does not match the log', async () => {
    const context = await RaftClientTestContext.builder(0, [0]).build();
    await context.poll();
    expect(() => context.client.createSnapshot({ offset: 1, epoch: 7 }, 0)).toThrow(InvalidSnapshotError);
  });

  it('refuses an offset inside a batch', async () => {
    const context = await RaftClientTestContext.builder(0, [0]).build();
    await context.poll();
    context.client.scheduleAppend(1, [Buffer.from('a'), Buffer.from('b'), Buffer.from('c')]);
    await context.poll();
    await context.poll();
    expect(context.client.highWatermark()).toBe(4);
    expect(() => context.client.createSnapshot({ offset: 2, epoch: 1 }, 0)).toThrow(/batch boundary/);
  });

  it('writes header, records and footer, and the snapshot becomes the latest', async () => {
    const { context, snapshotId } = await leaderWithSnapshot(['a', 'b']);
    expect(context.client.latestSnapshotId()).toEqual(snapshotId);
    const raw = context.log.readSnapshot(snapshotId)!;
    const { RecordsIterator } = await import('@kraft/records');
    const batches = [...new RecordsIterator(raw.records())];
    expect(batches[0]!.controlRecords[0]!.type).toBe(3);
    expect(batches.at(-1)!.controlRecords[0]!.type).toBe(4);
    expect(batches.flatMap((batch) => batch.records.map((record) => record.value?.toString()))).toEqual([
      'state:a',
      'state:b',
    ]);
    expect(context.client.createSnapshot(snapshotId, 0)).toBeUndefined();
  });
});

describe('snapshots served by the leader', () => {
  it('answers a fetch at offset 0 with the snapshot id when a snapshot exists', async () => {
    const { context, epoch, snapshotId } = await leaderWithSnapshot(['a', 'b'], [0, 1, 2]);
    context.deliverRequest(
      RaftApiKey.FETCH,
      context.fetchRequest({ epoch, replicaId: 1, fetchOffset: 0, lastFetchedEpoch: 0 }),
      1,
    );
    await context.poll();
    const partition = context.assertSentFetchPartitionResponse({ epoch, leaderId: 0 });
    expect([Number(partition.snapshotId.endOffset), partition.snapshotId.epoch]).toEqual([
      snapshotId.offset,
      snapshotId.epoch,
    ]);
  });

  it('answers a fetch below the log start with the snapshot id', async () => {
    const { context, epoch, snapshotId } = await leaderWithSnapshot(['a', 'b'], [0, 1, 2]);
    expect((context.log as unknown as MockLog).deleteBeforeSnapshot(snapshotId)).toBe(true);
    context.deliverRequest(
      RaftApiKey.FETCH,
      context.fetchRequest({ epoch, replicaId: 1, fetchOffset: 1, lastFetchedEpoch: epoch }),
      1,
    );
    await context.poll();
    const partition = context.assertSentFetchPartitionResponse({ epoch, leaderId: 0 });
    expect(Number(partition.snapshotId.endOffset)).toBe(snapshotId.offset);
  });

  it('serves FetchSnapshot in chunks by position', async () => {
    const { context, epoch, snapshotId } = await leaderWithSnapshot(['a', 'b', 'c'], [0, 1, 2]);
    const size = context.log.readSnapshot(snapshotId)!.sizeInBytes();
    const chunks: Buffer[] = [];
    let position = 0;
    while (position < size) {
      context.deliverRequest(
        RaftApiKey.FETCH_SNAPSHOT,
        context.fetchSnapshotRequest({ epoch, replicaId: 1, snapshotId, position, maxBytes: 50 }),
        1,
      );
      await context.poll();
      const partition = context.assertSentFetchSnapshotResponse().topics[0]!.partitions[0]!;
      expect([partition.errorCode, Number(partition.size), Number(partition.position)]).toEqual([
        0,
        size,
        position,
      ]);
      expect(partition.unalignedRecords.length).toBe(Math.min(50, size - position));
      chunks.push(partition.unalignedRecords);
      position += partition.unalignedRecords.length;
    }
    const whole = (context.log.readSnapshot(snapshotId)!.records() as { buffer(): Buffer }).buffer();
    expect(Buffer.concat(chunks).equals(whole)).toBe(true);
  });

  it('answers unknown snapshots and bad positions with their errors', async () => {
    const { context, epoch, snapshotId } = await leaderWithSnapshot(['a'], [0, 1, 2]);
    const size = context.log.readSnapshot(snapshotId)!.sizeInBytes();
    context.deliverRequest(
      RaftApiKey.FETCH_SNAPSHOT,
      context.fetchSnapshotRequest({ epoch, replicaId: 1, snapshotId: { offset: 99, epoch }, position: 0 }),
      1,
    );
    await context.poll();
    expect(context.assertSentFetchSnapshotResponse().topics[0]!.partitions[0]!.errorCode).toBe(
      Errors.SNAPSHOT_NOT_FOUND.code,
    );
    context.deliverRequest(
      RaftApiKey.FETCH_SNAPSHOT,
      context.fetchSnapshotRequest({ epoch, replicaId: 1, snapshotId, position: size }),
      1,
    );
    await context.poll();
    expect(context.assertSentFetchSnapshotResponse().topics[0]!.partitions[0]!.errorCode).toBe(
      Errors.POSITION_OUT_OF_RANGE.code,
    );
  });
});

/**
 * Node `localId` (of voters 0, 1, 2; leader 0) has downloaded leader 0's snapshot of three
 * values, and its freeze is held: the driver has not reported it durable.
 */
async function downloadedAndFreezing(localId: number) {
  const { epoch, snapshotId, snapshotBytes } = await leaderWithSnapshot(['a', 'b', 'c']);
  const context = await RaftClientTestContext.builder(localId, [0, 1, 2]).withElectedLeader(epoch, 0).build();
  await context.startSnapshotDownload(epoch, 0, snapshotId);
  context.holdSnapshotInstalls();
  await context.downloadSnapshot(epoch, 0, snapshotId, snapshotBytes, 40);
  return { context, epoch, snapshotId };
}

describe('snapshots fetched by a follower', () => {
  it('downloads the snapshot the leader names, installs it, and the listener loads it first', async () => {
    const { epoch, snapshotId, snapshotBytes } = await leaderWithSnapshot(['a', 'b', 'c']);
    const context = await RaftClientTestContext.builder(5, [0, 1, 2]).withElectedLeader(epoch, 0).build();
    await context.startSnapshotDownload(epoch, 0, snapshotId);
    await context.downloadSnapshot(epoch, 0, snapshotId, snapshotBytes, 40);
    expect(context.log.startOffset()).toBe(snapshotId.offset);
    expect(context.log.endOffset()).toBe(snapshotId.offset);
    expect(context.client.highWatermark()).toBe(snapshotId.offset);
    expect(context.listener.loadedSnapshots).toEqual([snapshotId]);
    // Then it fetches the log after the snapshot.
    const next = context.assertSentFetchRequest({
      epoch,
      fetchOffset: snapshotId.offset,
      lastFetchedEpoch: epoch,
    });
    context.deliverResponse(
      next,
      context.fetchResponse({
        epoch,
        leaderId: 0,
        highWatermark: snapshotId.offset + 1,
        records: recordsOf(snapshotId.offset, epoch, ['d']),
      }),
    );
    await context.poll();
    await context.poll();
    expect(context.listener.committedValues()).toEqual(['d']);
  });

  it('sends no Fetch and shows nothing of a downloaded snapshot until the driver reports it durable (ADR 0039)', async () => {
    const { context, epoch, snapshotId } = await downloadedAndFreezing(5);
    expect(context.pendingSnapshotInstallCount()).toBe(1);
    // Past every backoff: still no Fetch (it would name the old end, or the snapshot's before it
    // is durable), and the log, the high watermark and the listeners are as before the download.
    for (let round = 0; round < 5; round += 1) {
      context.sleep(RaftClientTestContext.RETRY_BACKOFF_MS * 4);
      await context.poll();
    }
    expect(context.sentRequests(RaftApiKey.FETCH)).toEqual([]);
    expect(context.sentRequests(RaftApiKey.FETCH_SNAPSHOT)).toEqual([]);
    expect([context.log.startOffset(), context.log.endOffset()]).toEqual([0, 0]);
    expect(context.client.highWatermark()).not.toBe(snapshotId.offset);
    expect(context.listener.loadedSnapshots).toEqual([]);
    await context.completeSnapshotInstalls();
    await context.poll();
    expect(context.log.startOffset()).toBe(snapshotId.offset);
    expect(context.listener.loadedSnapshots).toEqual([snapshotId]);
    context.assertSentFetchRequest({ epoch, fetchOffset: snapshotId.offset, lastFetchedEpoch: epoch });
  });

  it('a voter whose freeze outlasts its fetch timeout campaigns on the log it has, then installs at the report', async () => {
    const { context, epoch, snapshotId } = await downloadedAndFreezing(1);
    context.sleep(RaftClientTestContext.FETCH_TIMEOUT_MS);
    await context.poll();
    // The pre-vote names the durable log, not the snapshot still being frozen.
    expect(context.client.quorumState().isProspective()).toBe(true);
    context.assertSentVoteRequests({ epoch, lastEpoch: 0, lastOffset: 0, preVote: true, count: 2 });
    // The report lands in another state: the snapshot (committed records only) is installed all
    // the same, without a follower's high watermark, and no Fetch leaves from a Prospective.
    await context.completeSnapshotInstalls();
    await context.poll();
    expect(context.client.quorumState().isProspective()).toBe(true);
    expect([context.log.startOffset(), context.log.endOffset()]).toEqual([
      snapshotId.offset,
      snapshotId.offset,
    ]);
    expect(context.sentRequests(RaftApiKey.FETCH)).toEqual([]);
    // Its next pre-vote names the installed snapshot.
    context.sleep(RaftClientTestContext.REQUEST_TIMEOUT_MS + RaftClientTestContext.RETRY_BACKOFF_MS);
    await context.poll();
    await context.poll();
    context.assertSentVoteRequests({
      epoch,
      lastEpoch: snapshotId.epoch,
      lastOffset: snapshotId.offset,
      preVote: true,
      count: 2,
    });
  });

  it('an observer that loses its leader mid-freeze sends no discovery Fetch until the report (ADR 0039)', async () => {
    const { context, epoch, snapshotId } = await downloadedAndFreezing(5);
    // A candidate of a newer epoch: the observer forgets the leader (Unattached) and would ask a
    // voter who leads, reporting its fetch offset.
    context.deliverRequest(
      RaftApiKey.VOTE,
      context.voteRequest({ epoch: epoch + 1, candidateId: 1, lastEpoch: epoch, lastOffset: 100 }),
      1,
    );
    for (let round = 0; round < 5; round += 1) {
      context.sleep(RaftClientTestContext.RETRY_BACKOFF_MS * 4);
      await context.poll();
    }
    expect(context.client.quorumState().isUnattached()).toBe(true);
    expect(context.sentRequests(RaftApiKey.FETCH)).toEqual([]);
    await context.completeSnapshotInstalls();
    await context.poll();
    expect(context.log.startOffset()).toBe(snapshotId.offset);
    context.assertSentFetchRequest({
      epoch: epoch + 1,
      fetchOffset: snapshotId.offset,
      lastFetchedEpoch: epoch,
    });
  });

  it('abandons a download the leader no longer has and fetches again', async () => {
    const context = await RaftClientTestContext.builder(1, [0, 1, 2]).withElectedLeader(3, 0).build();
    const snapshotId = { offset: 10, epoch: 3 };
    await context.startSnapshotDownload(3, 0, snapshotId);
    const [request] = context.sentRequests(RaftApiKey.FETCH_SNAPSHOT);
    context.deliverResponse(
      request!,
      context.fetchSnapshotResponse({
        epoch: 3,
        leaderId: 0,
        snapshotId,
        size: 0,
        position: 0,
        bytes: Buffer.alloc(0),
        errorCode: Errors.SNAPSHOT_NOT_FOUND.code,
      }),
    );
    await context.poll();
    context.assertSentFetchRequest({ epoch: 3, fetchOffset: 0, lastFetchedEpoch: 0 });
  });
});

describe('a snapshot download at shutdown', () => {
  it('is closed when the graceful shutdown completes, so no .part file stays open', async () => {
    const context = await RaftClientTestContext.builder(1, [0, 1, 2]).withElectedLeader(3, 0).build();
    await context.startSnapshotDownload(3, 0, { offset: 10, epoch: 3 });
    const follower = context.client.quorumState().state();
    if (!(follower instanceof FollowerState)) throw new Error('not a follower');
    const writer = follower.snapshotDownload();
    if (writer === undefined) throw new Error('the download did not start');
    const close = vi.spyOn(writer, 'close');
    context.client.shutdown(5_000, context.time.milliseconds());
    await context.poll();
    expect(context.client.isShutdownComplete()).toBe(true);
    expect(close).toHaveBeenCalledTimes(1);
    expect(follower.snapshotDownload()).toBeUndefined();
  });
});

describe('installing a snapshot over an uncommitted tail (sim seed 705)', () => {
  it('drops a newer-epoch tail that ends before the snapshot, then installs it', async () => {
    const { snapshotId, snapshotBytes } = await leaderWithSnapshot(['a', 'b', 'c', 'd']);
    expect(snapshotId).toEqual({ offset: 5, epoch: 1 });
    // This follower led epoch 3 with a shorter log: its epoch-3 entries never committed.
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withElectedLeader(4, 1)
      .appendToLog(1, ['a'])
      .appendToLog(3, ['stale', 'tail'])
      .build();
    await context.poll();
    context.answerFetch(
      { epoch: 4, fetchOffset: 3, lastFetchedEpoch: 3 },
      { epoch: 4, leaderId: 1, highWatermark: 5, snapshotId },
    );
    await context.poll();
    await context.downloadSnapshot(4, 1, snapshotId, snapshotBytes);
    expect([context.log.startOffset(), context.log.endOffset(), context.log.lastFetchedEpoch()]).toEqual([
      5, 5, 1,
    ]);
    expect(context.client.highWatermark()).toBe(5);
    expect(context.listener.loadedSnapshots).toEqual([snapshotId]);
  });
});

describe('installing a snapshot that ends exactly at a diverging log end', () => {
  it('drops the diverging entries and installs the snapshot', async () => {
    const { snapshotId, snapshotBytes } = await leaderWithSnapshot(['a', 'b']);
    expect(snapshotId).toEqual({ offset: 3, epoch: 1 });
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withElectedLeader(4, 1)
      .appendToLog(1, ['a'])
      .appendToLog(3, ['x', 'y'])
      .build();
    await context.poll();
    context.answerFetch(
      { epoch: 4, fetchOffset: 3, lastFetchedEpoch: 3 },
      { epoch: 4, leaderId: 1, highWatermark: 3, snapshotId },
    );
    await context.poll();
    await context.downloadSnapshot(4, 1, snapshotId, snapshotBytes);
    expect([context.log.startOffset(), context.log.endOffset(), context.log.lastFetchedEpoch()]).toEqual([
      3, 3, 1,
    ]);
  });
});
