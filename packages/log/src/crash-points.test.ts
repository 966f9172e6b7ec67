import { KRaftError } from '@kraft/protocol';
import { type CrashMode, MemoryFileSystem } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { appendAsFollowerOrThrow } from '../test/support/follower-append.js';
import {
  type BatchSummary,
  captureFiles,
  dataBatch,
  FailingFileSystem,
  materialize,
  readAll,
  SyncHookFileSystem,
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
const RECOVERY_POINT_FILE = 'recovery-point-offset-checkpoint';

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
        appendAsFollowerOrThrow(log, dataBatch({ baseOffset: 100, epoch: 3 }), 3);
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
    'of truncate-then-append-then-flush leaves the old log or a prefix of the new one, never a mix, and once acknowledged never brings removed batches back (%s)',
    async (mode) => {
      for (let failAt = 1; ; failAt += 1) {
        const outcome = await truncateAppendAndFlush(failAt);
        outcome.fileSystem.crash({ mode, random: () => 0.5 });
        const completed = checkTruncateThenAppend(outcome);
        if (completed) {
          expect(failAt).toBeGreaterThan(3);
          return;
        }
      }
    },
  );

  it('of truncate-then-append-then-flush reports no lost flushed data even when every log-file change reached the disk before the checkpoint', async () => {
    // The worst write-back order a power loss can show: the cut, the unlinks and the appends
    // durable, the checkpoint's unsynced bytes lost. Only lowering the checkpoint durably before
    // any of them (ADR 0029) keeps recovery from seeing a log end below its recovery point.
    for (let failAt = 1; ; failAt += 1) {
      const outcome = await truncateAppendAndFlush(failAt, 'next-turn');
      syncEveryFile(outcome.fileSystem, (name) => name.endsWith('.log'));
      outcome.fileSystem.crash();
      if (checkTruncateThenAppend(outcome)) return;
    }
  });

  it.each<OvertakenFlush>([
    // Appends behind the first cut start epoch 3; the lower cut appends epoch 4.
    { step: 'lowers the recovery point', syncedFile: RECOVERY_POINT_FILE, cut: 90, lowerCut: 80, epoch: 4 },
    // The first cut drops epoch 2; the lower one changes no epoch, so only its offset tells it apart.
    {
      step: 'writes the held epochs',
      syncedFile: `${LEADER_EPOCH_CHECKPOINT_FILE}.tmp`,
      cut: 56,
      lowerCut: 50,
      epoch: 1,
    },
  ])(
    'of a flush that a lower truncation overtakes while it $step keeps every flushed batch',
    async ({ syncedFile, cut, lowerCut, epoch }) => {
      // Inside one of the flush's syncs the log is cut again below the cut it is settling, and
      // appended to. The settle must start over there: the checkpoint durably lowered before any
      // file is cut, even when every log-file change reaches the disk at once.
      const end = lowerCut + 4;
      for (let failAt = 1; ; failAt += 1) {
        const fileSystem = await withUncommittedTail();
        const failing = new SyncHookFileSystem(fileSystem, failAt, 'next-turn');
        let acknowledged: number | undefined;
        let completed = true;
        try {
          const log = open(failing);
          log.updateHighWatermark(40);
          log.truncateTo(cut);
          if (cut > 60) appendFollowerBatches(log, cut, cut + 4, 3);
          failing.onNextSyncAsync(syncedFile, () => {
            log.truncateTo(lowerCut);
            appendFollowerBatches(log, lowerCut, end, epoch);
          });
          acknowledged = await log.flush();
        } catch (error) {
          if (!KRaftError.isInstance(error)) throw error;
          completed = false;
        }
        syncEveryFile(fileSystem, (name) => name.endsWith('.log'));
        fileSystem.crash();
        const reopened = open(fileSystem);
        const batches = readAll(reopened, 'uncommitted');
        const above = batches.filter((batch) => batch.baseOffset >= lowerCut);
        const original = (batch: BatchSummary): boolean =>
          batch.epoch === (batch.baseOffset < 60 ? 1 : 2) && batch.values[0] === 'v-0';
        expect(batches.filter((batch) => batch.baseOffset < lowerCut).every(original)).toBe(true);
        expect(batches.filter((batch) => batch.baseOffset < lowerCut)).toHaveLength(lowerCut / 2);
        const added = (batch: BatchSummary): boolean =>
          batch.epoch === epoch && batch.baseOffset < end && batch.values[0] === 'held-0';
        expect(above.every(original) || above.every(added)).toBe(true);
        expect(epochCheckpointOnDisk(fileSystem)).toEqual(epochStartsOf(batches));
        reopened.close();
        if (completed) {
          expect([acknowledged, reopened.endOffset(), reopened.lastFetchedEpoch()]).toEqual([
            end,
            end,
            epoch,
          ]);
          expect(above.every(added)).toBe(true);
          return;
        }
      }
    },
  );

  it('of a process crash at every step of truncate-then-append-then-flush keeps what the page cache held', async () => {
    for (let failAt = 1; ; failAt += 1) {
      const outcome = await truncateAppendAndFlush(failAt);
      syncEveryFile(outcome.fileSystem, () => true);
      outcome.fileSystem.crash();
      if (checkTruncateThenAppend(outcome)) return;
    }
  });
});

