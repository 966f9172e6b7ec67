import { MemoryFileSystem } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { dataBatch, TEST_NOW_MS, testConfig } from '../test/support/log-fixtures.js';
import { RaftLog } from './raft-log.js';

// Written for mutants of `validateOffsetAndEpoch` (the leader's check of a follower's fetch position)
// that survived `pnpm mutation` (docs/reliability.md, "Mutation testing").

/** Offsets 0-19 in epoch 1 and 20-39 in epoch 3, two records a batch. */
function twoEpochLog(): RaftLog {
  const fileSystem = new MemoryFileSystem();
  fileSystem.mkdir('/data');
  const log = RaftLog.open({ dir: '/data', fileSystem, config: testConfig(), time: () => TEST_NOW_MS });
  for (const epoch of [1, 3]) {
    log.initializeLeaderEpoch(epoch);
    for (let batch = 0; batch < 10; batch += 1)
      log.appendAsLeader(dataBatch({ count: 2, valueBytes: 50, prefix: `e${epoch}` }), epoch);
  }
  return log;
}

/** The log above with a snapshot at 24 (epoch 3) and the log start moved up to it. */
function snapshottedLog() {
  const log = twoEpochLog();
  log.updateHighWatermark(30);
  const snapshotId = { offset: 24, epoch: 3 };
  const writer = log.createNewSnapshot(snapshotId);
  if (writer === undefined) throw new Error('no snapshot writer');
  writer.append(dataBatch({ epoch: 3, count: 3, prefix: 'snap' }));
  writer.freeze();
  writer.close();
  expect(log.deleteBeforeSnapshot(snapshotId)).toBe(true);
  return { log, snapshotId };
}

describe('validateOffsetAndEpoch: the log start and snapshot bounds', () => {
  it('is valid at any epoch while the log starts at 0: a fetch from the start never diverges (Kafka)', () => {
    const log = twoEpochLog();
    expect(log.validateOffsetAndEpoch(0, 5)).toEqual({ kind: 'valid' });
    expect(log.validateOffsetAndEpoch(0, 2)).toEqual({ kind: 'valid' });
  });

  it('is answered with the snapshot once a snapshot moved the log start past 0', () => {
    const { log, snapshotId } = snapshottedLog();
    expect(log.startOffset()).toBeGreaterThan(0);
    expect(log.validateOffsetAndEpoch(0, 1)).toEqual({ kind: 'snapshot', offsetAndEpoch: snapshotId });
  });

  it('an offset below the log start, the log start in another epoch than the snapshot, or an older epoch is answered with the snapshot', () => {
    const { log, snapshotId } = snapshottedLog();
    expect(log.startOffset()).toBe(24);
    expect(log.validateOffsetAndEpoch(22, 3)).toEqual({ kind: 'snapshot', offsetAndEpoch: snapshotId });
    expect(log.validateOffsetAndEpoch(30, 1)).toEqual({ kind: 'snapshot', offsetAndEpoch: snapshotId });
    // At the log start itself only the snapshot's own epoch is valid.
    expect(log.validateOffsetAndEpoch(24, 5)).toEqual({ kind: 'snapshot', offsetAndEpoch: snapshotId });
    expect(log.validateOffsetAndEpoch(24, 3)).toEqual({ kind: 'valid' });
  });
});

describe('validateOffsetAndEpoch: divergence', () => {
  it('an epoch the log never had diverges at the end of the epoch below it, even at a lower offset', () => {
    const log = twoEpochLog();
    expect(log.validateOffsetAndEpoch(8, 2)).toEqual({
      kind: 'diverging',
      offsetAndEpoch: { offset: 20, epoch: 1 },
    });
    expect(log.validateOffsetAndEpoch(8, 1)).toEqual({ kind: 'valid' });
  });
});

describe('createNewSnapshot bounds', () => {
  it('a snapshot at the log start offset is created (as Kafka bootstraps at 0), one below it is not', () => {
    const log = twoEpochLog();
    log.updateHighWatermark(30);
    const atStart = log.createNewSnapshot({ offset: 0, epoch: 0 });
    expect(atStart).toBeDefined();
    atStart?.close();
    const { log: moved } = snapshottedLog();
    expect(moved.createNewSnapshot({ offset: 22, epoch: 3 })).toBeUndefined();
  });
});
