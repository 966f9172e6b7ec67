import { KRaftError, type Logger } from '@kraft/protocol';
import { type FileHandle, type FileSystem, MemoryFileSystem, type OpenOptions } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { appendAsFollowerOrThrow } from '../test/support/follower-append.js';
import {
  captureFiles,
  dataBatch,
  FailingFileSystem,
  type LogLine,
  readAll,
  recordingLogger,
  TEST_NOW_MS,
  testConfig,
} from '../test/support/log-fixtures.js';
import { FlushedDataLossError } from './errors/log-errors.js';
import { RaftLog } from './raft-log.js';
import type { LostFlushedDataPolicy } from './raft-log-types.js';
import { CLEAN_SHUTDOWN_FILE } from './segment/segmented-log.js';

const DIR = '/data/metadata';
const PARTITION = `${DIR}/__cluster_metadata-0`;
const RECOVERY_POINT = `${DIR}/recovery-point-offset-checkpoint`;
const MARKER = `${PARTITION}/${CLEAN_SHUTDOWN_FILE}`;
const FIRST_SEGMENT = `${PARTITION}/00000000000000000000.log`;

function open(fileSystem: FileSystem, lostFlushedData?: LostFlushedDataPolicy, logger?: Logger): RaftLog {
  return RaftLog.open({
    dir: DIR,
    fileSystem,
    config: testConfig(),
    time: () => TEST_NOW_MS,
    ...(lostFlushedData === undefined ? {} : { lostFlushedData }),
    ...(logger === undefined ? {} : { logger }),
  });
}

function newFileSystem(): MemoryFileSystem {
  const fileSystem = new MemoryFileSystem();
  fileSystem.mkdir(DIR);
  return fileSystem;
}

/** 30 two-record batches in epoch 1 (offsets 0-59) over several segments. */
function appendThirty(log: RaftLog): void {
  for (let index = 0; index < 30; index += 1)
    log.appendAsLeader(dataBatch({ count: 2, valueBytes: 40, prefix: `b${index}` }), 1);
}

/** Flips one byte of a record body in the middle of the first segment, durably. */
function flipByte(fileSystem: MemoryFileSystem, path = FIRST_SEGMENT, position = 300): void {
  const handle = fileSystem.open(path, {});
  const byte = Buffer.alloc(1);
  handle.read(byte, 0, 1, position);
  handle.write(Buffer.from([(byte[0] as number) ^ 0x10]), position);
  handle.sync();
  handle.close();
}

function recoveryPointOnDisk(fileSystem: MemoryFileSystem): string {
  return fileSystem.readFile(RECOVERY_POINT).toString('utf8');
}

function segmentBytes(fileSystem: MemoryFileSystem): Map<string, Buffer> {
  const files = captureFiles(fileSystem, PARTITION);
  return new Map([...files].filter(([path]) => path.endsWith('.log')));
}

/** Offsets 0-59 appended and flushed, then a power loss: the recovery point says 60. */
async function flushedThenCrashed(): Promise<{ fileSystem: MemoryFileSystem; segments: number[] }> {
  const fileSystem = newFileSystem();
  const log = open(fileSystem);
  appendThirty(log);
  await log.flush();
  await log.recoveryPointSettled();
  const segments = log.segmentBaseOffsets();
  fileSystem.crash();
  return { fileSystem, segments };
}

/** Overwrites the start of the recovery-point checkpoint durably with bytes no parser accepts. */
function garbleRecoveryPoint(fileSystem: MemoryFileSystem): void {
  const handle = fileSystem.open(RECOVERY_POINT, {});
  handle.write(Buffer.from('garbage'), 0);
  handle.sync();
  handle.close();
}