/** How a power loss after a failed step of new-epoch-append-then-flush treats unsynced state. */
type NewEpochCrash =
  | 'drop-unsynced'
  | 'tear-unsynced'
  | 'keep-page-cache'
  | 'log-files-before-epoch-checkpoint';

describe('a power loss at every step of new-epoch appends and their flushes', () => {
  it.each<NewEpochCrash>([
    'drop-unsynced',
    'tear-unsynced',
    // A process crash: everything written reached the page cache and stays.
    'keep-page-cache',
    // The worst write-back order for ADR 0033: the epoch checkpoint's syncs slower than the
    // others, then every log file, directory entry and the recovery point durable and the epoch
    // checkpoint's unsynced bytes lost.
    'log-files-before-epoch-checkpoint',
  ])(
    'opens without lost flushed data, keeps every offset below the last reported flush, and names the epoch of the last batch (%s)',
    async (crash) => {
      const worstOrder = crash === 'log-files-before-epoch-checkpoint';
      for (let failAt = 1; ; failAt += 1) {
        const outcome = await newEpochAppendsAndFlushes(failAt, worstOrder);
        const { fileSystem } = outcome;
        if (crash === 'keep-page-cache') syncEveryFile(fileSystem, () => true);
        if (crash === 'log-files-before-epoch-checkpoint') {
          syncEveryFile(fileSystem, (name) => name.endsWith('.log'));
          syncFile(fileSystem, `${DIR}/${RECOVERY_POINT_FILE}`);
        }
        fileSystem.crash(crash === 'tear-unsynced' ? { mode: crash, random: () => 0.5 } : {});
        if (checkNewEpochAppends(outcome)) {
          expect(failAt).toBeGreaterThan(6);
          return;
        }
      }
    },
  );
});

/** The batches `newEpochAppendsAndFlushes` writes: epoch 2 (a new leader) at 60-69, epoch 3 (fetched) at 70-79. */
function newEpochOf(baseOffset: number): number {
  if (baseOffset < 60) return 1;
  return baseOffset < 70 ? 2 : 3;
}

/**
 * On `prepared()` (epoch 1 flushed up to 60): a new leader's epoch 2 with five two-record batches,
 * a flush, then five fetched batches starting epoch 3 and a flush, the `failAt`-th file-system
 * mutation failing (with `slowEpochCheckpoint`, the checkpoint's syncs run three turns late).
 * `acknowledged` is the flushed offset last reported.
 */
async function newEpochAppendsAndFlushes(
  failAt: number,
  slowEpochCheckpoint: boolean,
): Promise<TruncateThenAppendOutcome> {
  const fileSystem = await prepared();
  const failing = new SyncHookFileSystem(fileSystem, failAt, slowEpochCheckpoint ? 'next-turn' : 'immediate');
  if (slowEpochCheckpoint) failing.slowSyncsOf(`${LEADER_EPOCH_CHECKPOINT_FILE}.tmp`, 3);
  let acknowledged: number | undefined;
  try {
    const log = open(failing);
    acknowledged = log.lastFlushedOffset();
    log.initializeLeaderEpoch(2);
    for (let index = 0; index < 5; index += 1) log.appendAsLeader(dataBatch({ count: 2, prefix: 'new' }), 2);
    // What the log reports changes at once; only its durability waits for the flush.
    expect([log.lastFetchedEpoch(), log.endOffsetForEpoch(1)]).toEqual([2, { offset: 60, epoch: 1 }]);
    acknowledged = await log.flush();
    appendFollowerBatches(log, 70, 80, 3);
    expect(log.lastFetchedEpoch()).toBe(3);
    acknowledged = await log.flush();
  } catch (error) {
    if (!KRaftError.isInstance(error)) throw error;
    return { fileSystem, acknowledged, completed: false };
  }
  return { fileSystem, acknowledged, completed: true };
}

