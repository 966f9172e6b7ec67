import { describe, expect, it } from 'vitest';
import { concat, makeBatch, makeBatches } from '../test/helpers/batches.js';
import { fixCrc } from '../test/helpers/corrupt.js';
import { RecordingFileSystem } from '../test/helpers/recording-file-system.js';
import { buildLeaderChangeBatch } from './control-batch-builders.js';
import { ControlRecordType } from './control-records.js';
import { CorruptRecordError } from './errors/corrupt-record-error.js';
import { RecordBatchTooLargeError } from './errors/record-batch-too-large-error.js';
import { UnknownControlTypeError } from './errors/unknown-control-type-error.js';
import { FileRecords } from './file-records.js';
import { MemoryFileSystem } from './fs/memory-file-system.js';
import { MemoryRecords } from './memory-records.js';
import { MemoryRecordsBuilder } from './memory-records-builder.js';
import { RecordsIterator } from './records-iterator.js';

const MiB = 1024 * 1024;

function fileWith(records: readonly MemoryRecords[]) {
  const memory = new MemoryFileSystem();
  memory.mkdir('/log');
  const fileSystem = new RecordingFileSystem(memory);
  const file = FileRecords.open('/log/00000000000000000000.log', { fileSystem });
  for (const batch of records) file.append(batch);
  return { file, fileSystem };
}

function baseOffsets(iterator: RecordsIterator): number[] {
  return [...iterator].map((batch) => batch.baseOffset);
}

