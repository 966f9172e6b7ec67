import { KRaftError } from '@kraft/protocol';
import { type CrashMode, MemoryFileSystem } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import {
  type BatchSummary,
  captureFiles,
  dataBatch,
  materialize,
  readAll,
  seededRandom,
  TEST_NOW_MS,
  testConfig,
} from '../test/support/log-fixtures.js';
import { FlushedDataLossError } from './errors/log-errors.js';
import { RaftLog } from './raft-log.js';
import type { LostFlushedDataPolicy } from './raft-log-types.js';

const DIR = '/data/metadata';
const PARTITION = `${DIR}/__cluster_metadata-0`;

function openLog(
  fileSystem: MemoryFileSystem,
  options: { preallocate?: boolean; lostFlushedData?: LostFlushedDataPolicy } = {},
): RaftLog {
  const { lostFlushedData, ...config } = options;
  return RaftLog.open({
    dir: DIR,
    fileSystem,
    config: testConfig(config),
    time: () => TEST_NOW_MS,
    ...(lostFlushedData === undefined ? {} : { lostFlushedData }),
  });
}

/** The recovery-point checkpoint as it would read had the log been flushed only below `offset`. */
function withRecoveryPoint(files: Map<string, Buffer>, offset: number): Map<string, Buffer> {
  const changed = new Map(files);
  changed.set(
    `${DIR}/recovery-point-offset-checkpoint`,
    Buffer.from(`0\n1\n__cluster_metadata 0 ${offset}\n`),
  );
  return changed;
}

function segmentPaths(fileSystem: MemoryFileSystem): string[] {
  return fileSystem
    .list(PARTITION)
    .filter((name) => name.endsWith('.log'))
    .map((name) => `${PARTITION}/${name}`);
}

/** A log of `batches` batches in two epochs, all flushed, then crashed (so no clean marker). */
async function flushedLog(
  batches: number,
): Promise<{ files: Map<string, Buffer>; expected: BatchSummary[] }> {
  const fileSystem = new MemoryFileSystem();
  fileSystem.mkdir(DIR);
  const log = openLog(fileSystem);
  log.initializeLeaderEpoch(1);
  for (let index = 0; index < batches; index += 1) {
    if (index === Math.floor(batches / 2)) log.initializeLeaderEpoch(2);
    log.appendAsLeader(
      dataBatch({ count: 1 + (index % 3), valueBytes: 30, prefix: `b${index}` }),
      index < batches / 2 ? 1 : 2,
    );
  }
  await log.flush();
  const expected = readAll(log, 'uncommitted');
  fileSystem.crash();
  return { files: captureFiles(fileSystem, DIR), expected };
}