/** Reopens after the crash (a lost-flushed-data refusal fails the test) and checks it. */
function checkNewEpochAppends({ fileSystem, acknowledged, completed }: TruncateThenAppendOutcome): boolean {
  const reopened = open(fileSystem);
  const batches = readAll(reopened, 'uncommitted');
  expect(reopened.endOffset()).toBeGreaterThanOrEqual(acknowledged ?? 60);
  // A prefix of what was appended, each batch with the epoch and values it was appended with.
  expect(batches.map((batch) => batch.baseOffset)).toEqual(
    Array.from({ length: reopened.endOffset() / 2 }, (_, index) => index * 2),
  );
  for (const batch of batches) {
    expect(batch.epoch).toBe(newEpochOf(batch.baseOffset));
    expect(batch.values[0]).toBe(batch.baseOffset < 60 ? 'v-0' : batch.baseOffset < 70 ? 'new-0' : 'held-0');
  }
  expect(reopened.lastFetchedEpoch()).toBe(batches.at(-1)?.epoch);
  expect(epochCheckpointOnDisk(fileSystem)).toEqual(epochStartsOf(batches));
  reopened.close();
  if (!completed) return false;
  expect([acknowledged, reopened.endOffset(), reopened.lastFetchedEpoch()]).toEqual([80, 80, 3]);
  return true;
}

interface OvertakenFlush {
  /** The flush's step whose sync the lower truncation lands in. */
  readonly step: string;
  readonly syncedFile: string;
  /** The truncation the flush settles (epoch 3 appended behind it when above epoch 2's start). */
  readonly cut: number;
  /** The truncation made during the sync, and the epoch of the four offsets appended after it. */
  readonly lowerCut: number;
  readonly epoch: number;
}

interface TruncateThenAppendOutcome {
  readonly fileSystem: MemoryFileSystem;
  /** The flushed offset the log last reported after the truncation; undefined before it. */
  readonly acknowledged: number | undefined;
  readonly completed: boolean;
}

/**
 * On `withUncommittedTail()`: truncates to 80 inside epoch 2 (so the checkpoint keeps (2, 60) and
 * only the segment's own cut keeps offsets 80-99 of epoch 2 away), appends ten offsets of epoch 3
 * and flushes, the `failAt`-th file-system mutation failing.
 */
async function truncateAppendAndFlush(
  failAt: number,
  asyncSyncs: 'immediate' | 'next-turn' = 'immediate',
): Promise<TruncateThenAppendOutcome> {
  const fileSystem = await withUncommittedTail();
  const failing = new FailingFileSystem(fileSystem, failAt, asyncSyncs);
  let acknowledged: number | undefined;
  try {
    const log = open(failing);
    log.updateHighWatermark(60);
    log.truncateTo(80);
    expect(log.lastFlushedOffset()).toBe(80);
    for (let offset = 80; offset < 90; offset += 2)
      appendAsFollowerOrThrow(log, dataBatch({ baseOffset: offset, epoch: 3, count: 2 }), 3);
    expect(readAll(log, 'uncommitted').filter((batch) => batch.baseOffset >= 80)).toHaveLength(5);
    acknowledged = 80;
    acknowledged = await log.flush();
  } catch (error) {
    if (!KRaftError.isInstance(error)) throw error;
    return { fileSystem, acknowledged, completed: false };
  }
  return { fileSystem, acknowledged, completed: true };
}