describe('RecordsIterator over a FileRecords slice (KAFKA-20841 regression)', () => {
  // 40 batches of 1-20 records of ~300 bytes: about 150 KiB, batches of 300 B to 6 KiB.
  const sizes = Array.from({ length: 40 }, (_, index) => ({
    recordCount: 1 + ((index * 7) % 20),
    valueSizeBytes: 300,
  }));
  const batches = makeBatches(sizes);
  const bytesBefore = (count: number) =>
    batches.slice(0, count).reduce((sum, batch) => sum + batch.sizeInBytes(), 0);
  const offsetsOf = (from: number, to: number) => {
    const result: number[] = [];
    let offset = sizes.slice(0, from).reduce((sum, size) => sum + size.recordCount, 0);
    for (let index = from; index < to; index += 1) {
      result.push(offset);
      offset += sizes[index]!.recordCount;
    }
    return result;
  };
  const bufferSizes = [17, 18, 60, 61, 62, 100, 333, 1000, 4096, 10_000, 65_536, MiB, 8 * MiB];

  it.each(bufferSizes)('yields exactly the slice batches with a %i-byte buffer', (bufferSize) => {
    const { file, fileSystem } = fileWith(batches);
    // Slice: batches 3..29, cut at a batch boundary (a high watermark), with 10 batches after it.
    const start = bytesBefore(3);
    const slice = file.slice(start, bytesBefore(30) - start);
    const iterator = new RecordsIterator(slice, { maxBatchSizeBytes: bufferSize });
    expect(iterator.bufferSizeInBytes()).toBe(Math.min(Math.max(bufferSize, 17), slice.sizeInBytes()));
    fileSystem.reads.length = 0;
    expect(baseOffsets(iterator)).toEqual(offsetsOf(3, 30));
    expect(fileSystem.furthestRead()).toBeLessThanOrEqual(bytesBefore(30));
    expect(Math.min(...fileSystem.reads.map((read) => read.position))).toBeGreaterThanOrEqual(start);
  });

  it.each(bufferSizes)('does not return a batch cut by the slice end (%i-byte buffer)', (bufferSize) => {
    const { file, fileSystem } = fileWith(batches);
    const slice = file.slice(0, bytesBefore(20) + 100);
    fileSystem.reads.length = 0;
    expect(baseOffsets(new RecordsIterator(slice, { maxBatchSizeBytes: bufferSize }))).toEqual(
      offsetsOf(0, 20),
    );
    expect(fileSystem.furthestRead()).toBeLessThanOrEqual(bytesBefore(20) + 100);
  });

  it('reads a slice over 8 MiB with the default buffer only up to the slice end', () => {
    // 48 batches of 256 records x 1 KiB (~260 KiB each): ~12.5 MiB; the slice ends at 10 MiB,
    // mid-batch, with more than 2 MiB of batches after it in the same file.
    const big = makeBatches(Array.from({ length: 48 }, () => ({ recordCount: 256, valueSizeBytes: 1024 })));
    const { file, fileSystem } = fileWith(big);
    expect(file.sizeInBytes()).toBeGreaterThan(12 * MiB);
    const sliceSize = 10 * MiB;
    const slice = file.slice(0, sliceSize);
    const iterator = new RecordsIterator(slice);
    expect(iterator.bufferSizeInBytes()).toBe(8 * MiB);
    fileSystem.reads.length = 0;
    const yielded = [...iterator];
    let end = 0;
    let complete = 0;
    for (const batch of big) {
      if (end + batch.sizeInBytes() > sliceSize) break;
      end += batch.sizeInBytes();
      complete += 1;
    }
    expect(yielded.map((batch) => batch.baseOffset)).toEqual(
      Array.from({ length: complete }, (_, index) => index * 256),
    );
    expect(yielded.at(-1)?.records.at(-1)?.offset).toBe(complete * 256 - 1);
    expect(fileSystem.furthestRead()).toBeLessThanOrEqual(sliceSize);
  });

  it('reads a batch larger than the buffer into a buffer of exactly its size', () => {
    const small = makeBatch({ baseOffset: 0, recordCount: 2, valueSizeBytes: 100 });
    const large = makeBatch({ baseOffset: 2, recordCount: 40, valueSizeBytes: 1000 });
    const { file, fileSystem } = fileWith([small, large, small]);
    const slice = file.slice(0, small.sizeInBytes() + large.sizeInBytes());
    fileSystem.reads.length = 0;
    const yielded = [...new RecordsIterator(slice, { maxBatchSizeBytes: 1000 })];
    expect(yielded.map((batch) => [batch.baseOffset, batch.sizeInBytes])).toEqual([
      [0, small.sizeInBytes()],
      [2, large.sizeInBytes()],
    ]);
    // Refills of the 1000-byte buffer, then one read of the rest of the large batch.
    expect(Math.max(...fileSystem.reads.map((read) => read.length))).toBeLessThan(large.sizeInBytes());
    expect(
      fileSystem.reads.every(
        (read) => read.length <= 1000 || read.position + read.length === slice.sizeInBytes(),
      ),
    ).toBe(true);
    expect(fileSystem.furthestRead()).toBe(slice.sizeInBytes());
  });

  it('keeps yielded records valid after the buffer is refilled', () => {
    const { file } = fileWith(batches);
    const yielded = [...new RecordsIterator(file, { maxBatchSizeBytes: 2000 })];
    const expected = [...new RecordsIterator(concat(batches))];
    expect(yielded.map((batch) => batch.records)).toEqual(expected.map((batch) => batch.records));
  });

  it('reports the file position of batches and of corruption', () => {
    const { file } = fileWith(batches);
    const positions = [...new RecordsIterator(file.slice(bytesBefore(2), 10_000))].map(
      (batch) => batch.position,
    );
    expect(positions[0]).toBe(bytesBefore(2));
    expect(positions[1]).toBe(bytesBefore(3));
  });

  it('handles empty and tiny records', () => {
    const { file } = fileWith(batches);
    expect(baseOffsets(new RecordsIterator(file.slice(0, 0)))).toEqual([]);
    expect(baseOffsets(new RecordsIterator(file.slice(0, 16)))).toEqual([]);
    expect(baseOffsets(new RecordsIterator(MemoryRecords.EMPTY))).toEqual([]);
  });
});

