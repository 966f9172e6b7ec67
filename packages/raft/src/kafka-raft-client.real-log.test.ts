/**
 * The client over the real `@kraft/log` RaftLog on a MemoryFileSystem, not the MockLog: committed
 * reads go through FileRecords slices of preallocated segments, where KAFKA-20841 lived.
 */
import { LogConfig, RaftLog } from '@kraft/log';
import { MemoryFileSystem, RecordsIterator } from '@kraft/records';
import { describe, expect, it, vi } from 'vitest';
import { RaftClientTestContext, recordsOf } from '../test/kit/raft-client-test-context.js';
import { openKafkaRaftLog } from './io/kafka-raft-log.js';
import { RaftApiKey } from './kafka-raft-client.js';
import type { OutboundRequest } from './ports/network-channel.js';
import type { RaftLog as RaftLogPort } from './ports/raft-log.js';
import { DEFAULT_QUORUM_CONFIG } from './quorum-config.js';

function realLogFactory(segmentBytes = 1 << 20) {
  const fileSystem = new MemoryFileSystem();
  const config = new LogConfig({ internalSegmentBytes: segmentBytes, preallocate: true });
  return () => RaftLog.open({ dir: '/metadata', fileSystem, config, time: () => 0 });
}

/** A follower of leader 1 in epoch 4 whose log holds epoch 1 (offsets 0-1) and epoch 2 (2-3). */
function followerWithDivergentTail(logFactory: () => RaftLogPort): Promise<RaftClientTestContext> {
  return RaftClientTestContext.builder(0, [0, 1, 2])
    .withElectedLeader(4, 1)
    .withLogFactory(logFactory)
    .appendToLog(1, ['a', 'b'])
    .appendToLog(2, ['x', 'y'])
    .build();
}

/** The follower in the divergence exchange, and the fetches it sent that no step answered yet. */
interface DivergenceExchange {
  readonly context: RaftClientTestContext;
  readonly sent: OutboundRequest[];
}

/** One step of the exchange; returns the fetch offset the follower sent after it. */
type DivergenceStep = (exchange: DivergenceExchange) => Promise<number>;

function expectFetch(
  { context, sent }: DivergenceExchange,
  fetchOffset: number,
  lastFetchedEpoch: number,
): number {
  sent.push(context.assertSentFetchRequest({ epoch: 4, fetchOffset, lastFetchedEpoch }));
  return fetchOffset;
}

/** Leader 1 answers the oldest fetch not yet answered, in epoch 4. */
function answerFetch(
  { context, sent }: DivergenceExchange,
  fields: Omit<Parameters<RaftClientTestContext['fetchResponse']>[0], 'epoch' | 'leaderId'>,
): void {
  context.deliverResponse(
    sent.shift() as OutboundRequest,
    context.fetchResponse({ epoch: 4, leaderId: 1, ...fields }),
  );
}

/**
 * The leader says the log diverges at offset 2 (epoch 1 ends there), the follower truncates to 2,
 * then the leader sends epoch 4's offsets 2-3 with the high watermark at 3.
 */
const divergenceSteps: readonly DivergenceStep[] = [
  async (exchange) => {
    await exchange.context.poll();
    return expectFetch(exchange, 4, 2);
  },
  async (exchange) => {
    answerFetch(exchange, { highWatermark: 2, divergingEpoch: { epoch: 1, offset: 2 } });
    await exchange.context.poll();
    expect(exchange.context.log.endOffset()).toBe(2);
    return expectFetch(exchange, 2, 1);
  },
  async (exchange) => {
    answerFetch(exchange, { highWatermark: 3, records: recordsOf(2, 4, ['c', 'd']) });
    await exchange.context.poll();
    await exchange.context.poll();
    expect(exchange.context.log.endOffset()).toBe(4);
    return expectFetch(exchange, 4, 4);
  },
];

/** (offset, epoch) of every record in the log. */
function recordEpochs(log: RaftLogPort): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  const iterator = new RecordsIterator(log.read(log.startOffset(), 'uncommitted').records);
  for (const batch of iterator) {
    for (let offset = batch.baseOffset; offset <= batch.lastOffset; offset += 1)
      found.push([offset, batch.epoch]);
  }
  return found;
}

