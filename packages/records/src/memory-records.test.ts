import { describe, expect, it } from 'vitest';
import { concat, makeBatch } from '../test/helpers/batches.js';
import { CorruptRecordError } from './errors/corrupt-record-error.js';
import { MemoryRecords } from './memory-records.js';

describe('MemoryRecords', () => {
  const first = makeBatch({ baseOffset: 0, recordCount: 2 });
  const second = makeBatch({ baseOffset: 2, recordCount: 3 });
  const both = concat([first, second]);

  it('is a zero-copy view with batches, sizes and first/last batch', () => {
    const bytes = both.buffer();
    const records = MemoryRecords.readableRecords(bytes);
    expect(records.buffer()).toBe(bytes);
    expect(records.sizeInBytes()).toBe(first.sizeInBytes() + second.sizeInBytes());
    const batches = [...records.batches()];
    expect(batches.map((batch) => [batch.baseOffset, batch.lastOffset, batch.position])).toEqual([
      [0, 1, 0],
      [2, 4, first.sizeInBytes()],
    ]);
    expect(batches[1]?.bytes.buffer).toBe(bytes.buffer);
    expect(records.firstBatch()?.baseOffset).toBe(0);
    expect(records.lastBatch()?.baseOffset).toBe(2);
    expect(MemoryRecords.EMPTY.firstBatch()).toBeUndefined();
  });

  it('stops at a trailing partial batch, and validate() refuses it', () => {
    const cut = MemoryRecords.readableRecords(both.buffer().subarray(0, both.sizeInBytes() - 5));
    expect([...cut.batches()].map((batch) => batch.baseOffset)).toEqual([0]);
    expect(cut.validBytes()).toBe(first.sizeInBytes());
    expect(() => cut.validate()).toThrow(CorruptRecordError);
    expect(() => both.validate()).not.toThrow();
  });

  it('validate() checks every CRC', () => {
    const bytes = Buffer.from(both.buffer());
    bytes[first.sizeInBytes() + 65] = (bytes[first.sizeInBytes() + 65] as number) ^ 0xff;
    expect(() => MemoryRecords.readableRecords(bytes).validate()).toThrow(/CRC mismatch/);
  });

  it('rejects a batch length below the header size or a bad magic while iterating', () => {
    const short = Buffer.from(first.buffer());
    short.writeInt32BE(10, 8);
    expect(() => [...MemoryRecords.readableRecords(short).batches()]).toThrow(CorruptRecordError);
    const magic = Buffer.from(first.buffer());
    magic.writeInt8(0, 16);
    expect(() => [...MemoryRecords.readableRecords(magic).batches()]).toThrow(/magic 0/);
  });

  it('reports positions relative to a base when given one', () => {
    const records = MemoryRecords.readableRecords(both.buffer(), 1000);
    expect([...records.batches()].map((batch) => batch.position)).toEqual([1000, 1000 + first.sizeInBytes()]);
  });
});
