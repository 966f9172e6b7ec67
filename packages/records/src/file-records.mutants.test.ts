// Tests for rules the mutation run (`pnpm mutation --mutate 'packages/records/src/file-records.ts'`)
// found unpinned: the open's preallocation bound, what an unpreallocated open covers, a file that
// shrank under its records, and what the bound errors say.
import { IllegalStateError } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { makeBatches } from '../test/helpers/batches.js';
import { IllegalArgumentError } from './errors/illegal-argument-error.js';
import { FileRecords } from './file-records.js';
import { MemoryFileSystem } from './fs/memory-file-system.js';

const PATH = '/data/00000000000000000000.log';

function fileSystem(): MemoryFileSystem {
  const memory = new MemoryFileSystem();
  memory.mkdir('/data');
  return memory;
}

describe('FileRecords.open', () => {
  it.each([-1, 1.5, Number.NaN, 0x7fffffff + 1])(
    'refuses preallocateBytes %s before it creates the file',
    (bytes) => {
      const memory = fileSystem();
      expect(() => FileRecords.open(PATH, { fileSystem: memory, preallocateBytes: bytes })).toThrow(
        IllegalStateError,
      );
      expect(memory.exists(PATH)).toBe(false);
    },
  );

  it('covers the whole file without preallocation, trailing bytes included; a preallocated open stops at the last whole batch', () => {
    const memory = fileSystem();
    const writer = FileRecords.open(PATH, { fileSystem: memory });
    const [batch] = makeBatches([{ recordCount: 2, valueSizeBytes: 30 }]);
    writer.append(batch!);
    writer.close();
    const handle = memory.open(PATH);
    handle.write(Buffer.from([1, 2, 3]), batch!.sizeInBytes());
    handle.close();
    const whole = FileRecords.open(PATH, { fileSystem: memory, mutable: false });
    expect(whole.sizeInBytes()).toBe(batch!.sizeInBytes() + 3);
    whole.close();
    const scanned = FileRecords.open(PATH, { fileSystem: memory, mutable: false, preallocateBytes: 1 << 16 });
    expect(scanned.sizeInBytes()).toBe(batch!.sizeInBytes());
    scanned.close();
  });
});

describe('FileRecords reads', () => {
  it('refuses to return fewer bytes than its records hold when the file shrank under them', () => {
    const memory = fileSystem();
    const records = FileRecords.open(PATH, { fileSystem: memory });
    const [batch] = makeBatches([{ recordCount: 3, valueSizeBytes: 40 }]);
    records.append(batch!);
    const size = batch!.sizeInBytes();
    // Another handle cuts the file: the records still claim `size` bytes.
    const other = memory.open(PATH);
    other.truncate(size - 10);
    other.close();
    const target = Buffer.alloc(size);
    expect(() => records.readInto(target, 0)).toThrow(
      `ended at ${size - 10}, inside records that end at ${size}`,
    );
  });

  it('names the file, the position and the size when a read is out of bounds', () => {
    const memory = fileSystem();
    const records = FileRecords.open(PATH, { fileSystem: memory });
    const [batch] = makeBatches([{ recordCount: 1, valueSizeBytes: 10 }]);
    records.append(batch!);
    const size = batch!.sizeInBytes();
    expect(() => records.slice(-1, 1)).toThrow(
      new IllegalArgumentError(`invalid position -1 in '${PATH}' (size ${size})`),
    );
    expect(() => records.slice(size + 1, 1)).toThrow(
      new IllegalArgumentError(`position ${size + 1} is past the end of '${PATH}' (size ${size})`),
    );
    expect(() => records.slice(0, -1)).toThrow(new IllegalArgumentError(`invalid size -1 in '${PATH}'`));
  });
});
