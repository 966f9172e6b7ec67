import { type CrashMode, MemoryFileSystem } from '@kraft/records';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendAsFollowerOrThrow } from '../test/support/follower-append.js';
import {
  type BatchSummary,
  dataBatch,
  readAll,
  readBatches,
  seededRandom,
  TEST_NOW_MS,
  testConfig,
} from '../test/support/log-fixtures.js';
import type { EpochEntry } from './epoch/leader-epoch-checkpoint-file.js';
import { InvalidLogOperationError } from './errors/log-errors.js';
import { RaftLog } from './raft-log.js';
import type { OffsetAndEpoch } from './raft-log-types.js';

const DIR = '/data/metadata';
/** Sequences per run; `KRAFT_LOG_MODEL_RUNS=2000` for a soak. */
const MODEL_RUNS = Number(environmentVariable('KRAFT_LOG_MODEL_RUNS') ?? 60);

function environmentVariable(name: string): string | undefined {
  return process.env[name];
}

/** The "dumb alternative" (etcd): the log as an array of batches plus a few numbers. */
class Model {
  batches: BatchSummary[] = [];
  logStart = 0;
  highWatermark = 0;
  flushed = 0;
  /** The lowest truncation since the last flush or reopen: a crash may still bring back what it removed. */
  pendingCut: number | undefined;
  /**
   * An open that installed the latest snapshot holds that full truncation until the next flush,
   * roll or reopen: a truncation meanwhile is part of it (everything a crash brings back lies
   * below the snapshot, which the next open installs again), so it sets no `pendingCut`.
   */
  pendingFullTruncation = false;
  /**
   * After a reopen that left the log empty at the latest snapshot, the open may or may not hold a
   * full truncation (it installs the snapshot when the recovered segments end below it, which the
   * model, keeping no segment bases, cannot tell), so a truncation then may be part of one.
   */
  mayHoldFullTruncation = false;
  /** `pendingCut` was set while `mayHoldFullTruncation`: whether it holds back the log start is the real's call. */
  cutMayBeInsideFullTruncation = false;
  epochs: EpochEntry[] = [];
  snapshots: OffsetAndEpoch[] = [];
  /** Every batch ever appended at an offset: what a crash may legitimately bring back. */
  readonly history = new Map<number, BatchSummary[]>();
  nextTag = 0;
  /** The highest epoch any append used, truncated or not. */
  highestEpoch = 0;

  endOffset(): number {
    const last = this.batches.at(-1);
    return last === undefined ? this.logStart : Math.max(last.lastOffset + 1, this.logStart);
  }

  latestEpoch(): number | undefined {
    return this.epochs.at(-1)?.epoch;
  }

  lastFetchedEpoch(): number {
    const latest = this.snapshots.at(-1);
    const atSnapshot =
      latest !== undefined && latest.offset === this.logStart && latest.offset === this.endOffset();
    return this.latestEpoch() ?? (atSnapshot ? latest.epoch : 0);
  }

  assignEpoch(epoch: number, startOffset: number): void {
    const latest = this.epochs.at(-1);
    if (latest !== undefined && latest.epoch === epoch && startOffset >= latest.startOffset) return;
    this.epochs = [
      ...this.epochs.filter((entry) => entry.epoch < epoch && entry.startOffset < startOffset),
      { epoch, startOffset },
    ];
  }

  visible(): BatchSummary[] {
    return this.batches.filter((batch) => batch.baseOffset >= this.logStart);
  }

  batchBoundaries(): number[] {
    return [...this.visible().map((batch) => batch.baseOffset), this.endOffset()];
  }

  epochBefore(offset: number): number {
    return this.batches.filter((batch) => batch.lastOffset < offset).at(-1)?.epoch ?? 0;
  }
}

interface Real {
  fileSystem: MemoryFileSystem;
  log: RaftLog;
  readonly preallocate: boolean;
}

const open = (fileSystem: MemoryFileSystem, preallocate: boolean): RaftLog =>
  RaftLog.open({
    dir: DIR,
    fileSystem,
    config: testConfig({ internalSegmentBytes: 1024, preallocate }),
    time: () => TEST_NOW_MS,
  });

function pick<T>(values: readonly T[], fraction: number): T {
  return values[Math.min(values.length - 1, Math.floor(fraction * values.length))] as T;
}

