import { FileSystemError, MemoryFileSystem } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { dataBatch, readAll, TEST_NOW_MS, testConfig } from '../test/support/log-fixtures.js';
import { RaftLog } from './raft-log.js';

const DIR = '/data/metadata';
const PARTITION = `${DIR}/__cluster_metadata-0`;

function setup(): { fileSystem: MemoryFileSystem; log: RaftLog } {
  const fileSystem = new MemoryFileSystem();
  fileSystem.mkdir(DIR);
  return {
    fileSystem,
    log: RaftLog.open({ dir: DIR, fileSystem, config: testConfig(), time: () => TEST_NOW_MS }),
  };
}

describe('durability', () => {
  it('reports only what an fdatasync covered; a failed flush keeps the old flushed offset', async () => {
    const { fileSystem, log } = setup();
    log.appendAsLeader(dataBatch({ count: 3 }), 1);
    expect(log.lastFlushedOffset()).toBe(0);
    fileSystem.injectFault('sync', { pathIncludes: '.log' });
    await expect(log.flush()).rejects.toBeInstanceOf(FileSystemError);
    expect(log.lastFlushedOffset()).toBe(0);
    expect(await log.flush()).toBe(3);
    fileSystem.crash();
    expect(
      RaftLog.open({ dir: DIR, fileSystem, config: testConfig(), time: () => TEST_NOW_MS }).endOffset(),
    ).toBe(3);
  });

  it('makes a rolled segment and its directory entry durable on flush', async () => {
    const { fileSystem, log } = setup();
    for (let index = 0; index < 40; index += 1)
      log.appendAsLeader(dataBatch({ count: 2, valueBytes: 60 }), 1);
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(2);
    await log.flush();
    fileSystem.crash();
    const reopened = RaftLog.open({ dir: DIR, fileSystem, config: testConfig(), time: () => TEST_NOW_MS });
    expect(reopened.endOffset()).toBe(80);
    expect(readAll(reopened, 'uncommitted')).toHaveLength(40);
  });

  it('caps a flush that a truncation overtook at the truncation point', async () => {
    const { log } = setup();
    for (let index = 0; index < 5; index += 1) log.appendAsLeader(dataBatch(), 1);
    const flushing = log.flush();
    log.truncateTo(2);
    log.appendAsLeader(dataBatch(), 2);
    expect(await flushing).toBeLessThanOrEqual(3);
    expect(await log.flush()).toBe(3);
  });

  it('never leaves a half-written snapshot: before freeze nothing, after freeze the whole file', () => {
    const { fileSystem, log } = setup();
    for (let index = 0; index < 5; index += 1) log.appendAsLeader(dataBatch(), 1);
    log.updateHighWatermark(5);
    const writer = log.createNewSnapshot({ offset: 3, epoch: 1 });
    writer?.append(dataBatch({ epoch: 1, count: 4 }));
    fileSystem.crash();
    let reopened = RaftLog.open({ dir: DIR, fileSystem, config: testConfig(), time: () => TEST_NOW_MS });
    expect(reopened.latestSnapshotId()).toBeUndefined();
    expect(fileSystem.list(PARTITION).some((name) => name.includes('.checkpoint.part'))).toBe(false);
    reopened.appendAsLeader(dataBatch(), 1);
    reopened.appendAsLeader(dataBatch(), 1);
    reopened.updateHighWatermark(2);
    const again = reopened.createNewSnapshot({ offset: 2, epoch: 1 });
    again?.append(dataBatch({ epoch: 1, count: 4 }));
    again?.freeze();
    fileSystem.crash();
    reopened = RaftLog.open({ dir: DIR, fileSystem, config: testConfig(), time: () => TEST_NOW_MS });
    expect(reopened.latestSnapshotId()).toEqual({ offset: 2, epoch: 1 });
    expect(reopened.readSnapshot({ offset: 2, epoch: 1 })?.sizeInBytes()).toBe(
      dataBatch({ epoch: 1, count: 4 }).sizeInBytes(),
    );
  });

  it('keeps a log start moved by a snapshot across a crash', async () => {
    const { fileSystem, log } = setup();
    for (let index = 0; index < 6; index += 1) log.appendAsLeader(dataBatch(), 1);
    await log.flush();
    log.updateHighWatermark(6);
    const writer = log.createNewSnapshot({ offset: 4, epoch: 1 });
    writer?.append(dataBatch({ epoch: 1 }));
    writer?.freeze();
    log.deleteBeforeSnapshot({ offset: 4, epoch: 1 });
    expect(log.startOffset()).toBe(4);
    fileSystem.crash();
    const reopened = RaftLog.open({ dir: DIR, fileSystem, config: testConfig(), time: () => TEST_NOW_MS });
    expect([reopened.startOffset(), reopened.endOffset(), reopened.highWatermark()]).toEqual([4, 6, 4]);
    expect(fileSystem.readFile(`${DIR}/log-start-offset-checkpoint`).toString()).toBe(
      '0\n1\n__cluster_metadata 0 4\n',
    );
  });
});