describe('KafkaRaftClient on the real RaftLog (MemoryFileSystem)', () => {
  it('a lone voter commits appends and its listener sees exactly the committed records', async () => {
    const context = await RaftClientTestContext.builder(0, [0]).withLogFactory(realLogFactory()).build();
    await context.poll();
    const epoch = context.client.leaderAndEpoch().epoch;
    for (let round = 0; round < 20; round += 1) {
      context.client.scheduleAppend(epoch, [Buffer.from(`v${round}`), Buffer.from(`w${round}`)]);
      await context.poll();
    }
    await context.poll();
    expect(context.client.highWatermark()).toBe(41);
    const values = context.listener.committedValues();
    expect(values).toHaveLength(40);
    expect(values.slice(0, 4)).toEqual(['v0', 'w0', 'v1', 'w1']);
    expect(context.listener.lastCommittedOffset()).toBe(40);
  });

  it('the leader listener stops at a high watermark in the middle of a preallocated segment', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withLogFactory(realLogFactory())
      .build();
    const epoch = await context.becomeLeader();
    const big = Buffer.alloc(100_000, 7);
    for (let round = 0; round < 5; round += 1) {
      context.client.scheduleAppend(epoch, [big]);
      await context.poll();
    }
    // Voters 1 and 2 hold offsets below 3 only: the HWM is 3, the log end 6.
    for (const voterId of [1, 2]) {
      context.deliverRequest(
        RaftApiKey.FETCH,
        context.fetchRequest({ epoch, replicaId: voterId, fetchOffset: 3, lastFetchedEpoch: epoch }),
        voterId,
      );
    }
    await context.poll();
    await context.poll();
    expect(context.log.endOffset()).toBe(6);
    expect(context.client.highWatermark()).toBe(3);
    expect(context.listener.lastCommittedOffset()).toBe(2);
    expect(context.listener.committedBatches.every((batch) => batch.lastOffset < 3)).toBe(true);
  });

  it.each([17, 100, 333])(
    'with a %i-byte listener buffer, a committed read spanning many refills stops at the HWM',
    async (readBufferBytes) => {
      const context = await RaftClientTestContext.builder(0, [0, 1, 2])
        .withLogFactory(realLogFactory())
        .withListenerReadBufferBytes(readBufferBytes)
        .build();
      const epoch = await context.becomeLeader();
      // Batches of 1-3 values, some larger than the smaller buffers, then a tail above the HWM.
      for (let round = 0; round < 30; round += 1) {
        const values = Array.from({ length: 1 + (round % 3) }, (_, index) =>
          Buffer.from(`v${round}.${index}`),
        );
        context.client.scheduleAppend(epoch, values);
        await context.poll();
      }
      const highWatermark = context.log.endOffset();
      for (let round = 0; round < 10; round += 1) {
        context.client.scheduleAppend(epoch, [Buffer.from(`uncommitted${round}`)]);
        await context.poll();
      }
      for (const voterId of [1, 2]) {
        context.deliverRequest(
          RaftApiKey.FETCH,
          context.fetchRequest({
            epoch,
            replicaId: voterId,
            fetchOffset: highWatermark,
            lastFetchedEpoch: epoch,
          }),
          voterId,
        );
      }
      await context.poll();
      await context.poll();
      expect(context.client.highWatermark()).toBe(highWatermark);
      expect(context.log.endOffset()).toBe(highWatermark + 10);
      // One committed read of the whole prefix, many times the buffer: every committed value, nothing more.
      expect(context.listener.lastCommittedOffset()).toBe(highWatermark - 1);
      const values = context.listener.committedValues();
      expect(values).toHaveLength(60);
      expect(values.some((value) => value.startsWith('uncommitted'))).toBe(false);
    },
  );

  it('refuses a listener read buffer that is not a positive integer', async () => {
    for (const bytes of [0, -1, 1.5]) {
      await expect(
        RaftClientTestContext.builder(0, [0]).withListenerReadBufferBytes(bytes).build(),
      ).rejects.toThrow(/KafkaRaftClient: listenerReadBufferBytes must be an integer in \[1, /);
    }
  });

  it('a follower appends, truncates on divergence, and never exposes offsets at or above the HWM', async () => {
    const exchange: DivergenceExchange = {
      context: await followerWithDivergentTail(realLogFactory()),
      sent: [],
    };
    for (const step of divergenceSteps) await step(exchange);
    const { context } = exchange;
    expect(context.log.endOffset()).toBe(4);
    expect(context.client.highWatermark()).toBe(3);
    // The batch [2, 3] straddles the HWM, so only [0, 1] is committed for the listener.
    expect(context.listener.committedValues()).toEqual(['a', 'b']);
  });

  it('a follower truncating on divergence never reports an offset above what a power loss then keeps', async () => {
    // ADR 0029: the truncation reaches the files only in the next flush. The fetch offset a Fetch
    // carries (the leader counts it toward the high watermark) must survive a power loss at once.
    // Not preallocated, unlike realLogFactory: a crash keeps exactly the synced bytes.
    const config = new LogConfig({ internalSegmentBytes: 1 << 20 });
    for (let crashAfter = 0; crashAfter <= divergenceSteps.length; crashAfter += 1) {
      const fileSystem = new MemoryFileSystem();
      const openLog = () => openKafkaRaftLog({ dir: '/metadata', fileSystem, config, time: () => 0 });
      const exchange: DivergenceExchange = { context: await followerWithDivergentTail(openLog), sent: [] };
      // The records below the last fetch offset sent, as the log held them when it was sent.
      let reported: Array<[number, number]> = [];
      for (const step of divergenceSteps.slice(0, crashAfter)) {
        const fetchOffset = await step(exchange);
        reported = recordEpochs(exchange.context.log).slice(0, fetchOffset);
      }
      fileSystem.crash();
      expect(recordEpochs(openLog()).slice(0, reported.length)).toEqual(reported);
      if (crashAfter === divergenceSteps.length)
        expect(reported.map(([, epoch]) => epoch)).toEqual([1, 1, 4, 4]);
    }
  });

  it('a leader on the real log serves its snapshot to a fetch at offset 0', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withLogFactory(realLogFactory())
      .build();
    const epoch = await context.becomeLeader();
    context.client.scheduleAppend(epoch, [Buffer.from('a')]);
    await context.poll();
    await context.advanceHighWatermarkAsLeader();
    const snapshotId = { offset: context.client.highWatermark()!, epoch };
    const writer = context.client.createSnapshot(snapshotId, 99)!;
    writer.append([Buffer.from('state')]);
    writer.freeze();
    expect(context.client.latestSnapshotId()).toEqual(snapshotId);
    context.deliverRequest(
      RaftApiKey.FETCH,
      context.fetchRequest({ epoch, replicaId: 1, fetchOffset: 0, lastFetchedEpoch: 0 }),
      1,
    );
    await context.poll();
    const partition = context.assertSentFetchPartitionResponse({ epoch, leaderId: 0 });
    expect(Number(partition.snapshotId.endOffset)).toBe(snapshotId.offset);
    context.deliverRequest(
      RaftApiKey.FETCH_SNAPSHOT,
      context.fetchSnapshotRequest({ epoch, replicaId: 1, snapshotId, position: 0 }),
      1,
    );
    await context.poll();
    const chunk = context.assertSentFetchSnapshotResponse().topics[0]!.partitions[0]!;
    const { MemoryRecords } = await import('@kraft/records');
    const batches = [...new RecordsIterator(MemoryRecords.readableRecords(chunk.unalignedRecords))];
    expect(batches.flatMap((batch) => batch.records.map((record) => record.value?.toString()))).toEqual([
      'state',
    ]);
  });

  it('a follower installs a snapshot into the real log and continues after it', async () => {
    const source = await RaftClientTestContext.builder(0, [0]).withLogFactory(realLogFactory()).build();
    await source.poll();
    const epoch = source.client.leaderAndEpoch().epoch;
    source.client.scheduleAppend(epoch, [Buffer.from('a'), Buffer.from('b')]);
    await source.poll();
    await source.poll();
    const snapshotId = { offset: source.client.highWatermark()!, epoch };
    const writer = source.client.createSnapshot(snapshotId, 5)!;
    writer.append([Buffer.from('state')]);
    writer.freeze();
    const raw = source.log.readSnapshot(snapshotId)!;
    const bytes = Buffer.alloc(raw.sizeInBytes());
    const records = raw.records();
    const { FileRecords } = await import('@kraft/records');
    if (records instanceof FileRecords) records.readInto(bytes, 0);
    else bytes.set(records.buffer());

    const context = await RaftClientTestContext.builder(7, [0, 1, 2])
      .withElectedLeader(epoch, 0)
      .withLogFactory(realLogFactory())
      .build();
    await context.startSnapshotDownload(epoch, 0, snapshotId);
    await context.downloadSnapshot(epoch, 0, snapshotId, bytes);
    expect(context.log.startOffset()).toBe(snapshotId.offset);
    expect(context.listener.loadedSnapshots).toEqual([snapshotId]);
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
        records: recordsOf(snapshotId.offset, epoch, ['c']),
      }),
    );
    await context.poll();
    await context.poll();
    expect(context.listener.committedValues()).toEqual(['c']);
  });

  it('a follower on the real log survives corrupt and misplaced fetched records', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withElectedLeader(2, 1)
      .withLogFactory(realLogFactory())
      .build();
    const append = vi.spyOn(context.log, 'appendAsFollower');
    await context.poll();
    const first = context.assertSentFetchRequest({ epoch: 2, fetchOffset: 0, lastFetchedEpoch: 0 });
    const corrupt = Buffer.from(recordsOf(0, 2, ['a']).buffer());
    corrupt[corrupt.length - 1] = (corrupt[corrupt.length - 1] ?? 0) ^ 0xff;
    const { MemoryRecords } = await import('@kraft/records');
    context.deliverResponse(
      first,
      context.fetchResponse({
        epoch: 2,
        leaderId: 1,
        highWatermark: 1,
        records: MemoryRecords.readableRecords(corrupt),
      }),
    );
    await context.poll();
    expect(context.log.endOffset()).toBe(0);
    context.sleep(RaftClientTestContext.RETRY_BACKOFF_MS);
    await context.poll();
    const second = context.assertSentFetchRequest({ epoch: 2, fetchOffset: 0, lastFetchedEpoch: 0 });
    context.deliverResponse(
      second,
      context.fetchResponse({ epoch: 2, leaderId: 1, highWatermark: 9, records: recordsOf(7, 2, ['x']) }),
    );
    await context.poll();
    expect(context.log.endOffset()).toBe(0);
    expect(append.mock.results.map((result) => result.value)).toMatchObject([
      { kind: 'rejected', reason: 'corrupt' },
      { kind: 'rejected', reason: 'invalid' },
    ]);
  });

  it('installs a fetched snapshot over an uncommitted newer-epoch tail (sim seed 705)', async () => {
    const source = await RaftClientTestContext.builder(0, [0]).build();
    await source.poll();
    for (const value of ['a', 'b', 'c', 'd']) {
      source.client.scheduleAppend(1, [Buffer.from(value)]);
      await source.poll();
    }
    await source.poll();
    const snapshotId = { offset: source.client.highWatermark()!, epoch: 1 };
    const writer = source.client.createSnapshot(snapshotId, 0)!;
    writer.append([Buffer.from('state')]);
    writer.freeze();
    const bytes = (source.log.readSnapshot(snapshotId)!.records() as { buffer(): Buffer }).buffer();
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withElectedLeader(4, 1)
      .withLogFactory(realLogFactory())
      .appendToLog(1, ['a'])
      .appendToLog(3, ['stale', 'tail'])
      .build();
    await context.poll();
    const fetch = context.assertSentFetchRequest({ epoch: 4, fetchOffset: 3, lastFetchedEpoch: 3 });
    context.deliverResponse(
      fetch,
      context.fetchResponse({ epoch: 4, leaderId: 1, highWatermark: 5, snapshotId }),
    );
    await context.poll();
    const [request] = context.sentRequests(RaftApiKey.FETCH_SNAPSHOT);
    context.deliverResponse(
      request!,
      context.fetchSnapshotResponse({
        epoch: 4,
        leaderId: 1,
        snapshotId,
        size: bytes.length,
        position: 0,
        bytes,
      }),
    );
    await context.poll();
    expect([context.log.startOffset(), context.log.endOffset()]).toEqual([5, 5]);
    expect(context.listener.loadedSnapshots).toEqual([snapshotId]);
  });

  it('a restarted voter with snapshots above its high watermark runs retention without an error', async () => {
    const fileSystem = new MemoryFileSystem();
    const config = new LogConfig({ internalSegmentBytes: 1024, preallocate: true, retentionMaxBytes: 1 });
    const logFactory = () => RaftLog.open({ dir: '/metadata', fileSystem, config, time: () => 0 });
    const first = await RaftClientTestContext.builder(0, [0]).withLogFactory(logFactory).build();
    await first.poll();
    for (let round = 0; round < 8; round += 1) {
      first.client.scheduleAppend(1, [Buffer.from(`v${round}`)]);
      await first.poll();
    }
    await first.poll();
    for (const offset of [4, first.client.highWatermark()!]) {
      const writer = first.client.createSnapshot({ offset, epoch: 1 }, 0)!;
      writer.append([Buffer.from(`state-${offset}`)]);
      writer.freeze();
    }
    first.log.close();
    const restarted = await RaftClientTestContext.builder(0, [0, 1, 2]).withLogFactory(logFactory).build();
    expect(restarted.log.highWatermark()).toBeLessThan(4);
    restarted.sleep(DEFAULT_QUORUM_CONFIG.logCleanIntervalMs + 1);
    await restarted.poll();
    expect([restarted.log.startOffset(), restarted.log.earliestSnapshotId()]).toEqual([
      0,
      { offset: 4, epoch: 1 },
    ]);
  });
});
