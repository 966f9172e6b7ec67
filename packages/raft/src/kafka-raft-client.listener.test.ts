import { IllegalStateError } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { MockListener, RaftClientTestContext, recordsOf } from '../test/kit/raft-client-test-context.js';
import { RecordsBatchReader } from './internals/records-batch-reader.js';
import { RaftApiKey } from './kafka-raft-client.js';

describe('listeners', () => {
  it('never receive an offset at or above the high watermark', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
    await context.poll();
    const request = context.assertSentFetchRequest({ epoch: 2, fetchOffset: 0, lastFetchedEpoch: 0 });
    const records = Buffer.concat([
      recordsOf(0, 2, ['a', 'b']).buffer(),
      recordsOf(2, 2, ['c']).buffer(),
      recordsOf(3, 2, ['d']).buffer(),
    ]);
    context.deliverResponse(request, {
      ...context.fetchResponse({ epoch: 2, leaderId: 1, highWatermark: 3 }),
      responses: context
        .fetchResponse({ epoch: 2, leaderId: 1, highWatermark: 3 })
        .responses.map((topic) => ({
          ...topic,
          partitions: topic.partitions.map((partition) => ({ ...partition, records })),
        })),
    });
    await context.poll();
    expect(context.log.endOffset()).toBe(4);
    expect(context.client.highWatermark()).toBe(3);
    expect(context.listener.committedValues()).toEqual(['a', 'b', 'c']);
    expect(Math.max(...context.listener.committedBatches.map((batch) => batch.lastOffset))).toBeLessThan(3);
  });

  it('the batch reader guard stops the node if a committed read crosses the high watermark', () => {
    const reader = new RecordsBatchReader({
      baseOffset: 0,
      records: recordsOf(0, 1, ['a', 'b', 'c']),
      highWatermark: 2,
      onClose: () => {},
    });
    expect(() => [...reader]).toThrow(IllegalStateError);
  });

  it('get nothing more until they close the reader they hold', async () => {
    const context = await RaftClientTestContext.builder(0, [0]).build();
    const slow = new MockListener();
    slow.autoClose = false;
    context.client.register(slow);
    await context.poll();
    await context.poll();
    expect(slow.openReaders).toHaveLength(1);
    const epoch = context.client.leaderAndEpoch().epoch;
    context.client.scheduleAppend(epoch, [Buffer.from('x')]);
    await context.poll();
    await context.poll();
    expect(slow.openReaders).toHaveLength(1);
    const first = slow.openReaders[0]!;
    expect([...first].map((batch) => batch.baseOffset)).toEqual([0]);
    first.close();
    await context.poll();
    expect(slow.openReaders).toHaveLength(2);
    expect([...slow.openReaders[1]!].map((batch) => batch.baseOffset)).toEqual([1]);
  });

  it('the new leader’s listener hears of its leadership only after reading up to the epoch start (KAFKA-15345)', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withUnknownLeader(1)
      .appendToLog(1, ['old'])
      .build();
    const epoch = await context.becomeLeader();
    await context.poll();
    expect(context.listener.leaderChanges.some((change) => change.leaderId === 0)).toBe(false);
    await context.advanceHighWatermarkAsLeader();
    await context.poll();
    expect(context.listener.currentLeader()).toEqual({ leaderId: 0, epoch });
    expect(context.listener.lastCommittedOffset()).toBeGreaterThanOrEqual(1);
  });

  it('a resigned leader fires no leader change for its own epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(3, 0).build();
    await context.poll();
    expect(context.listener.leaderChanges).toEqual([]);
  });

  it('learn a follower’s leader once per epoch and only forward in epochs', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(2).build();
    await context.poll();
    context.deliverRequest(RaftApiKey.BEGIN_QUORUM_EPOCH, context.beginEpochRequest(3, 1), 1);
    await context.poll();
    await context.poll();
    expect(context.listener.leaderChanges).toEqual([
      { leaderId: undefined, epoch: 2 },
      { leaderId: 1, epoch: 3 },
    ]);
  });

  it('the leader commits appended records in order and reports commit latency', async () => {
    const context = await RaftClientTestContext.builder(0, [0]).build();
    await context.poll();
    const epoch = context.client.leaderAndEpoch().epoch;
    context.client.scheduleAppend(epoch, [Buffer.from('a'), Buffer.from('b')]);
    const last = context.client.scheduleAppend(epoch, [Buffer.from('c')]);
    expect(last).toBe(3);
    context.sleep(5);
    await context.poll();
    await context.poll();
    expect(context.listener.committedValues()).toEqual(['a', 'b', 'c']);
    const state = context.client.observableState();
    expect(state.highWatermark).toBe(4);
    expect(state.commitLatencyMaxMs).toBe(5);
    expect(state.role).toBe('Leader');
  });
});

describe('listeners behind the log start', () => {
  it('a listener registered after the log start moved loads the latest snapshot first', async () => {
    const context = await RaftClientTestContext.builder(0, [0]).build();
    await context.poll();
    const epoch = context.client.leaderAndEpoch().epoch;
    context.client.scheduleAppend(epoch, [Buffer.from('a')]);
    await context.poll();
    await context.poll();
    const snapshotId = { offset: context.client.highWatermark()!, epoch };
    const writer = context.client.createSnapshot(snapshotId, 0)!;
    writer.append([Buffer.from('state')]);
    writer.freeze();
    expect(
      (
        context.log as unknown as { deleteBeforeSnapshot(id: typeof snapshotId): boolean }
      ).deleteBeforeSnapshot(snapshotId),
    ).toBe(true);
    context.client.scheduleAppend(epoch, [Buffer.from('b')]);
    await context.poll();
    const late = new MockListener();
    context.client.register(late);
    await context.poll();
    await context.poll();
    expect(late.loadedSnapshots).toEqual([snapshotId]);
    expect(late.committedValues()).toEqual(['b']);
    // The early listener was never behind the log start: it never loads a snapshot.
    expect(context.listener.loadedSnapshots).toEqual([]);
    expect(context.listener.committedValues()).toEqual(['a', 'b']);
  });
});
