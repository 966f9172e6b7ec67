import type { Logger } from '@kraft/protocol';
import { MemoryFileSystem, MemoryRecords } from '@kraft/records';
import { describe, expect, it, vi } from 'vitest';
import { appendAsFollowerOrThrow } from '../test/support/follower-append.js';
import {
  captureFiles,
  dataBatch,
  type LogLine,
  readAll,
  recordingLogger,
  SyncHookFileSystem,
  TEST_NOW_MS,
  testConfig,
} from '../test/support/log-fixtures.js';
import {
  LEADER_EPOCH_CHECKPOINT_FILE,
  parseLeaderEpochCheckpoint,
} from './epoch/leader-epoch-checkpoint-file.js';
import { InvalidLogOperationError } from './errors/log-errors.js';
import { RECOVERY_POINT_OFFSET_CHECKPOINT_FILE } from './files/recovery-point-checkpoint-file.js';
import { RaftLog } from './raft-log.js';

const DIR = '/data/metadata';

function open(fileSystem: MemoryFileSystem | SyncHookFileSystem, logger?: Logger): RaftLog {
  return RaftLog.open({
    dir: DIR,
    fileSystem,
    config: testConfig(),
    time: () => TEST_NOW_MS,
    ...(logger === undefined ? {} : { logger }),
  });
}

/** 20 flushed two-record batches: ten in epoch 1 (offsets 0-19), ten in epoch 2 (20-39). */
async function flushedLog(logger?: Logger): Promise<{
  fileSystem: MemoryFileSystem;
  hooks: SyncHookFileSystem;
  log: RaftLog;
}> {
  const fileSystem = new MemoryFileSystem();
  fileSystem.mkdir(DIR);
  const hooks = new SyncHookFileSystem(fileSystem);
  const log = open(hooks, logger);
  for (let index = 0; index < 20; index += 1)
    log.appendAsLeader(dataBatch({ count: 2, valueBytes: 40 }), index < 10 ? 1 : 2);
  await log.flush();
  await log.recoveryPointSettled();
  return { fileSystem, hooks, log };
}

function appendEpoch3(log: RaftLog, from: number, to: number): void {
  for (let offset = from; offset < to; offset += 2)
    appendAsFollowerOrThrow(log, dataBatch({ baseOffset: offset, epoch: 3, count: 2 }), 3);
}