describe('crash recovery', () => {
  it('cuts a torn last batch above the recovery point at every byte offset back to the previous batch', async () => {
    const { files: flushed, expected } = await flushedLog(24);
    const last = expected.at(-1) as BatchSummary;
    // The last batch was never flushed: the checkpoint stops before it.
    const files = withRecoveryPoint(flushed, last.baseOffset);
    const lastPath = segmentPaths(materialize(files)).at(-1) as string;
    const original = files.get(lastPath) as Buffer;
    const lastBatchStart = original.length - lastBatchSize(original);
    for (let cut = lastBatchStart; cut < original.length; cut += 1) {
      const torn = new Map(files);
      torn.set(lastPath, original.subarray(0, cut));
      const log = openLog(materialize(torn));
      expect(log.endOffset()).toBe(last.baseOffset);
      expect(readAll(log, 'uncommitted')).toEqual(expected.slice(0, -1));
    }
  });

  it.each<CrashMode>(['drop-unsynced', 'tear-unsynced', 'garble-unsynced'])(
    'recovers to the last complete valid batch after a power loss (%s)',
    async (mode) => {
      for (let seed = 1; seed <= 60; seed += 1) {
        const random = seededRandom(seed);
        const fileSystem = new MemoryFileSystem();
        fileSystem.mkdir(DIR);
        const log = openLog(fileSystem, { preallocate: seed % 2 === 0 });
        log.initializeLeaderEpoch(1);
        const appended: string[] = [];
        const append = (epoch: number): void => {
          const prefix = `s${seed}-${appended.length}`;
          log.appendAsLeader(
            dataBatch({ count: 1 + Math.floor(random() * 4), valueBytes: 20, prefix }),
            epoch,
          );
          appended.push(prefix);
        };
        for (let index = 0; index < 5 + Math.floor(random() * 20); index += 1) append(1);
        const flushed = await log.flush();
        log.initializeLeaderEpoch(2);
        for (let index = 0; index < 1 + Math.floor(random() * 20); index += 1) append(2);
        const everything = readAll(log, 'uncommitted');
        fileSystem.crash({ mode, random });
        const recovered = openLog(fileSystem);
        const batches = readAll(recovered, 'uncommitted');
        expect(recovered.endOffset()).toBeGreaterThanOrEqual(flushed);
        if (mode === 'drop-unsynced') expect(recovered.endOffset()).toBe(flushed);
        expect(batches).toEqual(everything.slice(0, batches.length));
        expect(recovered.lastFetchedEpoch()).toBe(batches.at(-1)?.epoch ?? 0);
        // The recovered log takes appends and survives another crash.
        recovered.appendAsLeader(dataBatch(), 3);
        await recovered.flush();
        fileSystem.crash();
        expect(openLog(fileSystem).endOffset()).toBe(recovered.endOffset());
      }
    },
  );

  it('detects 10,000 single-bit flips in flushed closed segments: refused, or cut when the loss is accepted, never data', async () => {
    const { files, expected } = await flushedLog(40);
    const paths = segmentPaths(materialize(files));
    const closed = paths.slice(0, -1);
    expect(closed.length).toBeGreaterThanOrEqual(2);
    const random = seededRandom(20_841);
    let truncations = 0;
    let refusals = 0;
    let errors = 0;
    for (let trial = 0; trial < 10_000; trial += 1) {
      const path = closed[Math.floor(random() * closed.length)] as string;
      const bytes = Buffer.from(files.get(path) as Buffer);
      const position = Math.floor(random() * bytes.length);
      bytes[position] = (bytes[position] as number) ^ (1 << Math.floor(random() * 8));
      const flipped = new Map(files);
      flipped.set(path, bytes);
      const flippedBase = baseOffsetOfBatchAt(files.get(path) as Buffer, position, expected);
      try {
        const fileSystem = materialize(flipped);
        // Below the recovery point every detected flip is lost flushed data: refused by default.
        expect(() => openLog(fileSystem)).toThrow(FlushedDataLossError);
        refusals += 1;
        const log = openLog(fileSystem, { lostFlushedData: 'accept-loss' });
        expect(log.endOffset()).toBeLessThanOrEqual(flippedBase);
        // Whatever survived is a byte prefix of what was written: the flipped byte is gone.
        for (const survivor of segmentPaths(fileSystem)) {
          const kept = fileSystem.readFile(survivor);
          if (!kept.equals((files.get(survivor) as Buffer).subarray(0, kept.length)))
            throw new Error(`flip kept in ${survivor}`);
        }
        if (trial % 250 === 0)
          expect(readAll(log, 'uncommitted')).toEqual(
            expected.filter((batch) => batch.baseOffset < log.endOffset()),
          );
        truncations += 1;
      } catch (error) {
        if (!KRaftError.isInstance(error)) throw error;
        errors += 1;
      }
    }
    expect(truncations + errors).toBe(10_000);
    expect(refusals).toBe(truncations);
  });

  it('opens after a clean shutdown without validating data it does not need', async () => {
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir(DIR);
    const log = openLog(fileSystem);
    for (let index = 0; index < 30; index += 1)
      log.appendAsLeader(dataBatch({ count: 2, valueBytes: 40 }), 1);
    log.close();
    // Damage a record body in the first segment: a clean open does not scan it, a read's CRC check catches it.
    const first = segmentPaths(fileSystem)[0] as string;
    const handle = fileSystem.open(first, {});
    handle.write(Buffer.from([0xff]), 100);
    handle.sync();
    handle.close();
    const reopened = openLog(fileSystem);
    expect(reopened.endOffset()).toBe(60);
    expect(() => readAll(reopened, 'uncommitted')).toThrow(KRaftError);
  });
});

/** Size of the last batch in a segment file (walk the length fields). */
function lastBatchSize(segment: Buffer): number {
  let position = 0;
  let size = 0;
  while (position < segment.length) {
    size = segment.readInt32BE(position + 8) + 12;
    position += size;
  }
  return size;
}

/** Base offset of the batch covering byte `position` of a segment file. */
function baseOffsetOfBatchAt(segment: Buffer, position: number, expected: readonly BatchSummary[]): number {
  let start = 0;
  for (;;) {
    const size = segment.readInt32BE(start + 8) + 12;
    if (position < start + size) {
      const baseOffset = Number(segment.readBigInt64BE(start));
      expect(expected.some((batch) => batch.baseOffset === baseOffset)).toBe(true);
      return baseOffset;
    }
    start += size;
  }
}