function checkAgreement(model: Model, real: Real): void {
  const { log } = real;
  expect([log.startOffset(), log.endOffset(), log.highWatermark()]).toEqual([
    model.logStart,
    model.endOffset(),
    model.highWatermark,
  ]);
  expect(readAll(log, 'uncommitted')).toEqual(model.visible());
  expect(log.latestSnapshotId()).toEqual(model.snapshots.at(-1));
  expect(log.earliestSnapshotId()).toEqual(model.snapshots[0]);
  expect(log.lastFetchedEpoch()).toBe(model.lastFetchedEpoch());
}

class AppendCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly count: number,
    readonly newEpoch: boolean,
    readonly asFollower: boolean,
  ) {}
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    // A new epoch is above every epoch the log ever held: Raft never reuses an epoch, even one a
    // truncation removed (reusing it would give one epoch two histories, which no quorum makes).
    const epoch = this.newEpoch
      ? Math.max(model.lastFetchedEpoch(), model.highestEpoch) + 1
      : model.lastFetchedEpoch();
    model.highestEpoch = Math.max(model.highestEpoch, epoch);
    const baseOffset = model.endOffset();
    const prefix = `t${model.nextTag++}`;
    if (this.asFollower) {
      appendAsFollowerOrThrow(real.log, dataBatch({ baseOffset, epoch, count: this.count, prefix }), epoch);
    } else {
      if (this.newEpoch) real.log.initializeLeaderEpoch(epoch);
      expect(real.log.appendAsLeader(dataBatch({ count: this.count, prefix }), epoch).firstOffset).toBe(
        baseOffset,
      );
    }
    const batch = {
      baseOffset,
      lastOffset: baseOffset + this.count - 1,
      epoch,
      values: Array.from({ length: this.count }, (_, index) => `${prefix}-${index}`),
    };
    model.batches.push(batch);
    model.history.set(baseOffset, [...(model.history.get(baseOffset) ?? []), batch]);
    model.assignEpoch(epoch, baseOffset);
    checkAgreement(model, real);
  }
  toString = (): string => `append(${this.count}, newEpoch=${this.newEpoch}, follower=${this.asFollower})`;
}

class ReadCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly committed: boolean,
    readonly fraction: number,
    readonly maxSizeBytes: number,
  ) {}
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    const end = this.committed ? model.highWatermark : model.endOffset();
    const offset = model.logStart + Math.floor(this.fraction * (end - model.logStart + 1));
    const { records } = real.log.read(
      Math.min(offset, end),
      this.committed ? 'committed' : 'uncommitted',
      this.maxSizeBytes,
    );
    const batches = readBatches(records);
    if (offset >= end) {
      expect(batches).toEqual([]);
      return;
    }
    expect(batches.length).toBeGreaterThan(0);
    expect(batches[0]?.baseOffset).toBeLessThanOrEqual(offset);
    expect(batches[0]?.lastOffset).toBeGreaterThanOrEqual(offset);
    for (const batch of batches) {
      expect(batch.lastOffset).toBeLessThan(end);
      expect(model.batches.find((each) => each.baseOffset === batch.baseOffset)).toEqual(batch);
    }
  }
  toString = (): string =>
    `read(${this.committed ? 'committed' : 'uncommitted'}, ${this.fraction.toFixed(2)}, ${this.maxSizeBytes})`;
}

class HighWatermarkCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly fraction: number) {}
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    // Raft's high watermark is always some replica's log end: a batch boundary (or beyond, clamped).
    const target = pick([0, ...model.batchBoundaries(), model.endOffset() + 5], this.fraction);
    real.log.updateHighWatermark(target);
    model.highWatermark = Math.max(
      model.highWatermark,
      Math.min(Math.max(target, model.logStart), model.endOffset()),
    );
    checkAgreement(model, real);
  }
  toString = (): string => `hwm(${this.fraction.toFixed(2)})`;
}

class TruncateCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly fraction: number) {}
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    const floor = Math.max(model.highWatermark, model.snapshots.at(-1)?.offset ?? 0);
    if (model.highWatermark > model.logStart) {
      expect(() => real.log.truncateTo(model.highWatermark - 1)).toThrow(InvalidLogOperationError);
    }
    const target = pick(
      model.batchBoundaries().filter((offset) => offset >= floor),
      this.fraction,
    );
    if (target === undefined) return;
    real.log.truncateTo(target);
    if (target >= model.endOffset()) return;
    if (!model.pendingFullTruncation) {
      model.pendingCut = Math.min(model.pendingCut ?? target, target);
      if (model.mayHoldFullTruncation) model.cutMayBeInsideFullTruncation = true;
    }
    model.batches = model.batches.filter((batch) => batch.baseOffset < target);
    model.epochs = model.epochs.filter((entry) => entry.startOffset < target);
    model.flushed = Math.min(model.flushed, target);
    expect(real.log.lastFlushedOffset()).toBe(model.flushed);
    checkAgreement(model, real);
  }
  toString = (): string => `truncate(${this.fraction.toFixed(2)})`;
}