/** Reopens after the crash and checks it; returns whether the operation had completed. */
function checkTruncateThenAppend({
  fileSystem,
  acknowledged,
  completed,
}: TruncateThenAppendOutcome): boolean {
  const reopened = open(fileSystem);
  const batches = readAll(reopened, 'uncommitted');
  const above = batches.filter((batch) => batch.baseOffset >= 80);
  const oldTail = above.every((batch) => batch.epoch === 2);
  const newTail = above.every((batch) => batch.epoch === 3);
  expect(batches.filter((batch) => batch.baseOffset < 80)).toHaveLength(40);
  expect(oldTail || newTail).toBe(true);
  if (acknowledged === undefined) {
    expect(reopened.endOffset()).toBe(100);
  } else {
    // Not yet acknowledged, the truncation may be undone as a whole (as if the crash came first).
    if (oldTail && above.length > 0) expect(acknowledged).toBeLessThanOrEqual(80);
    expect(reopened.endOffset()).toBeGreaterThanOrEqual(acknowledged);
    if (acknowledged > 80) expect(above.filter((batch) => batch.epoch === 2)).toEqual([]);
  }
  expect(epochCheckpointOnDisk(fileSystem)).toEqual(epochStartsOf(batches));
  reopened.close();
  if (!completed) return false;
  expect(acknowledged).toBe(90);
  expect(reopened.endOffset()).toBe(90);
  return true;
}

/** Two-record follower batches in `epoch` from `from` up to `to`, their values `held-<i>`. */
function appendFollowerBatches(log: RaftLog, from: number, to: number, epoch: number): void {
  for (let offset = from; offset < to; offset += 2)
    appendAsFollowerOrThrow(log, dataBatch({ baseOffset: offset, epoch, count: 2, prefix: 'held' }), epoch);
}

/** Makes the chosen files' current bytes and every directory entry durable, as a write-back could. */
function syncEveryFile(fileSystem: MemoryFileSystem, chosen: (name: string) => boolean): void {
  const directory = `${DIR}/__cluster_metadata-0`;
  for (const name of fileSystem.list(directory).filter(chosen)) syncFile(fileSystem, `${directory}/${name}`);
  fileSystem.syncDirectory(directory);
}

function syncFile(fileSystem: MemoryFileSystem, path: string): void {
  const handle = fileSystem.open(path, {});
  handle.sync();
  handle.close();
}

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

/** Where a fetched snapshot of epoch 3 starts the new log, against `prepared()`'s old segments. */
interface RestartCase {
  readonly where: string;
  readonly startOffset: (oldBaseOffsets: readonly number[]) => number;
}

/** One state a crash can leave: a name and the files a fresh file system holds, all durable. */
interface CrashView {
  readonly name: string;
  readonly files: ReadonlyMap<string, Buffer>;
}

describe('a crash at every step of installing a snapshot ahead of the log and flushing (ADR 0036)', () => {
  it.each<RestartCase>([
    { where: 'past the log end', startOffset: () => 100 },
    { where: 'at the log end', startOffset: () => 60 },
    // The new segment takes the file name of an old one.
    { where: 'at the base offset of an old segment', startOffset: (bases) => bases[1] as number },
    // The new segment sorts before an old one that ends above it.
    { where: 'inside the first old segment', startOffset: (bases) => (bases[1] as number) - 2 },
  ])(
    'with the snapshot $where: recovery opens every crash state (a power loss, a process crash, any mix of segment-file changes), keeps every reported offset and never claims data it does not have',
    async ({ startOffset }) => {
      const bases = await oldSegmentBaseOffsets();
      expect(bases.length).toBeGreaterThanOrEqual(3);
      const start = startOffset(bases);
      for (let failAt = 1; ; failAt += 1) {
        const outcome = await installAndAppend(failAt, start);
        for (const view of crashViews(outcome.fileSystem)) await checkInstall(view, start, outcome);
        if (outcome.completed) {
          expect(outcome.acknowledged).toBe(start + 10);
          expect(failAt).toBeGreaterThan(20);
          return;
        }
      }
    },
  );

  it('never lets a flush in flight at the install raise the recovery point above the old segments', async () => {
    const fileSystem = await prepared();
    const hooks = new SyncHookFileSystem(fileSystem);
    const log = open(hooks);
    log.updateHighWatermark(60);
    writeSnapshot(log, { offset: 100, epoch: 3 }, true);
    log.appendAsLeader(dataBatch({ count: 2 }), 1);
    // Inside the flush's segment sync: past its settle, so the install waits for the next flush.
    hooks.onNextSyncAsync('.log', () => {
      expect(log.truncateToLatestSnapshot()).toBe(true);
    });
    expect(await log.flush()).toBe(100);
    await log.recoveryPointSettled();
    fileSystem.crash();
    const reopened = open(fileSystem);
    expect([reopened.startOffset(), reopened.endOffset(), reopened.latestSnapshotId()?.offset]).toEqual([
      100, 100, 100,
    ]);
  });
});