describe('RecordsIterator corruption', () => {
  function corruptedAt(mutate: (bytes: Buffer) => void, withCrcFix = true): Buffer {
    const bytes = Buffer.from(
      concat([makeBatch({ baseOffset: 10, recordCount: 3 }), makeBatch({ baseOffset: 13 })]).buffer(),
    );
    const first = makeBatch({ baseOffset: 10, recordCount: 3 }).sizeInBytes();
    const second = bytes.subarray(first);
    mutate(second);
    if (withCrcFix) fixCrc(second);
    return bytes;
  }
  const firstSize = makeBatch({ baseOffset: 10, recordCount: 3 }).sizeInBytes();

  function expectCorrupt(bytes: Buffer, pattern: RegExp): void {
    for (const records of [
      MemoryRecords.readableRecords(bytes),
      fileWith([MemoryRecords.readableRecords(bytes)]).file,
    ]) {
      const iterator = new RecordsIterator(records, { maxBatchSizeBytes: 100 });
      expect(iterator.next().value?.baseOffset).toBe(10);
      let error: unknown;
      try {
        iterator.next();
      } catch (caught) {
        error = caught;
      }
      expect(CorruptRecordError.isCorruptRecordError(error)).toBe(true);
      const corrupt = error as CorruptRecordError;
      expect(corrupt.message).toMatch(pattern);
      expect(corrupt.position).toBe(firstSize);
      expect(corrupt.offset).toBe(13);
    }
  }

  it('rejects a bad CRC', () =>
    expectCorrupt(
      corruptedAt((bytes) => bytes.writeUInt8(0xff, 70), false),
      /CRC mismatch/,
    ));
  it('rejects a bad magic', () =>
    expectCorrupt(
      corruptedAt((bytes) => bytes.writeInt8(1, 16), false),
      /magic 1/,
    ));
  it('rejects a length below the 61-byte minimum', () =>
    expectCorrupt(
      corruptedAt((bytes) => bytes.writeInt32BE(48, 8), false),
      /below the 49-byte minimum/,
    ));
  it('rejects a record count above the records', () =>
    expectCorrupt(
      corruptedAt((bytes) => bytes.writeInt32BE(2, 57)),
      /truncated record|cannot fit|overruns/,
    ));
  it('rejects a record count below the records', () =>
    expectCorrupt(
      corruptedAt((bytes) => bytes.writeInt32BE(0, 57)),
      /bytes left after the 0 records/,
    ));
  it('rejects an over-long varint', () =>
    expectCorrupt(
      corruptedAt((bytes) => bytes.fill(0xff, 61, 67)),
      /over-long/,
    ));
  it('rejects a truncated record', () =>
    expectCorrupt(
      corruptedAt((bytes) => bytes.writeUInt8(0x7e, 61)),
      /overruns the batch/,
    ));
  it('rejects a record whose fields disagree with its length', () =>
    expectCorrupt(
      corruptedAt((bytes) => bytes.writeUInt8((bytes[61] as number) - 2, 61)),
      /record|overruns/,
    ));

  it('refuses a compressed batch that inflates past the limit, naming the batch', () => {
    const bomb = makeBatch({
      baseOffset: 30,
      recordCount: 64,
      valueSizeBytes: 16 * 1024,
      compression: 'gzip',
    });
    expect(bomb.sizeInBytes()).toBeLessThan(16 * 1024);
    let error: unknown;
    try {
      [...new RecordsIterator(bomb, { maxDecompressedSizeBytes: 256 * 1024 })];
    } catch (caught) {
      error = caught;
    }
    expect(RecordBatchTooLargeError.isRecordBatchTooLargeError(error)).toBe(true);
    expect((error as Error).message).toMatch(/offset 30, position 0/);
    expect([...new RecordsIterator(bomb)][0]?.records).toHaveLength(64);
  });

  it('turns compressed bytes that do not inflate into CorruptRecordError', () => {
    const bytes = Buffer.from(makeBatch({ baseOffset: 30, recordCount: 4, compression: 'lz4' }).buffer());
    bytes.fill(0x55, 61, 65);
    fixCrc(bytes);
    expect(() => [...new RecordsIterator(MemoryRecords.readableRecords(bytes))]).toThrow(
      /lz4: bad frame magic/,
    );
  });

  it('skips CRC validation only when asked', () => {
    const bytes = corruptedAt((bytes) => bytes.writeUInt8(0x01, 70), false);
    expect(() => [...new RecordsIterator(MemoryRecords.readableRecords(bytes))]).toThrow(CorruptRecordError);
    expect(
      baseOffsets(new RecordsIterator(MemoryRecords.readableRecords(bytes), { validateCrc: false })),
    ).toEqual([10, 13]);
  });

  it('rejects an unknown control record type with a typed error', () => {
    for (const type of [0, 1, 7, 300]) {
      const key = Buffer.alloc(4);
      key.writeInt16BE(type, 2);
      const typed = new MemoryRecordsBuilder({ baseOffset: 4, isControl: true });
      typed.append({ timestamp: 0, key, value: Buffer.alloc(3) });
      let error: unknown;
      try {
        [...new RecordsIterator(typed.build())];
      } catch (caught) {
        error = caught;
      }
      expect(UnknownControlTypeError.isUnknownControlTypeError(error)).toBe(true);
      expect((error as UnknownControlTypeError).controlType).toBe(type);
      expect((error as UnknownControlTypeError).offset).toBe(4);
    }
  });

  it('rejects a control record with a short key or a value that does not parse', () => {
    const shortKey = new MemoryRecordsBuilder({ isControl: true });
    shortKey.append({ timestamp: 0, key: Buffer.from([0, 0, 3]), value: Buffer.alloc(3) });
    expect(() => [...new RecordsIterator(shortKey.build())]).toThrow(CorruptRecordError);
    const badValue = new MemoryRecordsBuilder({ isControl: true });
    badValue.append({ timestamp: 0, key: Buffer.from([0, 0, 0, 3]), value: Buffer.from([0, 0]) });
    expect(() => [...new RecordsIterator(badValue.build())]).toThrow(CorruptRecordError);
  });
});