class RollCommand implements fc.AsyncCommand<Model, Real> {
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    // The roll cuts a held truncation into the files but leaves its sync to the next flush: a
    // crash before that can still undo the cut, so it stays pending for the model. A held full
    // truncation is settled by it.
    real.log.roll();
    model.pendingFullTruncation = false;
    model.mayHoldFullTruncation = false;
    checkAgreement(model, real);
  }
  toString = (): string => 'roll';
}

class SnapshotCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly fraction: number,
    readonly deleteBefore: boolean,
  ) {}
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    // Raft snapshots committed state in order: each new id is above the latest one.
    const latestOffset = model.snapshots.at(-1)?.offset ?? 0;
    const candidates = model
      .batchBoundaries()
      .filter((offset) => offset > Math.max(model.logStart, latestOffset) && offset <= model.highWatermark);
    if (candidates.length === 0) return;
    const offset = pick(candidates, this.fraction);
    const id = { offset, epoch: model.epochBefore(offset) };
    const writer = real.log.createNewSnapshot(id);
    writer?.append(dataBatch({ epoch: id.epoch, prefix: 'snapshot' }));
    writer?.freeze();
    model.snapshots = [...model.snapshots, id].sort((left, right) => left.offset - right.offset);
    if (this.deleteBefore) {
      const latest = model.snapshots.at(-1) as OffsetAndEpoch;
      const allowed = model.logStart < id.offset && id.offset <= latest.offset;
      const clearOfCut = model.pendingCut === undefined || id.offset <= model.pendingCut;
      // Like Kafka, the answer says whether files were deleted, not whether the log start moved.
      const deleted = real.log.deleteBeforeSnapshot(id);
      const expected =
        allowed &&
        (clearOfCut || (model.cutMayBeInsideFullTruncation && real.log.startOffset() === id.offset));
      if (!expected) expect(deleted).toBe(false);
      if (expected && model.snapshots.some((each) => each.offset < id.offset)) expect(deleted).toBe(true);
      if (expected) {
        model.logStart = id.offset;
        model.snapshots = model.snapshots.filter((each) => each.offset >= id.offset);
        const below = model.epochs.filter((entry) => entry.startOffset <= id.offset).at(-1);
        if (below !== undefined)
          model.epochs = [
            { epoch: below.epoch, startOffset: id.offset },
            ...model.epochs.filter((entry) => entry.startOffset > id.offset),
          ];
      }
    }
    checkAgreement(model, real);
  }
  toString = (): string => `snapshot(${this.fraction.toFixed(2)}, deleteBefore=${this.deleteBefore})`;
}

class FlushCommand implements fc.AsyncCommand<Model, Real> {
  check = (): boolean => true;
  async run(model: Model, real: Real): Promise<void> {
    expect(await real.log.flush()).toBe(model.endOffset());
    model.flushed = model.endOffset();
    model.pendingCut = undefined;
    model.pendingFullTruncation = false;
    model.mayHoldFullTruncation = false;
    model.cutMayBeInsideFullTruncation = false;
  }
  toString = (): string => 'flush';
}

