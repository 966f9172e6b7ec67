import { IllegalStateError, Uuid } from '@kraft/protocol';
import {
  buildSnapshotFooterBatch,
  buildSnapshotHeaderBatch,
  FileRecords,
  FileSystemError,
  MemoryRecords,
} from '@kraft/records';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { appendAsFollowerOrThrow } from '../test/support/follower-append.js';
import {
  dataBatch,
  FailingFileSystem,
  type FileSystemFixture,
  memoryFixture,
  nodeFixture,
  readAll,
  readBatches,
  TEST_NOW_MS,
  testConfig,
} from '../test/support/log-fixtures.js';
import { LEADER_EPOCH_CHECKPOINT_FILE } from './epoch/leader-epoch-checkpoint-file.js';
import {
  InconsistentLogStateError,
  InvalidLogOperationError,
  InvalidRecordError,
  LogCorruptionError,
  OffsetOutOfRangeError,
} from './errors/log-errors.js';
import { readSmallFile } from './files/atomic-file.js';
import { RaftLog } from './raft-log.js';
import type {
  FollowerAppendRejectionReason,
  FollowerAppendResult,
  OffsetAndEpoch,
} from './raft-log-types.js';

function partitionFile(fixture: FileSystemFixture, name: string): string {
  return `${fixture.dir}/__cluster_metadata-0/${name}`;
}

/** Appends `batches` leader batches of `count` records at `epoch`. */
function appendBatches(log: RaftLog, batches: number, epoch: number, count = 2): void {
  for (let index = 0; index < batches; index += 1)
    log.appendAsLeader(dataBatch({ count, valueBytes: 50, prefix: `e${epoch}` }), epoch);
}

/** A follower append refused for `reason`, carrying the log's typed error for it. */
function expectRejected(result: FollowerAppendResult, reason: FollowerAppendRejectionReason): void {
  expect(result).toMatchObject({ kind: 'rejected', reason });
  if (result.kind === 'rejected')
    expect(result.error).toBeInstanceOf(reason === 'corrupt' ? LogCorruptionError : InvalidRecordError);
}

function writeSnapshot(log: RaftLog, id: OffsetAndEpoch, timestamp = 1_700_000_000_000): void {
  const writer = log.createNewSnapshot(id);
  if (writer === undefined) throw new Error('no writer');
  writer.append(
    buildSnapshotHeaderBatch(
      { baseOffset: 0, partitionLeaderEpoch: id.epoch, timestamp },
      { version: 0, lastContainedLogTimestamp: BigInt(timestamp) },
    ),
  );
  writer.append(dataBatch({ baseOffset: 1, epoch: id.epoch, count: 3, prefix: 'snap' }));
  writer.append(
    buildSnapshotFooterBatch({ baseOffset: 4, partitionLeaderEpoch: id.epoch, timestamp }, { version: 0 }),
  );
  writer.freeze();
  writer.close();
}

