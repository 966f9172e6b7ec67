import { MemoryFileSystem } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { dataBatch, seededRandom, TEST_NOW_MS, testConfig } from '../test/support/log-fixtures.js';
import { RaftLog } from './raft-log.js';
import type { LogOffsetMetadata } from './raft-log-types.js';

const DIR = '/data/metadata';
const PARTITION = `${DIR}/__cluster_metadata-0`;
const LOOKUPS = 10_000;

function openLog(fileSystem: MemoryFileSystem): RaftLog {
  return RaftLog.open({
    dir: DIR,
    fileSystem,
    config: testConfig({ internalSegmentBytes: 16_384 }),
    time: () => TEST_NOW_MS,
  });
}

function lookups(log: RaftLog, offsets: readonly number[]): LogOffsetMetadata[] {
  return offsets.map((offset) => log.read(offset, 'uncommitted', 1).startOffsetMetadata);
}

function indexFiles(fileSystem: MemoryFileSystem): string[] {
  return fileSystem
    .list(PARTITION)
    .filter((name) => name.endsWith('.index') || name.endsWith('.timeindex'))
    .map((name) => `${PARTITION}/${name}`);
}

function overwrite(fileSystem: MemoryFileSystem, path: string, bytes: Buffer): void {
  const handle = fileSystem.open(path, { create: true });
  handle.truncate(0);
  handle.write(bytes, 0);
  handle.sync();
  handle.close();
}

type Damage = (fileSystem: MemoryFileSystem, path: string, random: () => number) => void;

const damages: Array<[string, Damage]> = [
  ['deleted', (fileSystem, path) => fileSystem.unlink(path)],
  ['emptied', (fileSystem, path) => overwrite(fileSystem, path, Buffer.alloc(0))],
  [
    'zero-filled (a preallocated file after a crash)',
    (fileSystem, path) => overwrite(fileSystem, path, Buffer.alloc(4096)),
  ],
  [
    'cut mid-entry',
    (fileSystem, path) => overwrite(fileSystem, path, fileSystem.readFile(path).subarray(0, 5)),
  ],
  [
    'random bytes in entries',
    (fileSystem, path, random) => {
      const bytes = fileSystem.readFile(path);
      for (let index = 0; index < 4; index += 1)
        bytes[Math.floor(random() * bytes.length)] = Math.floor(random() * 256);
      overwrite(fileSystem, path, bytes);
    },
  ],
  [
    'one entry pointing between batches (still monotonic)',
    (fileSystem, path) => {
      const bytes = fileSystem.readFile(path);
      if (path.endsWith('.index') && bytes.length >= 16) bytes.writeInt32BE(bytes.readInt32BE(12) - 1, 12);
      overwrite(fileSystem, path, bytes);
    },
  ],
];

describe('index rebuild', () => {
  it.each(damages)('rebuilds %s indexes and answers 10,000 random lookups as before', (_name, damage) => {
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir(DIR);
    const log = openLog(fileSystem);
    const random = seededRandom(9);
    for (let index = 0; index < 400; index += 1) {
      log.appendAsLeader(
        dataBatch({ count: 1 + Math.floor(random() * 5), valueBytes: 10 + Math.floor(random() * 80) }),
        1,
      );
    }
    const offsets = Array.from({ length: LOOKUPS }, () => Math.floor(random() * log.endOffset()));
    const before = lookups(log, offsets);
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(3);
    log.close();
    for (const path of indexFiles(fileSystem)) damage(fileSystem, path, random);
    fileSystem.syncDirectory(PARTITION);
    const reopened = openLog(fileSystem);
    expect(lookups(reopened, offsets)).toEqual(before);
    reopened.close();
    // After an unclean restart the indexes are rebuilt by the recovery scan as well.
    for (const path of indexFiles(fileSystem)) damage(fileSystem, path, random);
    fileSystem.unlink(`${PARTITION}/.kraft_cleanshutdown`);
    fileSystem.syncDirectory(PARTITION);
    expect(lookups(openLog(fileSystem), offsets)).toEqual(before);
  });
});