/** Clean close and reopen, or a power loss (unsynced bytes dropped) and reopen. */
class ReopenCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly crashMode: CrashMode | undefined,
    readonly seed: number,
  ) {}
  check = (): boolean => true;

  get crash(): boolean {
    return this.crashMode !== undefined;
  }

  async run(model: Model, real: Real): Promise<void> {
    if (this.crashMode !== undefined)
      real.fileSystem.crash({ mode: this.crashMode, random: seededRandom(this.seed) });
    else real.log.close();
    real.log = open(real.fileSystem, real.preallocate);
    model.pendingCut = undefined;
    model.pendingFullTruncation = false;
    model.cutMayBeInsideFullTruncation = false;
    const latest = model.snapshots.at(-1);
    model.mayHoldFullTruncation =
      latest !== undefined &&
      real.log.startOffset() === latest.offset &&
      real.log.endOffset() === latest.offset;
    if (this.installedSnapshot(model, real)) {
      checkAgreement(model, real);
      return;
    }
    const start = real.log.startOffset();
    expect(start).toBeLessThanOrEqual(model.logStart);
    expect([...model.batches.map((batch) => batch.baseOffset), model.endOffset()]).toContain(start);
    model.logStart = start;
    if (this.crash) this.adoptRecovered(model, real);
    model.highWatermark = start;
    model.flushed = model.endOffset();
    checkAgreement(model, real);
  }

  /**
   * Open truncates fully when the latest snapshot is ahead of the recovered log (a snapshot of
   * committed data that was never flushed locally). Returns whether that happened, and mirrors it.
   */
  private installedSnapshot(model: Model, real: Real): boolean {
    const latest = model.snapshots.at(-1);
    if (
      latest === undefined ||
      real.log.startOffset() !== latest.offset ||
      real.log.endOffset() !== latest.offset
    )
      return false;
    const survivors = this.crash
      ? model.batches.filter((batch) => batch.lastOffset < model.flushed)
      : model.batches;
    const survivingEnd = (survivors.at(-1)?.lastOffset ?? -1) + 1;
    const latestEpoch =
      model.epochs.filter((entry) => !this.crash || entry.startOffset < survivingEnd).at(-1)?.epoch ?? 0;
    const ahead =
      latest.epoch > latestEpoch ||
      (latest.epoch === latestEpoch && latest.offset > Math.max(survivingEnd, model.logStart));
    if (!ahead) return false;
    model.batches = [];
    model.logStart = latest.offset;
    model.highWatermark = latest.offset;
    model.flushed = latest.offset;
    model.epochs = [];
    model.snapshots = [latest];
    model.pendingFullTruncation = true;
    return true;
  }

  /** After a power loss the log keeps at least what was flushed; more only if it was once written. */
  private adoptRecovered(model: Model, real: Real): void {
    const recovered = readAll(real.log, 'uncommitted');
    expect(real.log.endOffset()).toBeGreaterThanOrEqual(model.flushed);
    const kept = model.batches.filter((batch) => batch.lastOffset < model.flushed);
    expect(recovered.slice(0, kept.filter((batch) => batch.baseOffset >= model.logStart).length)).toEqual(
      kept.filter((batch) => batch.baseOffset >= model.logStart),
    );
    for (const batch of recovered) expect(model.history.get(batch.baseOffset)).toContainEqual(batch);
    model.batches = [...model.batches.filter((batch) => batch.baseOffset < model.logStart), ...recovered];
    model.epochs = model.epochs.filter((entry) => entry.startOffset < model.endOffset());
    for (const batch of recovered) model.assignEpoch(batch.epoch, batch.baseOffset);
  }
  toString = (): string =>
    this.crashMode === undefined ? 'close+reopen' : `crash(${this.crashMode}, ${this.seed})+reopen`;
}

/** A uniform fraction in [0, 1] (fc.double is biased towards its bounds). */
const fraction = fc.integer({ min: 0, max: 1000 }).map((value) => value / 1000);
const append = fc
  .tuple(fc.integer({ min: 1, max: 6 }), fc.boolean(), fc.boolean())
  .map(([count, epoch, follower]) => new AppendCommand(count, epoch, follower));
const commands = [
  append,
  append,
  append,
  fc
    .tuple(fc.boolean(), fraction, fc.constantFrom(1, 200, 100_000))
    .map(([committed, fraction, size]) => new ReadCommand(committed, fraction, size)),
  fraction.map((fraction) => new HighWatermarkCommand(fraction)),
  fraction.map((fraction) => new TruncateCommand(fraction)),
  fc.constant(new RollCommand()),
  fc
    .tuple(fraction, fc.boolean())
    .map(([fraction, deleteBefore]) => new SnapshotCommand(fraction, deleteBefore)),
  fc.constant(new FlushCommand()),
  fc
    .tuple(
      fc.constantFrom<CrashMode | undefined>(undefined, 'drop-unsynced', 'tear-unsynced', 'garble-unsynced'),
      fc.nat(),
    )
    .map(([mode, seed]) => new ReopenCommand(mode, seed)),
];

/** Runs one pinned command sequence (a shrunk failure) on a fresh log, not preallocated. */
async function runPinned(sequence: Array<fc.AsyncCommand<Model, Real>>): Promise<void> {
  const fileSystem = new MemoryFileSystem();
  fileSystem.mkdir(DIR);
  const real: Real = { fileSystem, log: open(fileSystem, false), preallocate: false };
  await fc.asyncModelRun(() => ({ model: new Model(), real }), sequence);
}