describe.each([
  ['MemoryFileSystem', memoryFixture],
  ['NodeFileSystem', nodeFixture],
])('RaftLog contract on %s', (_name, makeFixture) => {
  let fixture: FileSystemFixture;
  let log: RaftLog;

  beforeEach(() => {
    fixture = makeFixture();
    log = fixture.open();
  });
  afterEach(() => {
    fixture.cleanup();
  });

  it('starts empty with Kafka file layout', () => {
    expect([log.startOffset(), log.endOffset(), log.highWatermark(), log.lastFetchedEpoch()]).toEqual([
      0, 0, 0, 0,
    ]);
    const names = fixture.fileSystem.list(`${fixture.dir}/__cluster_metadata-0`);
    expect(names).toEqual(
      expect.arrayContaining([
        '00000000000000000000.log',
        '00000000000000000000.index',
        '00000000000000000000.timeindex',
        'partition.metadata',
      ]),
    );
    expect(readSmallFile(fixture.fileSystem, partitionFile(fixture, 'partition.metadata'))?.toString()).toBe(
      'version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ',
    );
    expect(log.topicId.equals(Uuid.METADATA_TOPIC_ID)).toBe(true);
  });

  it('assigns offsets and epochs as leader and reads them back across segments', async () => {
    log.initializeLeaderEpoch(1);
    appendBatches(log, 30, 1, 3);
    log.initializeLeaderEpoch(3);
    const info = log.appendAsLeader(dataBatch({ baseOffset: 999, count: 2 }), 3);
    expect(info).toEqual({ firstOffset: 90, lastOffset: 91 });
    expect(log.endOffset()).toBe(92);
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(2);
    const batches = readAll(log, 'uncommitted');
    expect(batches.map((batch) => batch.baseOffset)).toEqual([
      ...Array.from({ length: 30 }, (_, index) => index * 3),
      90,
    ]);
    expect(batches.at(-1)?.epoch).toBe(3);
    expect(log.lastFetchedEpoch()).toBe(3);
    const checkpoint = (): string | undefined =>
      readSmallFile(fixture.fileSystem, partitionFile(fixture, LEADER_EPOCH_CHECKPOINT_FILE))?.toString();
    // The new epochs reach the checkpoint in the flush, off the event loop (ADR 0033).
    expect(checkpoint()).toBe('0\n0\n');
    await log.flush();
    expect(checkpoint()).toBe('0\n2\n1 0\n3 90\n');
  });

  it('returns at least one batch even when it is larger than maxSizeBytes, and one segment per read', () => {
    appendBatches(log, 20, 0);
    const first = log.read(0, 'uncommitted', 1);
    expect(readBatches(first.records)).toHaveLength(1);
    expect(first.startOffsetMetadata).toEqual({ offset: 0, segmentBaseOffset: 0, relativePositionBytes: 0 });
    const whole = log.read(0, 'uncommitted');
    const secondSegment = log.segmentBaseOffsets()[1] as number;
    expect(readBatches(whole.records).at(-1)?.lastOffset).toBe(secondSegment - 1);
    const mid = log.read(3, 'uncommitted', 1);
    expect(mid.startOffsetMetadata.offset).toBe(2);
  });

  it('ends committed reads exactly at the high watermark and keeps it monotonic', () => {
    appendBatches(log, 10, 0);
    log.updateHighWatermark(8);
    expect(log.highWatermark()).toBe(8);
    const committed = log.read(0, 'committed');
    expect(readBatches(committed.records).at(-1)?.lastOffset).toBe(7);
    expect(committed.records.sizeInBytes()).toBe(log.highWatermarkMetadata().relativePositionBytes);
    log.updateHighWatermark(4);
    expect(log.highWatermark()).toBe(8);
    log.updateHighWatermark(1000);
    expect(log.highWatermark()).toBe(20);
    expect(readBatches(log.read(8, 'committed').records)[0]?.baseOffset).toBe(8);
    expect(log.read(20, 'committed').records.sizeInBytes()).toBe(0);
  });

  it('rejects reads outside the log with a typed error', () => {
    appendBatches(log, 2, 0);
    expect(() => log.read(5, 'uncommitted')).toThrow(OffsetOutOfRangeError);
    expect(() => log.read(-1, 'uncommitted')).toThrow(OffsetOutOfRangeError);
    expect(log.read(4, 'uncommitted').records.sizeInBytes()).toBe(0);
  });

  it('validates follower appends: contiguity, epochs, CRC, partial tails', () => {
    const first = dataBatch({ baseOffset: 0, epoch: 2, count: 2 });
    expect(log.appendAsFollower(first, 2)).toEqual({
      kind: 'appended',
      info: { firstOffset: 0, lastOffset: 1 },
    });
    expectRejected(log.appendAsFollower(dataBatch({ baseOffset: 5, epoch: 2 }), 2), 'invalid');
    expectRejected(log.appendAsFollower(dataBatch({ baseOffset: 2, epoch: 1 }), 2), 'invalid');
    expectRejected(log.appendAsFollower(dataBatch({ baseOffset: 2, epoch: 4 }), 3), 'invalid');
    const corrupt = Buffer.from(dataBatch({ baseOffset: 2, epoch: 2 }).buffer());
    corrupt[corrupt.length - 1] = (corrupt[corrupt.length - 1] as number) ^ 1;
    expectRejected(log.appendAsFollower(MemoryRecords.readableRecords(corrupt), 2), 'corrupt');
    expect([log.endOffset(), log.lastFetchedEpoch()]).toEqual([2, 2]);
    const two = Buffer.concat([
      dataBatch({ baseOffset: 2, epoch: 2 }).buffer(),
      dataBatch({ baseOffset: 3, epoch: 3 }).buffer(),
    ]);
    const partial = two.subarray(0, two.length - 5);
    expect(log.appendAsFollower(MemoryRecords.readableRecords(partial), 3)).toEqual({
      kind: 'appended',
      info: { firstOffset: 2, lastOffset: 2 },
    });
    expect(log.endOffset()).toBe(3);
    expect(log.lastFetchedEpoch()).toBe(2);
    expectRejected(log.appendAsFollower(MemoryRecords.EMPTY, 3), 'invalid');
  });

  it('rejects a fetch whose corrupt batch follows a valid one without appending either', () => {
    const corrupt = Buffer.from(dataBatch({ baseOffset: 2, epoch: 2 }).buffer());
    corrupt[corrupt.length - 1] = (corrupt[corrupt.length - 1] as number) ^ 1;
    const fetched = Buffer.concat([dataBatch({ baseOffset: 0, epoch: 2, count: 2 }).buffer(), corrupt]);
    expectRejected(log.appendAsFollower(MemoryRecords.readableRecords(fetched), 2), 'corrupt');
    expect([log.endOffset(), log.lastFetchedEpoch(), log.lastFlushedOffset()]).toEqual([0, 0, 0]);
    expect(readAll(log, 'uncommitted')).toEqual([]);
  });

  it('accepts FileRecords from a fetch as follower input', () => {
    const path = `${fixture.dir}/fetched.bin`;
    const file = FileRecords.open(path, { fileSystem: fixture.fileSystem });
    file.append(dataBatch({ baseOffset: 0, epoch: 1, count: 4 }));
    expect(log.appendAsFollower(file, 1)).toEqual({
      kind: 'appended',
      info: { firstOffset: 0, lastOffset: 3 },
    });
    file.close();
  });

  it('keeps a slice readable after its segment is deleted, until the next deletion round', () => {
    appendBatches(log, 40, 1);
    const bases = log.segmentBaseOffsets();
    const third = bases[2] as number;
    const slice = log.read(third, 'uncommitted').records;
    const expected = readBatches(slice);
    log.truncateTo(bases[1] as number);
    expect(log.segmentBaseOffsets()).toEqual(bases.slice(0, 2));
    expect(readBatches(slice)).toEqual(expected);
    const kept = readAll(log, 'uncommitted').length;
    appendBatches(log, 40, 1);
    const batches = readAll(log, 'uncommitted');
    expect(batches).toHaveLength(kept + 40);
    expect(batches.every((batch, index) => batch.baseOffset === index * 2)).toBe(true);
  });

  it('refuses leader epochs going backwards and empty appends', () => {
    appendBatches(log, 1, 5);
    expect(() => log.appendAsLeader(dataBatch(), 4)).toThrow(InvalidRecordError);
    expect(() => log.appendAsLeader(MemoryRecords.EMPTY, 5)).toThrow(InvalidRecordError);
  });

  it('truncates, never below the high watermark, and trims the epoch cache', async () => {
    appendBatches(log, 10, 1);
    log.initializeLeaderEpoch(2);
    appendBatches(log, 10, 2);
    expect(await log.flush()).toBe(40);
    expect(log.lastFlushedOffset()).toBe(40);
    log.updateHighWatermark(10);
    expect(() => log.truncateTo(8)).toThrow(InvalidLogOperationError);
    log.truncateTo(14);
    expect(log.endOffset()).toBe(14);
    expect(log.lastFlushedOffset()).toBe(14);
    expect(log.lastFetchedEpoch()).toBe(1);
    expect(log.endOffsetForEpoch(2)).toEqual({ offset: 14, epoch: 1 });
    expect(readAll(log, 'uncommitted').at(-1)?.lastOffset).toBe(13);
    log.appendAsLeader(dataBatch(), 3);
    expect(readAll(log, 'uncommitted').at(-1)).toMatchObject({ baseOffset: 14, epoch: 3 });
  });

  it('lets a truncation overtake a flush in flight without over-reporting durability', async () => {
    appendBatches(log, 40, 1);
    const bases = log.segmentBaseOffsets();
    const flushing = log.flush();
    // Let the flush start and wait on its first fdatasync before the log changes under it.
    await Promise.resolve();
    await Promise.resolve();
    log.truncateTo(bases[1] as number);
    appendBatches(log, 2, 2);
    const reported = await flushing;
    expect(reported === 80 || reported <= (bases[1] as number)).toBe(true);
    expect(log.lastFlushedOffset()).toBeLessThanOrEqual(log.endOffset());
    expect(await log.flush()).toBe(log.endOffset());
  });

  it('answers endOffsetForEpoch and validateOffsetAndEpoch as Kafka does', () => {
    log.initializeLeaderEpoch(1);
    appendBatches(log, 5, 1);
    log.initializeLeaderEpoch(3);
    appendBatches(log, 5, 3);
    expect(log.endOffsetForEpoch(1)).toEqual({ offset: 10, epoch: 1 });
    expect(log.endOffsetForEpoch(2)).toEqual({ offset: 10, epoch: 1 });
    expect(log.endOffsetForEpoch(3)).toEqual({ offset: 20, epoch: 3 });
    expect(log.endOffsetForEpoch(7)).toEqual({ offset: 20, epoch: 3 });
    expect(log.endOffsetForEpoch(0)).toEqual({ offset: 0, epoch: 0 });
    expect(log.validateOffsetAndEpoch(0, 0)).toEqual({ kind: 'valid' });
    expect(log.validateOffsetAndEpoch(8, 1)).toEqual({ kind: 'valid' });
    expect(log.validateOffsetAndEpoch(12, 1)).toEqual({
      kind: 'diverging',
      offsetAndEpoch: { offset: 10, epoch: 1 },
    });
    expect(log.validateOffsetAndEpoch(12, 2)).toEqual({
      kind: 'diverging',
      offsetAndEpoch: { offset: 10, epoch: 1 },
    });
    expect(log.validateOffsetAndEpoch(25, 3)).toEqual({
      kind: 'diverging',
      offsetAndEpoch: { offset: 20, epoch: 3 },
    });
  });

  it('creates, freezes, reads and retires snapshots; moves the log start', () => {
    appendBatches(log, 20, 1);
    log.updateHighWatermark(30);
    expect(() => log.createNewSnapshot({ offset: 32, epoch: 1 })).toThrow(InvalidLogOperationError);
    expect(() => log.createNewSnapshot({ offset: 11, epoch: 1 })).toThrow(InvalidLogOperationError);
    expect(() => log.createNewSnapshot({ offset: 10, epoch: 0 })).toThrow(InvalidLogOperationError);
    writeSnapshot(log, { offset: 10, epoch: 1 });
    writeSnapshot(log, { offset: 24, epoch: 1 });
    expect(log.createNewSnapshot({ offset: 24, epoch: 1 })).toBeUndefined();
    expect(log.earliestSnapshotId()).toEqual({ offset: 10, epoch: 1 });
    expect(log.latestSnapshotId()).toEqual({ offset: 24, epoch: 1 });
    const reader = log.readSnapshot({ offset: 24, epoch: 1 });
    expect(reader?.records().sizeInBytes()).toBe(reader?.sizeInBytes());
    expect(readBatches(reader?.records() as FileRecords).map((batch) => batch.baseOffset)).toEqual([0, 1, 4]);
    expect(reader?.slice(3, 10).sizeInBytes()).toBe(10);
    const segmentsBefore = log.segmentBaseOffsets();
    expect(log.deleteBeforeSnapshot({ offset: 24, epoch: 1 })).toBe(true);
    expect(log.startOffset()).toBe(24);
    expect(log.earliestSnapshotId()).toEqual({ offset: 24, epoch: 1 });
    expect(log.segmentBaseOffsets().length).toBeLessThan(segmentsBefore.length);
    expect(log.segmentBaseOffsets()[0]).toBeLessThanOrEqual(24);
    expect(
      fixture.fileSystem.exists(partitionFile(fixture, '00000000000000000010-0000000001.checkpoint')),
    ).toBe(false);
    expect(log.createNewSnapshot({ offset: 20, epoch: 1 })).toBeUndefined();
    expect(log.validateOffsetAndEpoch(20, 1)).toEqual({
      kind: 'snapshot',
      offsetAndEpoch: { offset: 24, epoch: 1 },
    });
    expect(() => log.read(22, 'uncommitted')).toThrow(OffsetOutOfRangeError);
    expect(readAll(log, 'committed')[0]?.baseOffset).toBe(24);
  });

  it('abandons an unfrozen snapshot and refuses appends after freeze', () => {
    appendBatches(log, 3, 1);
    log.updateHighWatermark(6);
    const writer = log.createNewSnapshot({ offset: 4, epoch: 1 });
    writer?.appendUnaligned(Buffer.from('partial'));
    expect(writer?.sizeInBytes()).toBe(7);
    writer?.close();
    expect(
      fixture.fileSystem.list(`${fixture.dir}/__cluster_metadata-0`).some((name) => name.endsWith('.part')),
    ).toBe(false);
    expect(log.latestSnapshotId()).toBeUndefined();
    const frozen = log.createNewSnapshot({ offset: 4, epoch: 1 });
    frozen?.append(dataBatch({ epoch: 1 }));
    frozen?.freeze();
    expect(frozen?.isFrozen()).toBe(true);
    expect(() => frozen?.append(dataBatch({ epoch: 1 }))).toThrow(IllegalStateError);
    expect(() => frozen?.freeze()).toThrow(IllegalStateError);
    frozen?.close();
    expect(log.latestSnapshotId()).toEqual({ offset: 4, epoch: 1 });
  });

  it('reopens after a clean close with the same state and files', () => {
    log.initializeLeaderEpoch(2);
    appendBatches(log, 25, 2);
    log.updateHighWatermark(50);
    writeSnapshot(log, { offset: 20, epoch: 2 });
    const before = readAll(log, 'uncommitted');
    log.close();
    expect(fixture.fileSystem.exists(partitionFile(fixture, '.kraft_cleanshutdown'))).toBe(true);
    const reopened = fixture.open();
    expect(fixture.fileSystem.exists(partitionFile(fixture, '.kraft_cleanshutdown'))).toBe(false);
    expect(reopened.endOffset()).toBe(50);
    expect(reopened.lastFetchedEpoch()).toBe(2);
    expect(reopened.latestSnapshotId()).toEqual({ offset: 20, epoch: 2 });
    expect(readAll(reopened, 'uncommitted')).toEqual(before);
    reopened.close();
  });

  it('keeps index files byte for byte across a clean restart', () => {
    appendBatches(log, 40, 1);
    log.close();
    const directory = `${fixture.dir}/__cluster_metadata-0`;
    const indexNames = fixture.fileSystem.list(directory).filter((name) => name.endsWith('index'));
    const read = (name: string): string =>
      readSmallFile(fixture.fileSystem, `${directory}/${name}`)?.toString('hex') ?? '';
    const before = indexNames.map(read);
    expect(before.some((hex) => hex.length > 0)).toBe(true);
    fixture.open().close();
    expect(indexNames.map(read)).toEqual(before);
  });

  it('refuses a directory that belongs to another topic id and a negative read size', () => {
    expect(() => log.read(0, 'uncommitted', -1)).toThrow(InvalidLogOperationError);
    log.close();
    expect(() => fixture.open({ topicId: Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A') })).toThrow(
      InconsistentLogStateError,
    );
    fixture.open({ topicId: Uuid.METADATA_TOPIC_ID }).close();
  });

  it('truncates fully to a fetched snapshot that is ahead of the log', () => {
    appendBatches(log, 3, 1);
    const writer = log.createNewSnapshotUnchecked({ offset: 100, epoch: 4 });
    writer?.append(dataBatch({ epoch: 4 }));
    writer?.freeze();
    expect(log.truncateToLatestSnapshot()).toBe(true);
    expect([log.startOffset(), log.endOffset(), log.highWatermark(), log.lastFetchedEpoch()]).toEqual([
      100, 100, 100, 4,
    ]);
    expect(log.segmentBaseOffsets()).toEqual([100]);
    expect(log.validateOffsetAndEpoch(100, 4)).toEqual({ kind: 'valid' });
    appendAsFollowerOrThrow(log, dataBatch({ baseOffset: 100, epoch: 5 }), 5);
    log.close();
    const reopened = fixture.open();
    expect([reopened.startOffset(), reopened.endOffset()]).toEqual([100, 101]);
    reopened.close();
  });

  it('truncates to a fetched snapshot past the log end even under an uncommitted tail of a newer epoch', () => {
    // Sim seed 705: committed up to 4 in epoch 1, then a leader of epoch 3 wrote an uncommitted tail
    // that ends before the snapshot of epoch 2 the new leader sends. Kafka's rule would refuse it.
    appendBatches(log, 2, 1);
    log.updateHighWatermark(4);
    appendBatches(log, 1, 3);
    expect([log.endOffset(), log.lastFetchedEpoch()]).toEqual([6, 3]);
    const writer = log.createNewSnapshotUnchecked({ offset: 10, epoch: 2 });
    writer?.append(dataBatch({ epoch: 2 }));
    writer?.freeze();
    expect(log.truncateToLatestSnapshot()).toBe(true);
    expect([log.startOffset(), log.endOffset(), log.highWatermark(), log.lastFetchedEpoch()]).toEqual([
      10, 10, 10, 2,
    ]);
    expect(log.validateOffsetAndEpoch(10, 2)).toEqual({ kind: 'valid' });
  });

  it('truncates to a fetched snapshot ending exactly at the log end in another epoch', () => {
    appendBatches(log, 1, 1);
    log.updateHighWatermark(2);
    appendBatches(log, 1, 3);
    const writer = log.createNewSnapshotUnchecked({ offset: 4, epoch: 2 });
    writer?.append(dataBatch({ epoch: 2 }));
    writer?.freeze();
    expect(log.truncateToLatestSnapshot()).toBe(true);
    expect([log.startOffset(), log.endOffset(), log.lastFetchedEpoch()]).toEqual([4, 4, 2]);
  });

  it('keeps the log when the latest snapshot is not ahead of it', () => {
    appendBatches(log, 3, 1);
    appendBatches(log, 2, 3);
    log.updateHighWatermark(10);
    // Below the log end from an older epoch, then exactly at the log end in the log's epoch.
    for (const id of [
      { offset: 8, epoch: 2 },
      { offset: 10, epoch: 3 },
    ]) {
      const writer = log.createNewSnapshotUnchecked(id);
      writer?.append(dataBatch({ epoch: id.epoch }));
      writer?.freeze();
      expect(log.truncateToLatestSnapshot()).toBe(false);
      expect([log.startOffset(), log.endOffset(), log.lastFetchedEpoch()]).toEqual([0, 10, 3]);
    }
  });

  it('deletes partial and deleted snapshot files at open and refuses a log start without a snapshot', () => {
    appendBatches(log, 3, 1);
    log.close();
    const directory = `${fixture.dir}/__cluster_metadata-0`;
    for (const name of [
      '00000000000000000002-0000000001-7.checkpoint.part',
      '00000000000000000002-0000000001.checkpoint.deleted',
    ]) {
      const handle = fixture.fileSystem.open(`${directory}/${name}`, { create: true });
      handle.write(Buffer.from('x'), 0);
      handle.close();
    }
    fixture.fileSystem.syncDirectory(directory);
    const reopened = fixture.open();
    expect(fixture.fileSystem.list(directory).filter((name) => name.includes('checkpoint'))).toEqual([
      'leader-epoch-checkpoint',
    ]);
    reopened.close();
    fixture.fileSystem.rename(
      `${directory}/00000000000000000000.log`,
      `${directory}/00000000000000000006.log`,
    );
    fixture.fileSystem.syncDirectory(directory);
    expect(() => fixture.open()).toThrow(InconsistentLogStateError);
  });

  it('removes snapshot files below the log start when it opens', () => {
    appendBatches(log, 20, 1);
    log.updateHighWatermark(40);
    writeSnapshot(log, { offset: 30, epoch: 1 });
    expect(log.deleteBeforeSnapshot({ offset: 30, epoch: 1 })).toBe(true);
    log.close();
    const directory = `${fixture.dir}/__cluster_metadata-0`;
    const stale = `${directory}/00000000000000000010-0000000001.checkpoint`;
    const handle = fixture.fileSystem.open(stale, { create: true });
    handle.write(Buffer.from('stale'), 0);
    handle.close();
    fixture.fileSystem.syncDirectory(directory);
    const reopened = fixture.open();
    expect(fixture.fileSystem.exists(stale)).toBe(false);
    expect([reopened.startOffset(), reopened.earliestSnapshotId()]).toEqual([30, { offset: 30, epoch: 1 }]);
    reopened.close();
  });

  it('cleans by retention bytes and time, always keeping the latest snapshot', () => {
    log.close();
    log = fixture.open({ config: testConfig({ retentionMaxBytes: 1, retentionMs: 1000 }) });
    appendBatches(log, 30, 1);
    log.updateHighWatermark(60);
    writeSnapshot(log, { offset: 20, epoch: 1 }, 1000);
    writeSnapshot(log, { offset: 40, epoch: 1 }, 2000);
    writeSnapshot(log, { offset: 50, epoch: 1 }, 3000);
    expect(log.maybeClean(0)).toBe(true);
    expect(log.earliestSnapshotId()).toEqual({ offset: 50, epoch: 1 });
    expect(log.startOffset()).toBe(50);
    expect(log.maybeClean(1_000_000)).toBe(false);
  });

  it('moves the log start once, straight to the last snapshot retention lets go of', () => {
    log.close();
    log = fixture.open({ config: testConfig({ retentionMaxBytes: 1, retentionMs: -1 }) });
    appendBatches(log, 60, 1);
    log.updateHighWatermark(120);
    for (const offset of [20, 40, 60, 80, 100]) writeSnapshot(log, { offset, epoch: 1 });
    const directorySyncs = vi.spyOn(fixture.fileSystem, 'syncDirectory');
    const renames = vi.spyOn(fixture.fileSystem, 'rename');
    expect(log.maybeClean(0)).toBe(true);
    expect([log.startOffset(), log.earliestSnapshotId()]).toEqual([100, { offset: 100, epoch: 1 }]);
    // One pass's worth of directory syncs whatever the number of snapshots passed: the log-start
    // checkpoint's atomic write, the segment deletion and the snapshot deletion (one each; the
    // epoch checkpoint's change waits for the next flush). Step by step, four snapshots cost four
    // times that.
    expect(renames.mock.calls.filter(([, to]) => to.endsWith('log-start-offset-checkpoint'))).toHaveLength(1);
    expect(directorySyncs).toHaveBeenCalledTimes(3);
  });

  it('skips retention for snapshots above the high watermark (after a restart) instead of throwing', () => {
    log.close();
    const config = testConfig({ retentionMaxBytes: 1, retentionMs: -1 });
    log = fixture.open({ config });
    appendBatches(log, 30, 1);
    log.updateHighWatermark(60);
    writeSnapshot(log, { offset: 20, epoch: 1 });
    writeSnapshot(log, { offset: 40, epoch: 1 });
    log.close();
    log = fixture.open({ config });
    expect(log.highWatermark()).toBeLessThan(40);
    expect(log.deleteBeforeSnapshot({ offset: 40, epoch: 1 })).toBe(false);
    expect(log.maybeClean(0)).toBe(false);
    expect([log.startOffset(), log.earliestSnapshotId()]).toEqual([0, { offset: 20, epoch: 1 }]);
    log.updateHighWatermark(40);
    expect(log.maybeClean(0)).toBe(true);
    expect([log.startOffset(), log.earliestSnapshotId()]).toEqual([40, { offset: 40, epoch: 1 }]);
  });

  it('cleans by time alone when bytes allow', () => {
    log.close();
    log = fixture.open({ config: testConfig({ retentionMaxBytes: -1, retentionMs: 1000 }) });
    appendBatches(log, 30, 1);
    log.updateHighWatermark(60);
    writeSnapshot(log, { offset: 20, epoch: 1 }, 1000);
    writeSnapshot(log, { offset: 40, epoch: 1 }, 5000);
    expect(log.maybeClean(1500)).toBe(false);
    expect(log.maybeClean(2500)).toBe(true);
    expect(log.startOffset()).toBe(40);
  });

  it('a clean with a single snapshot touches no file', () => {
    log.close();
    const config = testConfig({ retentionMaxBytes: 1, retentionMs: 0 });
    log = fixture.open({ config });
    appendBatches(log, 30, 1);
    log.updateHighWatermark(60);
    writeSnapshot(log, { offset: 20, epoch: 1 }, 1000);
    log.close();
    log = fixture.open({ config });
    const directory = `${fixture.dir}/__cluster_metadata-0`;
    const filesBefore = fixture.fileSystem.list(directory).sort();
    const touched = [
      vi.spyOn(fixture.fileSystem, 'open'),
      vi.spyOn(fixture.fileSystem, 'exists'),
      vi.spyOn(fixture.fileSystem, 'rename'),
      vi.spyOn(fixture.fileSystem, 'syncDirectory'),
    ];
    expect(log.maybeClean(1_000_000)).toBe(false);
    expect(touched.map((spy) => spy.mock.calls.length)).toEqual([0, 0, 0, 0]);
    expect(fixture.fileSystem.list(directory).sort()).toEqual(filesBefore);
    expect([log.startOffset(), log.earliestSnapshotId()]).toEqual([0, { offset: 20, epoch: 1 }]);
  });

  it('reads a snapshot header timestamp once across cleaning passes', () => {
    log.close();
    log = fixture.open({ config: testConfig({ retentionMaxBytes: -1, retentionMs: 1000 }) });
    appendBatches(log, 30, 1);
    log.updateHighWatermark(60);
    writeSnapshot(log, { offset: 20, epoch: 1 }, 1000);
    writeSnapshot(log, { offset: 40, epoch: 1 }, 5000);
    const reader = log.readSnapshot({ offset: 20, epoch: 1 });
    if (reader === undefined) throw new Error('no snapshot reader');
    const records = vi.spyOn(reader, 'records');
    expect(log.maybeClean(1500)).toBe(false);
    expect(log.maybeClean(1900)).toBe(false);
    expect(records).toHaveBeenCalledTimes(1);
    expect(log.maybeClean(2500)).toBe(true);
    expect(log.startOffset()).toBe(40);
  });

  it('rolls segments by age with the injected clock', () => {
    log.close();
    let now = 0;
    log = fixture.open({
      config: testConfig({ internalSegmentBytes: 1 << 20, segmentMs: 100 }),
      time: () => now,
    });
    log.appendAsLeader(dataBatch({ timestamp: 0 }), 0);
    now = 50;
    log.appendAsLeader(dataBatch({ timestamp: 50 }), 0);
    expect(log.segmentBaseOffsets()).toEqual([0]);
    now = 200;
    log.appendAsLeader(dataBatch({ timestamp: 200 }), 0);
    expect(log.segmentBaseOffsets()).toEqual([0, 2]);
  });

  it('preallocates segments when configured and trims them on roll and close', () => {
    log.close();
    log = fixture.open({
      config: testConfig({ internalSegmentBytes: 8192, preallocate: true }),
      topicPartition: 'prealloc-0',
    });
    const path = `${fixture.dir}/prealloc-0/00000000000000000000.log`;
    const size = (): number => {
      const handle = fixture.fileSystem.open(path, { readOnly: true });
      const bytes = handle.size();
      handle.close();
      return bytes;
    };
    expect(size()).toBe(8192);
    appendBatches(log, 3, 0);
    expect(size()).toBe(8192);
    log.roll();
    expect(size()).toBe(log.read(0, 'uncommitted').records.sizeInBytes());
    appendBatches(log, 2, 0);
    log.close();
    const reopened = fixture.open({ topicPartition: 'prealloc-0' });
    expect(reopened.endOffset()).toBe(10);
    reopened.close();
  });

  it('rebuilds a missing leader-epoch-checkpoint from the batches', () => {
    log.initializeLeaderEpoch(1);
    appendBatches(log, 4, 1);
    log.initializeLeaderEpoch(4);
    appendBatches(log, 4, 4);
    log.close();
    fixture.fileSystem.unlink(partitionFile(fixture, LEADER_EPOCH_CHECKPOINT_FILE));
    const reopened = fixture.open();
    expect(reopened.endOffsetForEpoch(1)).toEqual({ offset: 8, epoch: 1 });
    expect(
      readSmallFile(fixture.fileSystem, partitionFile(fixture, LEADER_EPOCH_CHECKPOINT_FILE))?.toString(),
    ).toBe('0\n2\n1 0\n4 8\n');
    reopened.close();
  });
});

describe('RaftLog.appendAsFollower beyond bad input', () => {
  it('throws an IO failure instead of reporting it as a rejection', () => {
    // Count the mutations opening costs, then fail the first one after it: the append's write.
    const counting = new FailingFileSystem(memoryFixture().fileSystem, 0);
    const dir = '/data/metadata';
    counting.mkdir(dir);
    const opened = RaftLog.open({ dir, fileSystem: counting, config: testConfig(), time: () => TEST_NOW_MS });
    const mutationsToOpen = counting.mutations;
    opened.close();
    const failing = new FailingFileSystem(memoryFixture().fileSystem, mutationsToOpen + 1);
    const log = RaftLog.open({ dir, fileSystem: failing, config: testConfig(), time: () => TEST_NOW_MS });
    expect(() => log.appendAsFollower(dataBatch({ baseOffset: 0, epoch: 1 }), 1)).toThrow(FileSystemError);
  });
});