describe('a crash at every step of freezing a fetched snapshot off the event loop and installing it (ADR 0039)', () => {
  it.each<RestartCase>([
    { where: 'past the log end', startOffset: () => 100 },
    { where: 'at the base offset of an old segment', startOffset: (bases) => bases[1] as number },
  ])(
    'with the snapshot $where: the snapshot is whole under its final name or absent, its log start never outruns it, and the install is redone or kept',
    async ({ startOffset }) => {
      const start = startOffset(await oldSegmentBaseOffsets());
      for (let failAt = 1; ; failAt += 1) {
        const outcome = await installAndAppend(failAt, start, 'async-freeze');
        const views = crashViews(outcome.fileSystem);
        for (const view of views) {
          checkWholeSnapshot(view, start);
          await checkInstall(view, start, outcome);
        }
        if (outcome.completed) {
          expect(outcome.acknowledged).toBe(start + 10);
          expect(failAt).toBeGreaterThan(20);
          return;
        }
      }
    },
  );

  it('shows nothing new until the snapshot is announced, and the install then writes no log start', async () => {
    const fileSystem = await prepared();
    const log = open(fileSystem);
    log.updateHighWatermark(60);
    const writer = log.createNewSnapshotUnchecked({ offset: 100, epoch: 3 });
    writer?.append(dataBatch({ epoch: 3, count: 3 }));
    await log.freezeFetchedSnapshot(writer as NonNullable<typeof writer>);
    expect([log.latestSnapshotId()?.offset, log.startOffset(), log.endOffset()]).toEqual([20, 0, 60]);
    expect(log.lastFetchedEpoch()).toBe(1);
    // The log start is durable already: a synchronous rewrite of it would fail here.
    fileSystem.injectFault('open', { pathIncludes: 'log-start-offset-checkpoint.tmp' });
    log.onSnapshotFrozen({ offset: 100, epoch: 3 });
    expect(log.truncateToLatestSnapshot()).toBe(true);
    fileSystem.crash();
    const reopened = open(fileSystem);
    expect([reopened.startOffset(), reopened.endOffset(), reopened.latestSnapshotId()?.offset]).toEqual([
      100, 100, 100,
    ]);
  });
});

/** The size the fetched snapshot of `installAndAppend` has once whole. */
const FETCHED_SNAPSHOT_SIZE_BYTES = dataBatch({ epoch: 3, count: 3 }).sizeInBytes();

/** A snapshot under its final name holds every byte written: never a torn file. */
function checkWholeSnapshot(view: CrashView, start: number): void {
  for (const [path, bytes] of view.files) {
    if (path.endsWith(`${String(start).padStart(20, '0')}-${String(3).padStart(10, '0')}.checkpoint`)) {
      expect({ view: view.name, size: bytes.length }).toEqual({
        view: view.name,
        size: FETCHED_SNAPSHOT_SIZE_BYTES,
      });
    }
  }
}

async function oldSegmentBaseOffsets(): Promise<number[]> {
  const log = open(await prepared());
  const bases = log.segmentBaseOffsets();
  log.close();
  return bases;
}

/**
 * On `prepared()`: a fetched snapshot of epoch 3 at `start` installed (`truncateToLatestSnapshot`),
 * five fetched batches appended and flushed, two more and a flush, then the recovery point's
 * background write; the `failAt`-th file-system mutation fails (syncs take effect a turn late).
 */