describe('a truncation deferred to the next flush (ADR 0029)', () => {
  it('shows the cut at once but changes no file and syncs nothing until the flush', async () => {
    const { fileSystem, log } = await flushedLog();
    const before = dataFiles(fileSystem);
    const syncs = fileSystem.syncCount;
    log.truncateTo(24);
    appendEpoch3(log, 24, 30);
    expect(fileSystem.syncCount).toBe(syncs);
    expect(dataFiles(fileSystem)).toEqual(before);
    expect([log.endOffset(), log.lastFlushedOffset(), log.lastFetchedEpoch()]).toEqual([30, 24, 3]);
    const batches = readAll(log, 'uncommitted');
    expect(batches.map((batch) => [batch.baseOffset, batch.epoch]).slice(11)).toEqual([
      [22, 2],
      [24, 3],
      [26, 3],
      [28, 3],
    ]);
    expect(await log.flush()).toBe(30);
    expect(dataFiles(fileSystem)).not.toEqual(before);
    log.close();
    expect(readAll(open(fileSystem), 'uncommitted').at(-1)).toMatchObject({ baseOffset: 28, epoch: 3 });
  });

  it('truncates inside the held appends, keeping the whole batches below the cut', async () => {
    const { fileSystem, log } = await flushedLog();
    log.truncateTo(24);
    appendAsFollowerOrThrow(
      log,
      // One append of three batches: 24-25, 26-27, 28-29.
      concat([24, 26, 28].map((offset) => dataBatch({ baseOffset: offset, epoch: 3, count: 2 }))),
      3,
    );
    log.truncateTo(28);
    expect(log.endOffset()).toBe(28);
    appendEpoch3(log, 28, 32);
    expect(
      readAll(log, 'uncommitted')
        .map((batch) => batch.baseOffset)
        .slice(12),
    ).toEqual([24, 26, 28, 30]);
    expect(await log.flush()).toBe(32);
    log.close();
    expect(
      readAll(open(fileSystem), 'uncommitted')
        .map((batch) => batch.baseOffset)
        .slice(12),
    ).toEqual([24, 26, 28, 30]);
  });

  it('truncates again below the first cut before the flush, and the flush cuts at the lower one', async () => {
    const { fileSystem, log } = await flushedLog();
    log.truncateTo(30);
    appendEpoch3(log, 30, 34);
    log.updateHighWatermark(10);
    log.truncateTo(16);
    expect([log.endOffset(), log.lastFlushedOffset(), log.lastFetchedEpoch()]).toEqual([16, 16, 1]);
    appendEpoch3(log, 16, 20);
    expect(await log.flush()).toBe(20);
    log.close();
    const reopened = open(fileSystem);
    expect(reopened.endOffset()).toBe(20);
    expect(readAll(reopened, 'uncommitted').slice(-2)).toMatchObject([{ epoch: 3 }, { epoch: 3 }]);
  });

  it('serves committed reads of held appends only up to the high watermark', async () => {
    const { log } = await flushedLog();
    log.truncateTo(24);
    appendEpoch3(log, 24, 30);
    log.updateHighWatermark(28);
    expect(readAll(log, 'committed').at(-1)?.baseOffset).toBe(26);
    const read = log.read(24, 'committed');
    expect(read.startOffsetMetadata.offset).toBe(24);
  });

  it('keeps a held append intact when the caller reuses its buffer', async () => {
    const { fileSystem, log } = await flushedLog();
    log.truncateTo(24);
    const records = dataBatch({ baseOffset: 24, epoch: 3, count: 2 });
    appendAsFollowerOrThrow(log, records, 3);
    records.buffer().fill(0);
    expect(await log.flush()).toBe(26);
    log.close();
    expect(readAll(open(fileSystem), 'uncommitted').at(-1)).toMatchObject({ baseOffset: 24, epoch: 3 });
  });

  it('makes the cut durable on close without a flush', async () => {
    const { fileSystem, log } = await flushedLog();
    log.truncateTo(24);
    appendEpoch3(log, 24, 26);
    log.close();
    fileSystem.crash();
    const reopened = open(fileSystem);
    expect([reopened.endOffset(), reopened.lastFetchedEpoch()]).toEqual([26, 3]);
  });

  it('makes the truncation durable at once when the held appends pass their 64 MiB bound', async () => {
    const lines: LogLine[] = [];
    const { fileSystem, log } = await flushedLog(recordingLogger(lines));
    log.truncateTo(24);
    const syncs = fileSystem.syncCount;
    for (let offset = 24; offset < 94; offset += 1)
      appendAsFollowerOrThrow(log, dataBatch({ baseOffset: offset, epoch: 3, valueBytes: 1024 * 1024 }), 3);
    expect(lines.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
      'appends held behind a truncation exceed their bound: making the truncation durable now',
    ]);
    // Lowering the recovery point and writing the epoch checkpoint: no flush asked for either.
    expect(fileSystem.syncCount).toBeGreaterThan(syncs);
    expect(await log.flush()).toBe(94);
    fileSystem.crash();
    const reopened = open(fileSystem);
    expect([reopened.endOffset(), reopened.lastFetchedEpoch()]).toEqual([94, 3]);
    expect(readAll(reopened, 'uncommitted').filter((batch) => batch.epoch === 2)).toHaveLength(2);
  });

  it.each<{ epochs: string; change: (log: RaftLog) => void; snapshotId: { offset: number; epoch: number } }>([
    {
      epochs: 'the held epochs',
      change: (log) => {
        log.truncateTo(12);
        appendEpoch3(log, 12, 16);
      },
      snapshotId: { offset: 40, epoch: 3 },
    },
    {
      epochs: 'a new epoch (ADR 0033)',
      change: (log) => {
        log.initializeLeaderEpoch(3);
        log.appendAsLeader(dataBatch({ count: 2 }), 3);
      },
      snapshotId: { offset: 60, epoch: 4 },
    },
  ])(
    'installs a snapshot while the flush writes $epochs, and the flush still succeeds',
    async ({ change, snapshotId }) => {
      const { fileSystem, hooks, log } = await flushedLog();
      log.updateHighWatermark(12);
      change(log);
      fetchedSnapshot(log, snapshotId.offset, snapshotId.epoch);
      // The snapshot install lands inside the flush's epoch write: the flush reports no more than
      // the snapshot offset, and the next flush writes the install's files (ADR 0036), the now
      // empty epoch checkpoint through the same `.tmp`.
      hooks.onNextSyncAsync(`${LEADER_EPOCH_CHECKPOINT_FILE}.tmp`, () => {
        expect(log.truncateToLatestSnapshot()).toBe(true);
      });
      expect(await log.flush()).toBe(snapshotId.offset);
      expect(await log.flush()).toBe(snapshotId.offset);
      expect(epochCheckpointOnDisk(fileSystem)).toEqual([]);
      fileSystem.crash();
      const reopened = open(fileSystem);
      expect([reopened.startOffset(), reopened.endOffset(), reopened.lastFetchedEpoch()]).toEqual([
        snapshotId.offset,
        snapshotId.offset,
        snapshotId.epoch,
      ]);
    },
  );

  it('writes the epochs again once a snapshot installed over a pending truncation', async () => {
    const { fileSystem, log } = await flushedLog();
    log.truncateTo(24);
    appendEpoch3(log, 24, 30);
    fetchedSnapshot(log, 40, 3);
    expect(log.truncateToLatestSnapshot()).toBe(true);
    appendAsFollowerOrThrow(log, dataBatch({ baseOffset: 40, epoch: 4, count: 2 }), 4);
    expect(await log.flush()).toBe(42);
    fileSystem.crash();
    expect(epochCheckpointOnDisk(fileSystem)).toEqual([{ epoch: 4, startOffset: 40 }]);
    const reopened = open(fileSystem);
    expect([reopened.startOffset(), reopened.endOffset(), reopened.lastFetchedEpoch()]).toEqual([40, 42, 4]);
  });
});