describe('RecordsIterator with decodeDataRecords: false (a control-records-only reader)', () => {
  const leaderChange = buildLeaderChangeBatch(
    { baseOffset: 2, partitionLeaderEpoch: 1, timestamp: 0 },
    { version: 0, leaderId: 1, voters: [], grantingVoters: [] },
  );

  it('yields data batches with their offsets and no records, and control batches decoded', () => {
    const data = makeBatch({ baseOffset: 0, recordCount: 2 });
    const batches = [...new RecordsIterator(concat([data, leaderChange]), { decodeDataRecords: false })];
    expect(batches.map((batch) => [batch.baseOffset, batch.lastOffset, batch.isControl])).toEqual([
      [0, 1, false],
      [2, 2, true],
    ]);
    expect(batches[0]?.records).toEqual([]);
    expect(batches[1]?.controlRecords.map((record) => record.type)).toEqual([
      ControlRecordType.LEADER_CHANGE,
    ]);
  });

  it('neither checks nor decodes a data batch, and still checks a control batch', () => {
    const data = Buffer.from(makeBatch({ baseOffset: 0, recordCount: 2 }).buffer());
    data.writeUInt8((data.at(-1) as number) ^ 0xff, data.length - 1);
    const corruptData = MemoryRecords.readableRecords(data);
    expect(() => [...new RecordsIterator(corruptData)]).toThrow(CorruptRecordError);
    expect([...new RecordsIterator(corruptData, { decodeDataRecords: false })]).toHaveLength(1);
    const control = Buffer.from(leaderChange.buffer());
    control.writeUInt8((control.at(-1) as number) ^ 0xff, control.length - 1);
    expect(() => [
      ...new RecordsIterator(MemoryRecords.readableRecords(control), { decodeDataRecords: false }),
    ]).toThrow(CorruptRecordError);
  });
});
