import { MemoryFileSystem } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { OffsetIndex } from './offset-index.js';
import { TimeIndex } from './time-index.js';

const PATH = '/segment/00000000000000000100.index';

function newFileSystem(): MemoryFileSystem {
  const fileSystem = new MemoryFileSystem();
  fileSystem.mkdir('/segment');
  return fileSystem;
}

describe('OffsetIndex', () => {
  it('writes Kafka entries (int32 relative offset, int32 position) and finds the floor entry', () => {
    const fileSystem = newFileSystem();
    const index = OffsetIndex.create(fileSystem, PATH, 100, 64, true);
    expect(fileSystem.readFile(PATH)).toHaveLength(64);
    index.append(104, 300);
    index.append(110, 900);
    expect(fileSystem.readFile(PATH).subarray(0, 16).toString('hex')).toBe(
      '000000040000012c0000000a00000384',
    );
    expect(index.lookup(100)).toBe(0);
    expect(index.lookup(104)).toBe(300);
    expect(index.lookup(109)).toBe(300);
    expect(index.lookup(500)).toBe(900);
    expect(index.lookupEntry(103)).toBeUndefined();
    index.trim();
    expect(fileSystem.readFile(PATH)).toHaveLength(16);
  });

  it('loads a sane file and refuses one that is cut, unordered or points past the segment', () => {
    const fileSystem = newFileSystem();
    const index = OffsetIndex.create(fileSystem, PATH, 100, 64, false);
    index.append(104, 300);
    index.append(110, 900);
    index.close();
    expect(OffsetIndex.load(fileSystem, PATH, 100, 64, 1000)?.lookup(200)).toBe(900);
    expect(OffsetIndex.load(fileSystem, PATH, 100, 64, 900)).toBeUndefined();
    const bytes = fileSystem.readFile(PATH);
    const handle = fileSystem.open(PATH, {});
    handle.truncate(0);
    handle.write(Buffer.concat([bytes.subarray(8, 16), bytes.subarray(0, 8)]), 0);
    handle.close();
    expect(OffsetIndex.load(fileSystem, PATH, 100, 64, 1000)).toBeUndefined();
    const cut = fileSystem.open(PATH, {});
    cut.truncate(5);
    cut.close();
    expect(OffsetIndex.load(fileSystem, PATH, 100, 64, 1000)).toBeUndefined();
    expect(OffsetIndex.load(fileSystem, '/segment/missing.index', 100, 64, 1000)).toBeUndefined();
  });

  it('truncates entries at or above an offset and reports fullness', () => {
    const fileSystem = newFileSystem();
    const index = OffsetIndex.create(fileSystem, PATH, 100, 24, true);
    index.append(101, 10);
    index.append(102, 20);
    expect(index.isFull()).toBe(false);
    index.append(103, 30);
    expect(index.isFull()).toBe(true);
    index.truncateTo(102);
    expect(index.entryCount()).toBe(1);
    expect(index.lastOffset()).toBe(101);
    expect(index.lookup(150)).toBe(10);
  });
});

describe('TimeIndex', () => {
  it('writes (int64 timestamp, int32 relative offset) entries for rising timestamps only', () => {
    const fileSystem = newFileSystem();
    const path = '/segment/00000000000000000100.timeindex';
    const index = TimeIndex.create(fileSystem, path, 100, 120, false);
    index.maybeAppend(1000, 105);
    index.maybeAppend(900, 106);
    index.maybeAppend(2000, 110);
    expect(index.entryCount()).toBe(2);
    expect(fileSystem.readFile(path).subarray(0, 12).toString('hex')).toBe('00000000000003e800000005');
    expect(index.lookup(1500)).toBe(105);
    expect(index.lookup(10)).toBe(100);
    index.close();
    expect(TimeIndex.load(fileSystem, path, 100, 120, 110)?.lookup(5000)).toBe(110);
    expect(TimeIndex.load(fileSystem, path, 100, 120, 108)).toBeUndefined();
    const reloaded = TimeIndex.load(fileSystem, path, 100, 120, 200) as TimeIndex;
    reloaded.truncateTo(110);
    expect(reloaded.lastTimestamp()).toBe(1000);
  });
});
