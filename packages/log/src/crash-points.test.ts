import { KRaftError } from '@kraft/protocol';
import { type CrashMode, MemoryFileSystem } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import {
  dataBatch,
  FailingFileSystem,
  readAll,
  TEST_NOW_MS,
  testConfig,
} from '../test/support/log-fixtures.js';
import {
  LEADER_EPOCH_CHECKPOINT_FILE,
  parseLeaderEpochCheckpoint,
} from './epoch/leader-epoch-checkpoint-file.js';
import { RaftLog } from './raft-log.js';
import type { OffsetAndEpoch } from './raft-log-types.js';

const DIR = '/data/metadata';

function open(fileSystem: MemoryFileSystem | FailingFileSystem): RaftLog {
  return RaftLog.open({ dir: DIR, fileSystem, config: testConfig(), time: () => TEST_NOW_MS });
}

/** A log of 30 flushed two-record batches in epoch 1 with a snapshot at 20 and the HWM at 60. */
async function prepared(): Promise<MemoryFileSystem> {
  const fileSystem = new MemoryFileSystem();
  fileSystem.mkdir(DIR);
  const log = open(fileSystem);
  for (let index = 0; index < 30; index += 1) log.appendAsLeader(dataBatch({ count: 2, valueBytes: 40 }), 1);
  await log.flush();
  log.updateHighWatermark(60);
  writeSnapshot(log, { offset: 20, epoch: 1 });
  log.close();
  return fileSystem;
}

function writeSnapshot(log: RaftLog, id: OffsetAndEpoch, unchecked = false): void {
  const writer = unchecked ? log.createNewSnapshotUnchecked(id) : log.createNewSnapshot(id);
  writer?.append(dataBatch({ epoch: id.epoch, count: 3 }));
  writer?.freeze();
}

/**
 * Runs `operation` with a power loss at each of its file-system steps in turn (the step fails,
 * then unsynced state is dropped) until it completes; `check` runs on every reopened log.
 */
async function atEveryStep(
  operation: (log: RaftLog) => void,
  check: (log: RaftLog) => void,
): Promise<number> {
  for (let failAt = 1; ; failAt += 1) {
    const fileSystem = await prepared();
    const failing = new FailingFileSystem(fileSystem, failAt);
    let completed = true;
    try {
      const log = open(failing);
      log.updateHighWatermark(60);
      operation(log);
    } catch (error) {
      if (!KRaftError.isInstance(error)) throw error;
      completed = false;
    }
    fileSystem.crash();
    const reopened = open(fileSystem);
    check(reopened);
    if (completed) return failAt;
  }
}

/** Kafka's simulation invariant SnapshotAtLogStart, plus a readable log. */
function checkSnapshotAtLogStart(log: RaftLog): void {
  const earliest = log.earliestSnapshotId();
  expect(earliest).toBeDefined();
  expect(log.startOffset()).toBeLessThanOrEqual((earliest as OffsetAndEpoch).offset);
  if (log.startOffset() > 0) expect(log.startOffset()).toBe(earliest?.offset);
  expect(log.validateOffsetAndEpoch(earliest?.offset ?? 0, earliest?.epoch ?? 0)).toEqual({ kind: 'valid' });
  const batches = readAll(log, 'uncommitted');
  expect(batches.at(-1)?.lastOffset ?? log.startOffset() - 1).toBe(log.endOffset() - 1);
}