describe('RaftLog against an in-memory model', () => {
  it('pinned: a crash that drops a new epoch’s unflushed batch after a truncation (CI seed -694639926)', async () => {
    await runPinned([
      new AppendCommand(2, false, false),
      new FlushCommand(),
      new TruncateCommand(0),
      new AppendCommand(1, false, false),
      new RollCommand(),
      new AppendCommand(1, true, false),
      new ReopenCommand('drop-unsynced', 0),
    ]);
  });

  it('pinned: no log-start move above a truncation that has not reached the files (seed -844101324, 3,000 runs)', async () => {
    // The snapshot at 2 ends inside the held append behind the truncation to 1; a crash brings
    // back the truncated batch [1, 2], and a log start moved to 2 would sit inside it.
    await runPinned([
      new AppendCommand(1, false, false),
      new AppendCommand(2, false, false),
      new FlushCommand(),
      new TruncateCommand(0.334),
      new AppendCommand(1, false, false),
      new HighWatermarkCommand(0.6),
      new SnapshotCommand(0, false),
      new SnapshotCommand(0, true),
      new ReopenCommand('garble-unsynced', 0),
    ]);
  });

  it('pinned: no log-start move above a cut a roll put in the files but no flush synced (seed -1873813575)', async () => {
    // The roll settles the truncation to 0 with an ftruncate and no sync; the snapshot at 1 must
    // not move the log start, or the crash brings the truncated batch [0, 1] back around it.
    await runPinned([
      new AppendCommand(2, false, false),
      new ReopenCommand(undefined, 0),
      new TruncateCommand(0),
      new RollCommand(),
      new AppendCommand(1, false, false),
      new HighWatermarkCommand(0.5),
      new SnapshotCommand(0, true),
      new ReopenCommand('tear-unsynced', 0),
    ]);
  });

  it('pinned: a truncation inside the full truncation an open holds sets no cut of its own (seed 945166339)', async () => {
    // The reopen installs the snapshot at 1 (a full truncation held until the next flush); the
    // truncation to 1 and the append after it are part of that, so the snapshot at 2 may move
    // the log start: what a crash brings back lies below the snapshot, which the open installs.
    await runPinned([
      new AppendCommand(1, false, false),
      new HighWatermarkCommand(0.5),
      new SnapshotCommand(0, false),
      new ReopenCommand('drop-unsynced', 0),
      new AppendCommand(1, false, false),
      new TruncateCommand(0),
      new AppendCommand(1, false, false),
      new HighWatermarkCommand(0.5),
      new SnapshotCommand(0, true),
    ]);
  });

  it('pinned: an unflushed batch whose epoch a crash garbled is cut, not recovered with that epoch (seed -568916887)', async () => {
    // The CRC leaves the partition leader epoch out: the garbled batch passed it, and the empty
    // epoch checkpoint vouched for nothing, so recovery took epoch 51456 for offset 0.
    await runPinned([new AppendCommand(1, false, false), new ReopenCommand('garble-unsynced', 1716435731)]);
  });

  it('pinned: after a reopen empty at the snapshot, a truncation may be part of a held full truncation (seed -1639812772)', async () => {
    await runPinned([
      new AppendCommand(1, false, false),
      new HighWatermarkCommand(0.5),
      new SnapshotCommand(0, true),
      new ReopenCommand('drop-unsynced', 0),
      new AppendCommand(1, false, false),
      new TruncateCommand(0),
      new AppendCommand(1, false, false),
      new HighWatermarkCommand(0.5),
      new SnapshotCommand(0, true),
    ]);
  });

  it('pinned: a new epoch after a truncation is above every epoch the log held (seed of a 5,000-run soak)', async () => {
    // With epoch 1 reused for a second history, a snapshot (1, 1) of it sat beside the first
    // history's epoch-1 batch after the crash brought that back: a state no quorum produces.
    await runPinned([
      new AppendCommand(2, false, false),
      new AppendCommand(1, true, false),
      new FlushCommand(),
      new TruncateCommand(0),
      new AppendCommand(1, true, false),
      new HighWatermarkCommand(0.5),
      new SnapshotCommand(0, false),
      new ReopenCommand('garble-unsynced', 0),
      new HighWatermarkCommand(0.4),
      new SnapshotCommand(0, false),
    ]);
  });

  it('agrees after any sequence of appends, reads, HWM moves, truncations, rolls, snapshots and reopens', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands(commands, { maxCommands: 50, size: 'max' }),
        fc.boolean(),
        async (sequence, preallocate) => {
          const fileSystem = new MemoryFileSystem();
          fileSystem.mkdir(DIR);
          const real: Real = { fileSystem, log: open(fileSystem, preallocate), preallocate };
          await fc.asyncModelRun(() => ({ model: new Model(), real }), sequence);
        },
      ),
      { numRuns: MODEL_RUNS },
    );
  });
});