async function installAndAppend(
  failAt: number,
  start: number,
  freeze: 'freeze' | 'async-freeze' = 'freeze',
): Promise<TruncateThenAppendOutcome> {
  const fileSystem = await prepared();
  const failing = new FailingFileSystem(fileSystem, failAt, 'next-turn');
  let acknowledged: number | undefined;
  try {
    const log = open(failing);
    log.updateHighWatermark(60);
    const snapshotId = { offset: start, epoch: 3 };
    if (freeze === 'freeze') {
      writeSnapshot(log, snapshotId, true);
    } else {
      // The driver's freeze (ADR 0039), then the core's announcement and install at its report.
      const writer = log.createNewSnapshotUnchecked(snapshotId);
      expect(writer).toBeDefined();
      writer?.append(dataBatch({ epoch: 3, count: 3 }));
      await log.freezeFetchedSnapshot(writer as NonNullable<typeof writer>);
      log.onSnapshotFrozen(snapshotId);
    }
    expect(log.truncateToLatestSnapshot()).toBe(true);
    appendFollowerBatches(log, start, start + 6, 3);
    acknowledged = await log.flush();
    appendFollowerBatches(log, start + 6, start + 10, 3);
    acknowledged = await log.flush();
    await log.recoveryPointSettled();
  } catch (error) {
    if (!KRaftError.isInstance(error)) throw error;
    return { fileSystem, acknowledged, completed: false };
  }
  return { fileSystem, acknowledged, completed: true };
}

/**
 * The states a crash may leave now: a power loss (only synced bytes and entries), a process crash
 * (the page cache kept), and, for every subset of the segments whose `.log` differs between the
 * two, the power loss with those segments' files (log and indexes) as the page cache has them: the
 * directory operations and write-backs of any subset reached the disk, in any order.
 */
function crashViews(fileSystem: MemoryFileSystem): CrashView[] {
  const live = captureFiles(fileSystem, DIR);
  fileSystem.crash();
  const durable = captureFiles(fileSystem, DIR);
  const stems = [...new Set([...live.keys(), ...durable.keys()])]
    .filter((path) => path.endsWith('.log') && !live.get(path)?.equals(durable.get(path) ?? Buffer.alloc(1)))
    .map((path) => path.slice(0, -'.log'.length));
  const views: CrashView[] = [
    { name: 'power loss', files: durable },
    { name: 'process crash', files: live },
  ];
  for (let mask = 1; mask < 2 ** stems.length; mask += 1) {
    const chosen = stems.filter((_, index) => (mask & (1 << index)) !== 0);
    const files = new Map(durable);
    for (const stem of chosen) {
      for (const path of ['.log', '.index', '.timeindex'].map((suffix) => `${stem}${suffix}`)) {
        const bytes = live.get(path);
        if (bytes === undefined) files.delete(path);
        else files.set(path, bytes);
      }
    }
    views.push({ name: `power loss with the page cache's ${chosen.join(', ')}`, files });
  }
  return views;
}

/**
 * Reopens the crash state (a lost-flushed-data refusal fails the test) and checks it: either the
 * snapshot is the latest and the log starts there holding only fetched batches, at least up to the
 * last reported flush, or the snapshot is not durable and the old log is whole. The same holds
 * after the reopened log flushes (its open installs the snapshot again), closes and opens again.
 */
async function checkInstall(
  view: CrashView,
  start: number,
  { acknowledged }: TruncateThenAppendOutcome,
): Promise<void> {
  const fileSystem = materialize(view.files);
  const check = (log: RaftLog): void => {
    const batches = readAll(log, 'uncommitted');
    const summary = { view: view.name, start: log.startOffset(), end: log.endOffset(), acknowledged };
    if (log.latestSnapshotId()?.offset === start) {
      expect({ ...summary, fetched: batches.every((batch) => batch.epoch === 3) }).toEqual({
        ...summary,
        start,
        fetched: true,
      });
      expect(log.endOffset()).toBeGreaterThanOrEqual(acknowledged ?? start);
      expect(batches.map((batch) => batch.baseOffset)).toEqual(
        Array.from({ length: (log.endOffset() - start) / 2 }, (_, index) => start + index * 2),
      );
      expect(log.lastFetchedEpoch()).toBe(3);
    } else {
      expect({ ...summary, batches: batches.length }).toEqual({
        ...summary,
        start: 0,
        end: 60,
        acknowledged: undefined,
        batches: 30,
      });
    }
    checkSnapshotAtLogStart(log);
  };
  const reopened = open(fileSystem);
  check(reopened);
  await reopened.flush();
  reopened.close();
  const again = open(fileSystem);
  check(again);
  expect(epochCheckpointOnDisk(fileSystem)).toEqual(epochStartsOf(readAll(again, 'uncommitted')));
  again.close();
}