describe('a new epoch outside a truncation reaches the checkpoint in the next flush (ADR 0033)', () => {
  it('shows the epoch at once and touches no file until the flush writes it, then the batches', async () => {
    const { fileSystem, log } = await flushedLog();
    const syncs = fileSystem.syncCount;
    const renames = vi.spyOn(fileSystem, 'rename');
    const directorySyncs = vi.spyOn(fileSystem, 'syncDirectory');
    log.initializeLeaderEpoch(3);
    log.appendAsLeader(dataBatch({ count: 2 }), 3);
    appendAsFollowerOrThrow(log, dataBatch({ baseOffset: 42, epoch: 4, count: 2 }), 4);
    expect([fileSystem.syncCount, renames.mock.calls.length, directorySyncs.mock.calls.length]).toEqual([
      syncs,
      0,
      0,
    ]);
    expect([log.endOffset(), log.lastFlushedOffset(), log.lastFetchedEpoch()]).toEqual([44, 40, 4]);
    expect([log.endOffsetForEpoch(2), log.endOffsetForEpoch(3)]).toEqual([
      { offset: 40, epoch: 2 },
      { offset: 42, epoch: 3 },
    ]);
    const onDisk = [
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 20 },
    ];
    expect(epochCheckpointOnDisk(fileSystem)).toEqual(onDisk);
    expect(await log.flush()).toBe(44);
    expect(epochCheckpointOnDisk(fileSystem)).toEqual([
      ...onDisk,
      { epoch: 3, startOffset: 40 },
      { epoch: 4, startOffset: 42 },
    ]);
  });
});

/** Freezes an (unchecked) snapshot at `offset` in `epoch`, as a follower does with a fetched one. */
function fetchedSnapshot(log: RaftLog, offset: number, epoch: number): void {
  const writer = log.createNewSnapshotUnchecked({ offset, epoch });
  writer?.append(dataBatch({ epoch, count: 3 }));
  writer?.freeze();
}

function epochCheckpointOnDisk(fileSystem: MemoryFileSystem): Array<{ epoch: number; startOffset: number }> {
  const path = `${DIR}/__cluster_metadata-0/${LEADER_EPOCH_CHECKPOINT_FILE}`;
  return parseLeaderEpochCheckpoint(fileSystem.readFile(path).toString('utf8'));
}

/** The log files and checkpoints (indexes are rebuilt by recovery, so their bytes may change early). */
function dataFiles(fileSystem: MemoryFileSystem): Map<string, Buffer> {
  const files = captureFiles(fileSystem, DIR);
  for (const path of files.keys()) if (/\.(time)?index$/.test(path)) files.delete(path);
  return files;
}