describe('a power loss at every step', () => {
  it('of a snapshot and the log-start move that follows it leaves the old or the new state', async () => {
    const steps = await atEveryStep(
      (log) => {
        writeSnapshot(log, { offset: 40, epoch: 1 });
        log.deleteBeforeSnapshot({ offset: 40, epoch: 1 });
      },
      (log) => {
        expect(log.endOffset()).toBe(60);
        expect([20, 40]).toContain(log.latestSnapshotId()?.offset);
        expect([0, 40]).toContain(log.startOffset());
        checkSnapshotAtLogStart(log);
      },
    );
    expect(steps).toBeGreaterThan(5);
  });

  it('of installing a fetched snapshot ahead of the log leaves the old log or the snapshot alone', async () => {
    const steps = await atEveryStep(
      (log) => {
        writeSnapshot(log, { offset: 100, epoch: 3 }, true);
        expect(log.truncateToLatestSnapshot()).toBe(true);
        log.appendAsFollower(dataBatch({ baseOffset: 100, epoch: 3 }), 3);
      },
      (log) => {
        if (log.latestSnapshotId()?.offset === 100) {
          expect(log.startOffset()).toBe(100);
          expect(log.lastFetchedEpoch()).toBe(3);
        } else {
          expect([log.startOffset(), log.endOffset()]).toEqual([0, 60]);
        }
        checkSnapshotAtLogStart(log);
      },
    );
    expect(steps).toBeGreaterThan(5);
  });

  it('of appends, rolls and a truncation keeps every flushed batch that was not truncated', async () => {
    await atEveryStep(
      (log) => {
        for (let index = 0; index < 20; index += 1)
          log.appendAsLeader(dataBatch({ count: 2, valueBytes: 40 }), 2);
        log.truncateTo(70);
      },
      (log) => {
        expect(log.endOffset()).toBeGreaterThanOrEqual(60);
        const batches = readAll(log, 'uncommitted');
        expect(batches.filter((batch) => batch.epoch === 1)).toHaveLength(30);
        expect(log.lastFetchedEpoch()).toBe(batches.at(-1)?.epoch);
      },
    );
  });

  it.each<CrashMode>(['drop-unsynced', 'tear-unsynced'])(
    'of truncate-then-append never brings removed batches back, and the epoch checkpoint agrees with the log (%s)',
    async (mode) => {
      for (let failAt = 1; ; failAt += 1) {
        const fileSystem = await withUncommittedTail();
        const failing = new FailingFileSystem(fileSystem, failAt);
        let truncated = false;
        let completed = true;
        try {
          const log = open(failing);
          log.updateHighWatermark(60);
          // The divergence lies inside epoch 2: the checkpoint keeps (2, 60), so only the
          // segment's own durability can keep offsets 80-99 of epoch 2 from coming back.
          log.truncateTo(80);
          truncated = true;
          for (let offset = 80; offset < 90; offset += 2)
            log.appendAsFollower(dataBatch({ baseOffset: offset, epoch: 3, count: 2 }), 3);
          await log.flush();
        } catch (error) {
          if (!KRaftError.isInstance(error)) throw error;
          completed = false;
        }
        fileSystem.crash({ mode, random: () => 0.5 });
        const reopened = open(fileSystem);
        const batches = readAll(reopened, 'uncommitted');
        if (truncated) {
          expect(batches.filter((batch) => batch.epoch === 2 && batch.baseOffset >= 80)).toEqual([]);
        }
        expect(epochCheckpointOnDisk(fileSystem)).toEqual(epochStartsOf(batches));
        if (completed) {
          expect(reopened.endOffset()).toBe(90);
          expect(failAt).toBeGreaterThan(3);
          return;
        }
      }
    },
  );
});

/** `prepared()` plus 20 flushed two-record batches in epoch 2 (offsets 60-99) above the HWM. */
async function withUncommittedTail(): Promise<MemoryFileSystem> {
  const fileSystem = await prepared();
  const log = open(fileSystem);
  log.initializeLeaderEpoch(2);
  for (let index = 0; index < 20; index += 1) log.appendAsLeader(dataBatch({ count: 2, valueBytes: 40 }), 2);
  await log.flush();
  log.close();
  return fileSystem;
}

function epochCheckpointOnDisk(fileSystem: MemoryFileSystem): Array<{ epoch: number; startOffset: number }> {
  const path = `${DIR}/__cluster_metadata-0/${LEADER_EPOCH_CHECKPOINT_FILE}`;
  return parseLeaderEpochCheckpoint(fileSystem.readFile(path).toString('utf8'));
}

/** The (epoch, first offset) pairs the batches themselves say. */
function epochStartsOf(
  batches: ReadonlyArray<{ epoch: number; baseOffset: number }>,
): Array<{ epoch: number; startOffset: number }> {
  const starts: Array<{ epoch: number; startOffset: number }> = [];
  for (const batch of batches) {
    if (starts.at(-1)?.epoch !== batch.epoch)
      starts.push({ epoch: batch.epoch, startOffset: batch.baseOffset });
  }
  return starts;
}
