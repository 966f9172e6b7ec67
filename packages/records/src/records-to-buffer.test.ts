import { describe, expect, it } from 'vitest';
import { concat, makeBatches } from '../test/helpers/batches.js';
import { FileRecords } from './file-records.js';
import { MemoryFileSystem } from './fs/memory-file-system.js';
import { recordsToBuffer } from './records-to-buffer.js';

describe('recordsToBuffer', () => {
  const batches = makeBatches([
    { recordCount: 2, valueSizeBytes: 40 },
    { recordCount: 3, valueSizeBytes: 50 },
  ]);
  const all = concat(batches).buffer();

  it('returns a MemoryRecords view without copying', () => {
    const memory = concat(batches);
    expect(recordsToBuffer(memory)).toBe(memory.buffer());
  });

  it('copies exactly a FileRecords slice, never the bytes after it', () => {
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir('/log');
    const file = FileRecords.open('/log/00000000000000000000.log', { fileSystem });
    for (const batch of batches) file.append(batch);
    const first = batches[0]!.sizeInBytes();
    expect(recordsToBuffer(file.slice(0, first)).equals(all.subarray(0, first))).toBe(true);
    expect(recordsToBuffer(file.slice(first, all.length)).equals(all.subarray(first))).toBe(true);
    expect(recordsToBuffer(file.slice(all.length, 10))).toHaveLength(0);
  });
});