/** One log: a batch per entry of `batchSizes`, the HWM at `highWatermark`, snapshots at `snapshotPicks`. */
function buildCleaningFixture(
  batchSizes: readonly number[],
  snapshotPicks: readonly number[],
  highWatermark: number,
  retentionMaxBytes: number,
): { fileSystem: MemoryFileSystem; log: RaftLog; snapshots: OffsetAndEpoch[] } {
  const fileSystem = new MemoryFileSystem();
  fileSystem.mkdir(DIR);
  const log = RaftLog.open({
    dir: DIR,
    fileSystem,
    config: testConfig({ internalSegmentBytes: 1024, retentionMaxBytes, retentionMs: -1 }),
    time: () => TEST_NOW_MS,
  });
  for (const valueBytes of batchSizes) log.appendAsLeader(dataBatch({ count: 1, valueBytes }), 1);
  log.updateHighWatermark(Math.min(highWatermark, log.endOffset()));
  const snapshots: OffsetAndEpoch[] = [];
  // Negative picks choose a segment base offset: where an off-by-one in "wholly below" shows.
  const bases = log.segmentBaseOffsets();
  const offsets = snapshotPicks
    .map((pick) => (pick < 0 ? (bases[-pick % bases.length] as number) : pick))
    .sort((left, right) => left - right);
  for (const offset of offsets) {
    if (offset <= (snapshots.at(-1)?.offset ?? 0) || offset > log.highWatermark()) continue;
    const id = { offset, epoch: 1 };
    const writer = log.createNewSnapshot(id);
    if (writer === undefined) continue;
    writer.append(dataBatch({ epoch: 1, prefix: 'snapshot', count: 1 + (offset % 4) }));
    writer.freeze();
    writer.close();
    snapshots.push(id);
  }
  return { fileSystem, log, snapshots };
}

/** Kafka's retention-by-bytes loop, one `deleteBeforeSnapshot` per step, through the public API. */
function cleanStepByStep(log: RaftLog, snapshots: OffsetAndEpoch[], limit: number): boolean {
  const remaining = [...snapshots];
  let snapshotBytes = remaining.reduce((sum, id) => sum + (log.readSnapshot(id)?.sizeInBytes() ?? 0), 0);
  let cleaned = false;
  while (remaining.length >= 2) {
    const [oldest, next] = remaining as [OffsetAndEpoch, OffsetAndEpoch];
    if (log.sizeInBytes() + snapshotBytes <= limit) break;
    snapshotBytes -= log.readSnapshot(oldest)?.sizeInBytes() ?? 0;
    if (!log.deleteBeforeSnapshot(next)) break;
    remaining.shift();
    cleaned = true;
  }
  return cleaned;
}

describe('RaftLog retention', () => {
  it('moving the log start once ends where Kafka’s step-by-step cleaning ends', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 10, max: 400 }), { minLength: 1, maxLength: 40 }),
        fc.array(fc.integer({ min: -40, max: 40 }), { maxLength: 8 }),
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 12_000 }),
        (batchSizes, snapshotPicks, highWatermark, limit) => {
          const once = buildCleaningFixture(batchSizes, snapshotPicks, highWatermark, limit);
          const steps = buildCleaningFixture(batchSizes, snapshotPicks, highWatermark, limit);
          expect(once.log.maybeClean(TEST_NOW_MS)).toBe(cleanStepByStep(steps.log, steps.snapshots, limit));
          expect([once.log.startOffset(), once.log.earliestSnapshotId(), once.log.sizeInBytes()]).toEqual([
            steps.log.startOffset(),
            steps.log.earliestSnapshotId(),
            steps.log.sizeInBytes(),
          ]);
          expect(once.fileSystem.list(`${DIR}/__cluster_metadata-0`).sort()).toEqual(
            steps.fileSystem.list(`${DIR}/__cluster_metadata-0`).sort(),
          );
          once.log.close();
          steps.log.close();
        },
      ),
      { numRuns: 300 },
    );
  });
});