describe('the recovery point tells lost flushed data from a torn tail', () => {
  it('a byte flipped mid-segment after a clean stop is refused on every start, never cut', () => {
    const fileSystem = newFileSystem();
    const log = open(fileSystem);
    appendThirty(log);
    log.close();
    flipByte(fileSystem);
    const before = segmentBytes(fileSystem);

    // First start: the clean open trusts the files; the damage surfaces as a CRC error on read
    // (in the test server: the listener reading the committed log), and the process dies.
    const first = open(fileSystem);
    expect(() => readAll(first, 'uncommitted')).toThrow(KRaftError);
    fileSystem.crash();

    // Second start: the marker is gone, so every batch is validated. The damage lies below the
    // recovery point (everything was flushed by the clean stop): refused, with the file and
    // position, and no batch removed. Before the recovery point this cut 59 of 60 offsets with a WARN.
    const lines: LogLine[] = [];
    let refused: unknown;
    try {
      open(fileSystem, undefined, recordingLogger(lines));
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(FlushedDataLossError);
    const loss = (refused as FlushedDataLossError).loss;
    expect(loss).toMatchObject({ file: FIRST_SEGMENT, damage: 'corrupt batch', recoveryPoint: 60 });
    expect(loss.positionBytes).toBeLessThanOrEqual(300);
    expect(loss.firstLostOffset).toBeLessThan(60);
    expect((refused as Error).message).toMatch(/byte \d+; opening would lose offsets \d+ to 59/);
    expect((refused as Error).message).toMatch(/restore the log directory/);
    expect(segmentBytes(fileSystem)).toEqual(before);
    expect(lines.filter((line) => line.level === 'warn' && /truncated/.test(line.message))).toEqual([]);
    // And again on the next start: the refusal is stable.
    expect(() => open(fileSystem)).toThrow(FlushedDataLossError);
  });

  it('keeps the clean-shutdown marker when the open fails, and removes it once an open succeeds', () => {
    const fileSystem = newFileSystem();
    const log = open(fileSystem);
    appendThirty(log);
    log.close();
    // A log start above 0 with no snapshot covering it fails RaftLog.open after the segments opened.
    const checkpoint = fileSystem.open(`${DIR}/log-start-offset-checkpoint`, { create: true });
    checkpoint.write(Buffer.from('0\n1\n__cluster_metadata 0 10\n'), 0);
    checkpoint.sync();
    checkpoint.close();
    fileSystem.syncDirectory(DIR);
    expect(() => open(fileSystem)).toThrow(KRaftError);
    expect(fileSystem.exists(MARKER)).toBe(true);
    fileSystem.unlink(`${DIR}/log-start-offset-checkpoint`);
    const lines: LogLine[] = [];
    const reopened = open(fileSystem, undefined, recordingLogger(lines));
    expect(lines.find((line) => line.message === 'opened log')?.fields['clean']).toBe(true);
    expect(fileSystem.exists(MARKER)).toBe(false);
    expect(reopened.endOffset()).toBe(60);
  });

  it('cuts damage at or above the recovery point after an unclean stop, with a WARN', async () => {
    const fileSystem = newFileSystem();
    const log = open(fileSystem);
    appendThirty(log);
    expect(await log.flush()).toBe(60);
    for (let index = 0; index < 5; index += 1) log.appendAsLeader(dataBatch({ count: 2 }), 1);
    fileSystem.crash({ mode: 'garble-unsynced', random: garbleEverything() });
    const lines: LogLine[] = [];
    const reopened = open(fileSystem, undefined, recordingLogger(lines));
    expect(reopened.endOffset()).toBe(60);
    expect(reopened.recoveringUntilOffset()).toBeUndefined();
    expect(lines.some((line) => line.level === 'warn' && /torn log tail/.test(line.message))).toBe(true);
    expect(recoveryPointOnDisk(fileSystem)).toBe('0\n1\n__cluster_metadata 0 60\n');
  });

  it('refuses damage below the recovery point after an unclean stop and changes no batch', async () => {
    const { fileSystem } = await flushedThenCrashed();
    flipByte(fileSystem);
    const before = segmentBytes(fileSystem);
    expect(() => open(fileSystem)).toThrow(FlushedDataLossError);
    expect(segmentBytes(fileSystem)).toEqual(before);
  });

  it('refuses a log that simply ends before its recovery point (a lost tail segment)', async () => {
    const { fileSystem, segments } = await flushedThenCrashed();
    const last = segments.at(-1) as number;
    fileSystem.unlink(`${PARTITION}/${String(last).padStart(20, '0')}.log`);
    fileSystem.syncDirectory(PARTITION);
    expect(() => open(fileSystem)).toThrow(/the log ends before its recovery point/);
  });

  it('treats damage as lost when the checkpoint is unreadable, but opens an undamaged log and repairs it', async () => {
    const { fileSystem } = await flushedThenCrashed();
    garbleRecoveryPoint(fileSystem);
    expect(open(fileSystem).endOffset()).toBe(60);
    expect(recoveryPointOnDisk(fileSystem)).toBe('0\n1\n__cluster_metadata 0 60\n');
    fileSystem.crash();
    garbleRecoveryPoint(fileSystem);
    flipByte(fileSystem);
    expect(() => open(fileSystem, 'recover-from-quorum')).toThrow(/recovery-point checkpoint is unreadable/);
  });

  it('with accept-loss cuts below the recovery point, logs an ERROR and forgets the old recovery point', async () => {
    const { fileSystem } = await flushedThenCrashed();
    flipByte(fileSystem);
    const lines: LogLine[] = [];
    const reopened = open(fileSystem, 'accept-loss', recordingLogger(lines));
    expect(reopened.endOffset()).toBeLessThan(60);
    expect(reopened.recoveringUntilOffset()).toBeUndefined();
    expect(lines.some((line) => line.level === 'error' && /loss accepted/.test(line.message))).toBe(true);
    fileSystem.crash();
    expect(open(fileSystem).endOffset()).toBe(reopened.endOffset());
  });
});

describe('recovering lost flushed data from the quorum', () => {
  /** A log flushed to 60, then a byte flipped below it and reopened with recover-from-quorum. */
  async function damaged(): Promise<{ fileSystem: MemoryFileSystem; log: RaftLog }> {
    const { fileSystem } = await flushedThenCrashed();
    flipByte(fileSystem);
    return { fileSystem, log: open(fileSystem, 'recover-from-quorum') };
  }

  /** Appends what a leader would send from the log end to `until`, then flushes. */
  async function refetch(log: RaftLog, until: number): Promise<void> {
    while (log.endOffset() < until) {
      appendAsFollowerOrThrow(log, dataBatch({ baseOffset: log.endOffset(), epoch: 2, count: 2 }), 2);
    }
    await log.flush();
  }

  it('cuts at the damage and stays recovering, across crashes and clean stops, until flushed past the old recovery point', async () => {
    const { fileSystem, log } = await damaged();
    expect(log.endOffset()).toBeLessThan(60);
    expect(log.recoveringUntilOffset()).toBe(60);
    // The checkpoint still holds the old recovery point: that is the durable recovering state.
    expect(recoveryPointOnDisk(fileSystem)).toBe('0\n1\n__cluster_metadata 0 60\n');
    await refetch(log, 40);
    expect(log.recoveringUntilOffset()).toBe(60);
    fileSystem.crash();
    let reopened = open(fileSystem, 'recover-from-quorum');
    expect([reopened.endOffset(), reopened.recoveringUntilOffset()]).toEqual([40, 60]);
    reopened.close();
    reopened = open(fileSystem, 'recover-from-quorum');
    expect(reopened.recoveringUntilOffset()).toBe(60);
    // A follower truncation during catch-up does not lower the target.
    reopened.truncateTo(30);
    expect(reopened.recoveringUntilOffset()).toBe(60);
    await refetch(reopened, 58);
    expect(reopened.recoveringUntilOffset()).toBe(60);
    await refetch(reopened, 62);
    expect(reopened.lastFlushedOffset()).toBe(62);
    expect(reopened.recoveringUntilOffset()).toBeUndefined();
    fileSystem.crash();
    const caughtUp = open(fileSystem);
    expect([caughtUp.endOffset(), caughtUp.recoveringUntilOffset()]).toEqual([62, undefined]);
  });

  it('refuses a restart during catch-up that no longer consents to recovering', async () => {
    const { fileSystem } = await damaged();
    fileSystem.crash();
    expect(() => open(fileSystem)).toThrow(/the log ends before its recovery point/);
  });

  it('ends recovery when a snapshot past the old recovery point is installed', async () => {
    const { fileSystem, log } = await damaged();
    const writer = log.createNewSnapshotUnchecked({ offset: 80, epoch: 3 });
    writer?.append(dataBatch({ epoch: 3, count: 3 }));
    writer?.freeze();
    expect(log.truncateToLatestSnapshot()).toBe(true);
    expect(log.recoveringUntilOffset()).toBeUndefined();
    // The install's files change in the next flush (ADR 0036); a crash before it is still recovering.
    await log.flush();
    fileSystem.crash();
    expect(open(fileSystem).startOffset()).toBe(80);
  });
});

describe('the recovery-point checkpoint under crashes', () => {
  it('is written in the background after a flush reports, and durable once settled', async () => {
    const fileSystem = newFileSystem();
    const held = new HeldCheckpointSyncs(fileSystem);
    const log = open(held);
    appendThirty(log);
    // The flush reports without waiting for the checkpoint's sync: no second sync on the commit path.
    expect(await log.flush()).toBe(60);
    expect(held.waiting()).toBe(1);
    held.release();
    await log.recoveryPointSettled();
    fileSystem.crash();
    expect(recoveryPointOnDisk(fileSystem)).toBe('0\n1\n__cluster_metadata 0 60\n');
  });

  it('loses only the unsynced checkpoint in a crash before it settles (the window of ADR 0010)', async () => {
    const fileSystem = newFileSystem();
    const held = new HeldCheckpointSyncs(fileSystem);
    const log = open(held);
    appendThirty(log);
    await log.flush();
    fileSystem.crash();
    expect(recoveryPointOnDisk(fileSystem)).toBe('0\n1\n__cluster_metadata 0 0\n');
    expect(open(fileSystem).endOffset()).toBe(60);
  });

  it('fails the next flush when the checkpoint cannot be synced, then writes it again', async () => {
    const fileSystem = newFileSystem();
    const log = open(fileSystem);
    appendThirty(log);
    fileSystem.injectFault('sync', { pathIncludes: 'recovery-point-offset-checkpoint' });
    expect(await log.flush()).toBe(60);
    await expect(log.flush()).rejects.toThrow(KRaftError);
    log.appendAsLeader(dataBatch({ count: 2 }), 1);
    expect(await log.flush()).toBe(62);
    await log.recoveryPointSettled();
    fileSystem.crash();
    expect(recoveryPointOnDisk(fileSystem)).toBe('0\n1\n__cluster_metadata 0 62\n');
  });

  it('never claims more than is durable: a power loss at every step of append, flush and truncate never refuses', async () => {
    for (let failAt = 1; ; failAt += 1) {
      const fileSystem = newFileSystem();
      const base = open(fileSystem);
      appendThirty(base);
      await base.flush();
      base.close();
      const failing = new FailingFileSystem(fileSystem, failAt);
      let completed = true;
      let reported = 0;
      try {
        const log = open(failing);
        for (let index = 0; index < 20; index += 1)
          log.appendAsLeader(dataBatch({ count: 2, valueBytes: 40 }), 2);
        reported = await log.flush();
        // From here the truncation may remove what the flush reported above 70.
        reported = Math.min(reported, 70);
        log.truncateTo(70);
        log.appendAsLeader(dataBatch({ count: 2 }), 3);
        reported = await log.flush();
        await log.recoveryPointSettled();
      } catch (error) {
        if (!KRaftError.isInstance(error)) throw error;
        completed = false;
      }
      fileSystem.crash();
      const reopened = open(fileSystem);
      expect(reopened.endOffset()).toBeGreaterThanOrEqual(Math.max(60, reported));
      if (completed) {
        expect(reopened.endOffset()).toBe(72);
        expect(failAt).toBeGreaterThan(10);
        return;
      }
    }
  });
});

/**
 * The MemoryFileSystem with the recovery-point checkpoint's asynchronous syncs held until
 * `release()`: shows what a power loss finds while the background checkpoint write is in flight.
 */
class HeldCheckpointSyncs extends FailingFileSystem {
  private readonly held: Array<() => void> = [];

  constructor(inner: MemoryFileSystem) {
    super(inner, Number.POSITIVE_INFINITY);
  }

  waiting(): number {
    return this.held.length;
  }

  release(): void {
    for (const resume of this.held.splice(0)) resume();
  }

  override open(path: string, options?: OpenOptions): FileHandle {
    const handle = super.open(path, options);
    if (!path.endsWith('recovery-point-offset-checkpoint')) return handle;
    const held = this.held;
    const syncAsync = (): Promise<void> =>
      new Promise<void>((resolve) => held.push(resolve)).then(() => handle.syncAsync());
    return Object.assign(Object.create(handle) as FileHandle, { syncAsync });
  }
}

/** A random source that garbles every unsynced byte it is asked about. */
function garbleEverything(): () => number {
  let draw = 0;
  return () => {
    draw += 1;
    return draw % 2 === 1 ? 0 : 0.37;
  };
}