function concat(parts: readonly MemoryRecords[]): MemoryRecords {
  return MemoryRecords.readableRecords(Buffer.concat(parts.map((part) => part.buffer())));
}

describe('a full truncation (a snapshot installed ahead of the log) deferred to the next flush (ADR 0036)', () => {
  it('shows the empty log at the snapshot at once, holds appends, and changes no log file until the flush', async () => {
    const { fileSystem, log } = await flushedLog();
    log.truncateTo(30);
    appendEpoch3(log, 30, 34);
    fetchedSnapshot(log, 100, 4);
    const before = segmentFilesAndCheckpoints(fileSystem);
    const unlinks = vi.spyOn(fileSystem, 'unlink');
    expect(log.truncateToLatestSnapshot()).toBe(true);
    // Only the older snapshot's file goes now: no segment, recovery point or epoch checkpoint changes.
    expect(unlinks.mock.calls.map(([path]) => path).filter((path) => !path.endsWith('.deleted'))).toEqual([]);
    expect(segmentFilesAndCheckpoints(fileSystem)).toEqual(before);
    expect([log.startOffset(), log.endOffset(), log.highWatermark(), log.lastFlushedOffset()]).toEqual([
      100, 100, 100, 100,
    ]);
    expect([log.lastFetchedEpoch(), log.segmentBaseOffsets(), log.sizeInBytes()]).toEqual([4, [100], 0]);
    expect(log.read(100, 'uncommitted').records.sizeInBytes()).toBe(0);
    expect(log.highWatermarkMetadata()).toEqual({
      offset: 100,
      segmentBaseOffset: 100,
      relativePositionBytes: 0,
    });
    expect(log.validateOffsetAndEpoch(100, 4)).toEqual({ kind: 'valid' });
    appendEpoch4At100(log);
    expect(readAll(log, 'uncommitted').map((batch) => [batch.baseOffset, batch.epoch])).toEqual([
      [100, 4],
      [102, 4],
    ]);
    expect(log.read(102, 'uncommitted').startOffsetMetadata).toEqual({
      offset: 102,
      segmentBaseOffset: 100,
      relativePositionBytes: log.read(100, 'uncommitted', 1).records.sizeInBytes(),
    });
    expect(segmentFilesAndCheckpoints(fileSystem)).toEqual(before);
    expect(await log.flush()).toBe(104);
    await log.recoveryPointSettled();
    const after = segmentFilesAndCheckpoints(fileSystem);
    expect([...after.keys()].filter((path) => path.endsWith('.log'))).toEqual([
      `${DIR}/__cluster_metadata-0/00000000000000000100.log`,
    ]);
    expect(epochCheckpointOnDisk(fileSystem)).toEqual([{ epoch: 4, startOffset: 100 }]);
    expect(after.get(`${DIR}/recovery-point-offset-checkpoint`)?.toString('utf8')).toContain(
      '__cluster_metadata 0 104',
    );
    fileSystem.crash();
    expect(readAll(open(fileSystem), 'uncommitted').map((batch) => batch.baseOffset)).toEqual([100, 102]);
  });

  it('creates the new segment only after unlinking the old one of the same name', async () => {
    const { fileSystem, log } = await flushedLog();
    const second = log.segmentBaseOffsets()[1] as number;
    expect(second).toBeGreaterThan(0);
    fetchedSnapshot(log, second, 4);
    expect(log.truncateToLatestSnapshot()).toBe(true);
    log.appendAsFollower(dataBatch({ baseOffset: second, epoch: 4, count: 2, prefix: 'new' }), 4);
    // The old segment's file still holds the old batches at that offset until the flush.
    const path = `${DIR}/__cluster_metadata-0/${String(second).padStart(20, '0')}.log`;
    const oldBytes = fileSystem.readFile(path);
    expect(oldBytes.length).toBeGreaterThan(0);
    fileSystem.crash();
    expect(fileSystem.readFile(path)).toEqual(oldBytes);
    // Reopening installs the snapshot again; its flush replaces the file.
    const old = open(fileSystem);
    expect([old.startOffset(), old.endOffset()]).toEqual([second, second]);
    old.appendAsFollower(dataBatch({ baseOffset: second, epoch: 4, count: 2, prefix: 'new' }), 4);
    expect(await old.flush()).toBe(second + 2);
    fileSystem.crash();
    const reopened = open(fileSystem);
    expect(reopened.segmentBaseOffsets()).toEqual([second]);
    expect(readAll(reopened, 'uncommitted')).toMatchObject([{ baseOffset: second, epoch: 4 }]);
  });

  it('lets the log start move above it before the flush; a crash then reopens at the newer snapshot', async () => {
    const { fileSystem, log } = await flushedLog();
    fetchedSnapshot(log, 100, 4);
    expect(log.truncateToLatestSnapshot()).toBe(true);
    appendEpoch4At100(log);
    log.updateHighWatermark(104);
    log.createNewSnapshot({ offset: 104, epoch: 4 })?.freeze();
    // Unlike a partial truncation (ADR 0033's seed -844101324), the old batches come back only
    // beside a snapshot ahead of them.
    expect(log.deleteBeforeSnapshot({ offset: 104, epoch: 4 })).toBe(true);
    fileSystem.crash();
    const reopened = open(fileSystem);
    expect([reopened.startOffset(), reopened.endOffset(), reopened.earliestSnapshotId()]).toEqual([
      104,
      104,
      { offset: 104, epoch: 4 },
    ]);
  });

  it('settles on close, and on a roll, with the syncs on the event loop', async () => {
    for (const finish of ['close', 'roll'] as const) {
      const { fileSystem, log } = await flushedLog();
      fetchedSnapshot(log, 100, 4);
      expect(log.truncateToLatestSnapshot()).toBe(true);
      appendEpoch4At100(log);
      if (finish === 'roll') log.roll();
      else log.close();
      if (finish === 'roll') expect(log.segmentBaseOffsets()).toEqual([100, 104]);
      fileSystem.crash();
      const reopened = open(fileSystem);
      // After a roll nothing was flushed: the held appends may be lost, never the install.
      expect([reopened.startOffset(), reopened.lastFetchedEpoch()]).toEqual([100, 4]);
      if (finish === 'close') expect(reopened.endOffset()).toBe(104);
    }
  });

  it('settles on close, and on a roll, made while a flush is settling it', async () => {
    for (const finish of ['close', 'roll'] as const) {
      for (const pathEnd of [RECOVERY_POINT_OFFSET_CHECKPOINT_FILE, `${LEADER_EPOCH_CHECKPOINT_FILE}.tmp`]) {
        const { fileSystem, hooks, log } = await flushedLog();
        fetchedSnapshot(log, 100, 4);
        expect(log.truncateToLatestSnapshot()).toBe(true);
        appendEpoch4At100(log);
        // The flush is inside this file's sync when the close or roll settles the install itself.
        let settledInside = false;
        hooks.onNextSyncAsync(pathEnd, () => {
          settledInside = true;
          if (finish === 'roll') log.roll();
          else log.close();
        });
        const flushed = log.flush();
        if (finish === 'roll') {
          expect(await flushed).toBe(104);
          expect(log.segmentBaseOffsets()).toEqual([100, 104]);
        } else {
          // The close made the install and the held appends durable; the flush it overtook says so.
          await expect(flushed).rejects.toThrow(
            new InvalidLogOperationError('the log was closed during the flush'),
          );
        }
        expect(settledInside).toBe(true);
        fileSystem.crash();
        const reopened = open(fileSystem);
        expect([reopened.startOffset(), reopened.endOffset(), reopened.lastFetchedEpoch()]).toEqual([
          100, 104, 4,
        ]);
        expect(readAll(reopened, 'uncommitted').map((batch) => batch.baseOffset)).toEqual([100, 102]);
        reopened.close();
      }
    }
  });
});

/** Two fetched two-record batches of epoch 4 at 100 and 102, after a full truncation to 100. */
function appendEpoch4At100(log: RaftLog): void {
  for (const offset of [100, 102])
    log.appendAsFollower(dataBatch({ baseOffset: offset, epoch: 4, count: 2 }), 4);
}

/** The segment logs, the recovery point and the epoch checkpoint (not the snapshot files). */
function segmentFilesAndCheckpoints(fileSystem: MemoryFileSystem): Map<string, Buffer> {
  const files = dataFiles(fileSystem);
  for (const path of files.keys()) {
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (
      !(name.endsWith('.log') || name.startsWith('recovery-point') || name === LEADER_EPOCH_CHECKPOINT_FILE)
    )
      files.delete(path);
  }
  return files;
}
