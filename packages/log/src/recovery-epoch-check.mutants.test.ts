import { MemoryFileSystem } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import {
  type BatchSummary,
  captureFiles,
  dataBatch,
  materialize,
  readAll,
  TEST_NOW_MS,
  testConfig,
} from '../test/support/log-fixtures.js';
import { FlushedDataLossError } from './errors/log-errors.js';
import { RaftLog } from './raft-log.js';
import type { LostFlushedDataPolicy } from './raft-log-types.js';

// Tests written for mutants of the recovery epoch check that survived `pnpm mutation`
// (docs/reliability.md, "Mutation testing"): each names the rule it pins down.

const DIR = '/data/metadata';
const PARTITION = `${DIR}/__cluster_metadata-0`;
const FIRST_SEGMENT = `${PARTITION}/00000000000000000000.log`;
const EPOCH_CHECKPOINT = `${PARTITION}/leader-epoch-checkpoint`;
/** The partition leader epoch field of a batch (after baseOffset and batchLength); no CRC covers it. */
const PARTITION_LEADER_EPOCH_POSITION = 12;

function openLog(fileSystem: MemoryFileSystem, lostFlushedData?: LostFlushedDataPolicy): RaftLog {
  return RaftLog.open({
    dir: DIR,
    fileSystem,
    config: testConfig(),
    time: () => TEST_NOW_MS,
    ...(lostFlushedData === undefined ? {} : { lostFlushedData }),
  });
}

/** Offsets 0-2 in epoch 1 and 3-4 in epoch 2, one record a batch, flushed, then a crash. */
async function twoEpochLog(): Promise<{ files: Map<string, Buffer>; expected: BatchSummary[] }> {
  const fileSystem = new MemoryFileSystem();
  fileSystem.mkdir(DIR);
  const log = openLog(fileSystem);
  for (const epoch of [1, 1, 1, 2, 2]) {
    if (epoch !== log.lastFetchedEpoch()) log.initializeLeaderEpoch(epoch);
    log.appendAsLeader(dataBatch({ prefix: `e${epoch}` }), epoch);
  }
  await log.flush();
  await log.recoveryPointSettled();
  const expected = readAll(log, 'uncommitted');
  fileSystem.crash();
  return { files: captureFiles(fileSystem, DIR), expected };
}

/** Byte position of the batch at `baseOffset` in a segment file. */
function batchPosition(segment: Buffer, baseOffset: number): number {
  let position = 0;
  while (position + 12 <= segment.length) {
    if (Number(segment.readBigInt64BE(position)) === baseOffset) return position;
    position += 12 + segment.readInt32BE(position + 8);
  }
  throw new Error(`no batch at ${baseOffset}`);
}

function withBatchEpoch(files: Map<string, Buffer>, baseOffset: number, epoch: number): Map<string, Buffer> {
  const segment = Buffer.from(files.get(FIRST_SEGMENT) as Buffer);
  segment.writeInt32BE(epoch, batchPosition(segment, baseOffset) + PARTITION_LEADER_EPOCH_POSITION);
  return new Map(files).set(FIRST_SEGMENT, segment);
}

describe('recovery epoch check below the first epoch entry', () => {
  /** The epoch checkpoint after the log start had moved to 3: batches 0-2 lie below its first entry. */
  async function logWithDataBelowTheFirstEntry() {
    const { files, expected } = await twoEpochLog();
    const trimmed = new Map(files).set(EPOCH_CHECKPOINT, Buffer.from('0\n1\n2 3\n'));
    return { files: trimmed, expected };
  }

  it('keeps batches below the first entry whose epochs do not exceed it, and restores their epochs', async () => {
    const { files, expected } = await logWithDataBelowTheFirstEntry();
    const fileSystem = materialize(files);
    const log = openLog(fileSystem);
    expect(readAll(log, 'uncommitted')).toEqual(expected);
    expect(log.endOffsetForEpoch(1)).toEqual({ offset: 3, epoch: 1 });
    // One entry per epoch found below the first one, at the epoch's first batch.
    expect(fileSystem.readFile(EPOCH_CHECKPOINT).toString()).toBe('0\n2\n1 0\n2 3\n');
  });

  it('a batch below the first entry with an epoch lower than the batch before it is damage: cut there', async () => {
    const { files, expected } = await logWithDataBelowTheFirstEntry();
    const log = openLog(materialize(withBatchEpoch(files, 1, 0)), 'accept-loss');
    expect(log.endOffset()).toBe(1);
    expect(readAll(log, 'uncommitted')).toEqual(expected.slice(0, 1));
  });

  it('a batch below the first entry with an epoch above it is damage: refused, or cut at that batch', async () => {
    const { files, expected } = await logWithDataBelowTheFirstEntry();
    // The flipped batch is the last below the entry: what follows it (epoch 2) must not be the
    // first place the damage is seen, or the batch would be kept with a wrong epoch.
    const flipped = withBatchEpoch(files, 2, 3);
    expect(() => openLog(materialize(flipped))).toThrow(FlushedDataLossError);
    const log = openLog(materialize(flipped), 'accept-loss');
    expect(log.endOffset()).toBe(2);
    expect(readAll(log, 'uncommitted')).toEqual(expected.slice(0, 2));
  });
});

describe('recovery epoch check while rebuilding a missing epoch checkpoint', () => {
  it('epochs must not go down from batch to batch: the first lower one is cut, the cache rebuilt from the rest', async () => {
    const { files, expected } = await twoEpochLog();
    const withoutCheckpoint = new Map(files);
    withoutCheckpoint.delete(EPOCH_CHECKPOINT);
    const fileSystem = materialize(withBatchEpoch(withoutCheckpoint, 4, 1));
    const intact = openLog(materialize(withoutCheckpoint));
    expect(readAll(intact, 'uncommitted')).toEqual(expected);
    const log = openLog(fileSystem, 'accept-loss');
    // Batch 4 now reads epoch 1 after batch 3's epoch 2.
    expect(log.endOffset()).toBe(4);
    expect(readAll(log, 'uncommitted')).toEqual(expected.slice(0, 4));
    expect(fileSystem.readFile(EPOCH_CHECKPOINT).toString()).toBe('0\n2\n1 0\n2 3\n');
  });
});

describe('recovery epoch check against the checkpoint', () => {
  it('a batch that an epoch entry starts inside of is damage, even when its epoch is the entry epoch', async () => {
    // Offsets 0-2 (one batch) in epoch 1, 3-5 (one batch) in epoch 2.
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir(DIR);
    const log = openLog(fileSystem);
    log.initializeLeaderEpoch(1);
    log.appendAsLeader(dataBatch({ count: 3, prefix: 'e1' }), 1);
    log.initializeLeaderEpoch(2);
    log.appendAsLeader(dataBatch({ count: 3, prefix: 'e2' }), 2);
    await log.flush();
    await log.recoveryPointSettled();
    const expected = readAll(log, 'uncommitted');
    fileSystem.crash();
    const files = captureFiles(fileSystem, DIR);
    expect(openLog(materialize(files)).endOffset()).toBe(6);
    // Epoch 2 recorded as starting at 4: the batch at 3 should then carry epoch 1 at its base.
    const shifted = new Map(files).set(EPOCH_CHECKPOINT, Buffer.from('0\n2\n1 0\n2 4\n'));
    expect(() => openLog(materialize(shifted))).toThrow(FlushedDataLossError);
    const recovered = openLog(materialize(shifted), 'accept-loss');
    expect(recovered.endOffset()).toBe(3);
    expect(readAll(recovered, 'uncommitted')).toEqual(expected.slice(0, 1));
  });
});
