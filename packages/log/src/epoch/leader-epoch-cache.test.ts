import { IllegalStateError } from '@kraft/protocol';
import { MemoryFileSystem } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { InvalidConfigurationError } from '../errors/log-errors.js';
import { LeaderEpochCache } from './leader-epoch-cache.js';
import {
  formatLeaderEpochCheckpoint,
  LeaderEpochCheckpointFile,
  parseLeaderEpochCheckpoint,
} from './leader-epoch-checkpoint-file.js';

describe('leader-epoch-checkpoint', () => {
  it("round-trips Kafka's text format", () => {
    const text = formatLeaderEpochCheckpoint([
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 17 },
    ]);
    expect(text).toBe('0\n2\n1 0\n2 17\n');
    expect(parseLeaderEpochCheckpoint(text)).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 17 },
    ]);
    expect(parseLeaderEpochCheckpoint('0\n1\n3   40')).toEqual([{ epoch: 3, startOffset: 40 }]);
  });

  it.each([
    '',
    '1\n0\n',
    '0\n2\n1 0\n',
    '0\n1\n1\n',
    '0\n1\n-1 0\n',
    '0\nx\n',
    '0\n1\n1 99999999999999999999\n',
  ])('rejects malformed content %j', (text) => {
    expect(() => parseLeaderEpochCheckpoint(text)).toThrow(InvalidConfigurationError);
  });

  it('writes through tmp + fsync + rename so a crash keeps the old or the new file', () => {
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir('/p');
    const file = new LeaderEpochCheckpointFile(fileSystem, '/p/leader-epoch-checkpoint');
    file.write([{ epoch: 1, startOffset: 0 }]);
    fileSystem.crash();
    expect(file.read()).toEqual([{ epoch: 1, startOffset: 0 }]);
    fileSystem.injectFault('rename', { pathIncludes: 'leader-epoch-checkpoint.tmp' });
    expect(() =>
      file.write([
        { epoch: 1, startOffset: 0 },
        { epoch: 2, startOffset: 5 },
      ]),
    ).toThrow();
    fileSystem.crash();
    expect(file.read()).toEqual([{ epoch: 1, startOffset: 0 }]);
  });
});

describe('LeaderEpochCache', () => {
  it('assigns like Kafka: ignores later starts of the latest epoch, drops non-monotonic entries', () => {
    const cache = new LeaderEpochCache(undefined);
    expect(cache.assign(1, 0)).toBe(true);
    expect(cache.assign(1, 5)).toBe(false);
    cache.assign(3, 10);
    cache.assign(4, 20);
    cache.assign(3, 15);
    expect(cache.all()).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 3, startOffset: 15 },
    ]);
    cache.assign(2, 12);
    expect(cache.all()).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 12 },
    ]);
  });

  it('answers endOffsetFor as Kafka does', () => {
    const cache = new LeaderEpochCache(undefined, [
      { epoch: 1, startOffset: 5 },
      { epoch: 3, startOffset: 10 },
      { epoch: 6, startOffset: 20 },
    ]);
    expect(cache.endOffsetFor(6, 30)).toEqual({ offset: 30, epoch: 6 });
    expect(cache.endOffsetFor(3, 30)).toEqual({ offset: 20, epoch: 3 });
    expect(cache.endOffsetFor(4, 30)).toEqual({ offset: 20, epoch: 3 });
    expect(cache.endOffsetFor(0, 30)).toEqual({ offset: 5, epoch: 0 });
    expect(cache.endOffsetFor(7, 30)).toBeUndefined();
    expect(cache.endOffsetFor(-1, 30)).toBeUndefined();
    expect(new LeaderEpochCache(undefined).endOffsetFor(1, 30)).toBeUndefined();
    expect(cache.epochForOffset(4)).toBeUndefined();
    expect(cache.epochForOffset(12)).toBe(3);
  });

  it('truncates from the end and from the start, each change in memory until it is written', async () => {
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir('/p');
    const file = new LeaderEpochCheckpointFile(fileSystem, '/p/leader-epoch-checkpoint');
    const cache = new LeaderEpochCache(file, [
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 10 },
      { epoch: 4, startOffset: 20 },
    ]);
    cache.truncateFromStart(15);
    expect(file.read()).toBeUndefined();
    expect(cache.hasUnwrittenChanges()).toBe(true);
    await cache.writeUnwritten();
    expect(cache.hasUnwrittenChanges()).toBe(false);
    expect(file.read()).toEqual([
      { epoch: 2, startOffset: 15 },
      { epoch: 4, startOffset: 20 },
    ]);
    cache.truncateFromEnd(20);
    cache.persistUnwritten();
    expect(file.read()).toEqual([{ epoch: 2, startOffset: 15 }]);
    cache.restoreEarlierEntries([
      { epoch: 1, startOffset: 3 },
      { epoch: 2, startOffset: 8 },
    ]);
    expect(cache.all()).toEqual([
      { epoch: 1, startOffset: 3 },
      { epoch: 2, startOffset: 8 },
    ]);
    cache.clear();
    cache.persistUnwritten();
    expect(file.read()).toEqual([]);
  });

  it('lets a synchronous write supersede an asynchronous one in flight, and keeps later changes unwritten', async () => {
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir('/p');
    const file = new LeaderEpochCheckpointFile(fileSystem, '/p/leader-epoch-checkpoint');
    const cache = new LeaderEpochCache(file);
    cache.assign(1, 0);
    const inFlight = cache.writeUnwritten();
    cache.assign(2, 10);
    expect(cache.hasUnwrittenChanges()).toBe(true);
    await inFlight;
    // The write took the entries of its call: epoch 2 came later and is still unwritten.
    expect(file.read()).toEqual([{ epoch: 1, startOffset: 0 }]);
    expect(cache.hasUnwrittenChanges()).toBe(true);
    const superseded = cache.writeUnwritten();
    cache.assign(3, 20);
    cache.persist();
    await superseded;
    expect(file.read()).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 10 },
      { epoch: 3, startOffset: 20 },
    ]);
    expect(cache.hasUnwrittenChanges()).toBe(false);
  });

  it('refuses a second asynchronous write while one is in flight (they would share the .tmp)', async () => {
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir('/p');
    const file = new LeaderEpochCheckpointFile(fileSystem, '/p/leader-epoch-checkpoint');
    const cache = new LeaderEpochCache(file);
    cache.assign(1, 0);
    const first = cache.writeUnwritten();
    cache.assign(2, 10);
    await expect(cache.writeUnwritten()).rejects.toThrow(IllegalStateError);
    await first;
    expect(file.read()).toEqual([{ epoch: 1, startOffset: 0 }]);
    // Once the first landed, the next write goes ahead and covers the later change.
    await cache.writeUnwritten();
    expect(file.read()).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 10 },
    ]);
    expect(cache.hasUnwrittenChanges()).toBe(false);
  });
});
