import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { concat, makeBatch, makeBatches } from '../test/helpers/batches.js';
import { IllegalArgumentError } from './errors/illegal-argument-error.js';
import { FileRecords } from './file-records.js';
import type { FileSystem } from './fs/file-system.js';
import { MemoryFileSystem } from './fs/memory-file-system.js';
import { NodeFileSystem } from './fs/node-file-system.js';
import { MemoryRecords } from './memory-records.js';

const temporaryDirectory = mkdtempSync(join(tmpdir(), 'kraft-file-records-'));
afterAll(() => rmSync(temporaryDirectory, { recursive: true, force: true }));

const fileSystems: [string, () => { fileSystem: FileSystem; directory: string }][] = [
  [
    'MemoryFileSystem',
    () => {
      const fileSystem = new MemoryFileSystem();
      fileSystem.mkdir('/data');
      return { fileSystem, directory: '/data' };
    },
  ],
  [
    'NodeFileSystem',
    () => ({ fileSystem: new NodeFileSystem(), directory: mkdtempSync(join(temporaryDirectory, 'case-')) }),
  ],
];

describe.each(fileSystems)('FileRecords over %s', (_name, setup) => {
  function openWith(batches: readonly MemoryRecords[], options: { preallocateBytes?: number } = {}) {
    const { fileSystem, directory } = setup();
    const records = FileRecords.open(`${directory}/00000000000000000000.log`, { fileSystem, ...options });
    for (const batch of batches) records.append(batch);
    return { records, fileSystem, directory };
  }

  describe('readInto stops at the end of the records (KAFKA-20841 regression cases)', () => {
    const batches = makeBatches([
      { recordCount: 2, valueSizeBytes: 40 },
      { recordCount: 3, valueSizeBytes: 50 },
      { recordCount: 1, valueSizeBytes: 60 },
    ]);
    const all = concat(batches).buffer();
    const firstSize = batches[0]!.sizeInBytes();
    const secondSize = batches[1]!.sizeInBytes();

    it('reads a slice up to its end and not into the records that follow it', () => {
      const { records } = openWith(batches);
      const slice = records.slice(0, firstSize);
      const target = Buffer.alloc(all.length, 0xee);
      expect(slice.readInto(target, 0)).toBe(firstSize);
      expect(target.subarray(0, firstSize)).toEqual(all.subarray(0, firstSize));
      expect(target.subarray(firstSize).every((byte) => byte === 0xee)).toBe(true);
    });

    it('reads a slice that starts part-way into the file from its own start', () => {
      const { records } = openWith(batches);
      const slice = records.slice(firstSize, secondSize);
      const target = Buffer.alloc(all.length, 0xee);
      expect(slice.readInto(target, 0)).toBe(secondSize);
      expect(target.subarray(0, secondSize)).toEqual(all.subarray(firstSize, firstSize + secondSize));
      expect(target.subarray(secondSize).every((byte) => byte === 0xee)).toBe(true);
      // A position is relative to the slice.
      const partial = Buffer.alloc(10);
      expect(slice.readInto(partial, 5)).toBe(10);
      expect(partial).toEqual(all.subarray(firstSize + 5, firstSize + 15));
    });

    it('reads a preallocated file up to its records and not into the zero tail', () => {
      const { records } = openWith(batches, { preallocateBytes: 64 * 1024 });
      expect(records.sizeInBytes()).toBe(all.length);
      const target = Buffer.alloc(4 * all.length, 0xee);
      expect(records.readInto(target, 0)).toBe(all.length);
      expect(target.subarray(0, all.length)).toEqual(all);
      expect(target.subarray(all.length).every((byte) => byte === 0xee)).toBe(true);
    });

    it('reads nothing at position == sizeInBytes()', () => {
      const { records } = openWith(batches);
      const target = Buffer.alloc(16, 0xee);
      expect(records.readInto(target, records.sizeInBytes())).toBe(0);
      expect(target.every((byte) => byte === 0xee)).toBe(true);
      const slice = records.slice(firstSize, secondSize);
      expect(slice.readInto(target, secondSize)).toBe(0);
    });

    it('throws on a negative or too-large position', () => {
      const { records } = openWith(batches);
      const slice = records.slice(firstSize, secondSize);
      const target = Buffer.alloc(16);
      expect(() => records.readInto(target, -1)).toThrow(IllegalArgumentError);
      expect(() => records.readInto(target, records.sizeInBytes() + 1)).toThrow(IllegalArgumentError);
      expect(() => slice.readInto(target, -1)).toThrow(IllegalArgumentError);
      expect(() => slice.readInto(target, secondSize + 1)).toThrow(IllegalArgumentError);
    });

    it('reads exactly min(target.length, sizeInBytes() - position) bytes', () => {
      const { records } = openWith(batches);
      const slice = records.slice(7, all.length - 20);
      for (const [length, position] of [
        [0, 0],
        [1, 0],
        [5, 3],
        [1000, 0],
        [1000, 50],
        [3, slice.sizeInBytes() - 2],
      ] as const) {
        const target = Buffer.alloc(length);
        const expected = Math.min(length, slice.sizeInBytes() - position);
        expect(slice.readInto(target, position)).toBe(expected);
        expect(target.subarray(0, expected)).toEqual(all.subarray(7 + position, 7 + position + expected));
      }
    });

    it('does not see appends made after a slice was taken', () => {
      const { records } = openWith(batches.slice(0, 1));
      const slice = records.slice(0, 1 << 20);
      records.append(batches[1]!);
      expect(slice.sizeInBytes()).toBe(firstSize);
      const target = Buffer.alloc(all.length);
      expect(slice.readInto(target, 0)).toBe(firstSize);
    });
  });

  describe('slice', () => {
    it('follows Kafka rules: negative position or size or a position past the end throws; the end is clamped', () => {
      const { records } = openWith([makeBatch({ baseOffset: 0, recordCount: 3 })]);
      const size = records.sizeInBytes();
      expect(() => records.slice(-1, 10)).toThrow(IllegalArgumentError);
      expect(() => records.slice(0, -1)).toThrow(IllegalArgumentError);
      expect(() => records.slice(size + 1, 0)).toThrow(IllegalArgumentError);
      expect(records.slice(size, 10).sizeInBytes()).toBe(0);
      expect(records.slice(10, size).sizeInBytes()).toBe(size - 10);
      expect(records.slice(0, Number.MAX_SAFE_INTEGER).sizeInBytes()).toBe(size);
    });

    it('slices a slice relative to the outer slice', () => {
      const batches = makeBatches([
        { recordCount: 1, valueSizeBytes: 10 },
        { recordCount: 1, valueSizeBytes: 20 },
        { recordCount: 1, valueSizeBytes: 30 },
      ]);
      const { records } = openWith(batches);
      const first = batches[0]!.sizeInBytes();
      const outer = records.slice(first, records.sizeInBytes() - first);
      const inner = outer.slice(batches[1]!.sizeInBytes(), 1000);
      expect(inner.start).toBe(first + batches[1]!.sizeInBytes());
      expect(inner.sizeInBytes()).toBe(batches[2]!.sizeInBytes());
      expect([...inner.batches()].map((batch) => batch.baseOffset)).toEqual([2]);
      expect(() => outer.slice(outer.sizeInBytes() + 1, 0)).toThrow(IllegalArgumentError);
    });
  });

  it('appends, iterates batch headers and loads bodies on demand', () => {
    const batches = makeBatches([
      { recordCount: 2, valueSizeBytes: 10 },
      { recordCount: 5, valueSizeBytes: 10 },
    ]);
    const { records } = openWith([]);
    expect(records.append(batches[0]!)).toBe(batches[0]!.sizeInBytes());
    expect(records.append(batches[1]!)).toBe(batches[1]!.sizeInBytes());
    const found = [...records.batches()];
    expect(
      found.map((batch) => [batch.baseOffset, batch.lastOffset, batch.position, batch.sizeInBytes]),
    ).toEqual([
      [0, 1, 0, batches[0]!.sizeInBytes()],
      [2, 6, batches[0]!.sizeInBytes(), batches[1]!.sizeInBytes()],
    ]);
    expect(found[1]!.isValid()).toBe(true);
    expect(found[1]!.records().map((record) => record.offset)).toEqual([2, 3, 4, 5, 6]);
    expect(found[1]!.load().bytes).toEqual(batches[1]!.buffer());
  });

  it('stops batches() at a trailing partial batch', () => {
    const batches = makeBatches([
      { recordCount: 1, valueSizeBytes: 10 },
      { recordCount: 1, valueSizeBytes: 10 },
    ]);
    const { records } = openWith(batches);
    const cut = records.slice(0, records.sizeInBytes() - 1);
    expect([...cut.batches()].map((batch) => batch.baseOffset)).toEqual([0]);
  });

  it('searches for the first batch reaching an offset', () => {
    const batches = makeBatches([
      { recordCount: 3, valueSizeBytes: 10 },
      { recordCount: 3, valueSizeBytes: 10 },
      { recordCount: 3, valueSizeBytes: 10 },
    ]);
    const { records } = openWith(batches);
    const [first, second] = [batches[0]!.sizeInBytes(), batches[1]!.sizeInBytes()];
    expect(records.searchForOffsetWithSize(0, 0)).toEqual({ offset: 2, position: 0, sizeInBytes: first });
    expect(records.searchForOffsetWithSize(4, 0)).toEqual({
      offset: 5,
      position: first,
      sizeInBytes: second,
    });
    expect(records.searchForOffsetWithSize(4, first + second)).toEqual({
      offset: 8,
      position: first + second,
      sizeInBytes: batches[2]!.sizeInBytes(),
    });
    expect(records.searchForOffsetWithSize(9, 0)).toBeUndefined();
    expect(() => records.searchForOffsetWithSize(0, -1)).toThrow(IllegalArgumentError);
  });

  it('truncates, refusing to grow', () => {
    const batches = makeBatches([
      { recordCount: 1, valueSizeBytes: 10 },
      { recordCount: 1, valueSizeBytes: 10 },
    ]);
    const { records } = openWith(batches);
    const total = records.sizeInBytes();
    const first = batches[0]!.sizeInBytes();
    expect(() => records.truncateTo(total + 1)).toThrow(IllegalArgumentError);
    expect(() => records.truncateTo(-1)).toThrow(IllegalArgumentError);
    expect(records.truncateTo(first)).toBe(total - first);
    expect(records.sizeInBytes()).toBe(first);
    expect([...records.batches()].map((batch) => batch.baseOffset)).toEqual([0]);
    records.append(batches[1]!);
    expect(records.sizeInBytes()).toBe(total);
  });

  it('trims the preallocated tail on close and finds the end of a preallocated file on open', () => {
    const batches = makeBatches([
      { recordCount: 2, valueSizeBytes: 10 },
      { recordCount: 2, valueSizeBytes: 10 },
    ]);
    const { records, fileSystem } = openWith(batches, { preallocateBytes: 1 << 20 });
    const path = records.path;
    const size = records.sizeInBytes();
    // Reopening while the zero tail is still there (as after a crash) finds the records' end.
    const reopened = FileRecords.open(path, { fileSystem, preallocateBytes: 1 << 20, mutable: false });
    expect(reopened.sizeInBytes()).toBe(size);
    reopened.close();
    records.close();
    const handle = fileSystem.open(path);
    expect(handle.size()).toBe(size);
    handle.close();
    const again = FileRecords.open(path, { fileSystem, preallocateBytes: 1 << 20 });
    expect(again.sizeInBytes()).toBe(size);
    again.append(makeBatch({ baseOffset: 4 }));
    expect([...again.batches()].map((batch) => batch.baseOffset)).toEqual([0, 2, 4]);
    again.close();
  });

  it('writes a slice to a destination in bounded chunks, honouring backpressure', () => {
    const { records } = openWith([makeBatch({ baseOffset: 0, recordCount: 200, valueSizeBytes: 1000 })]);
    const all = Buffer.alloc(records.sizeInBytes());
    records.readInto(all, 0);
    const chunks: Buffer[] = [];
    const written = records.writeTo({ write: (chunk) => chunks.push(chunk) < 2 }, 100, 150_000);
    expect(chunks).toHaveLength(2);
    expect(chunks.every((chunk) => chunk.length <= 64 * 1024)).toBe(true);
    expect(written).toBe(chunks[0]!.length + chunks[1]!.length);
    expect(Buffer.concat(chunks).equals(all.subarray(100, 100 + written))).toBe(true);
    const rest: Buffer[] = [];
    const remaining = records.writeTo(
      { write: (chunk) => rest.push(chunk) > 0 },
      100 + written,
      150_000 - written,
    );
    expect(written + remaining).toBe(150_000);
    expect(Buffer.concat([...chunks, ...rest]).equals(all.subarray(100, 150_100))).toBe(true);
    const slice = records.slice(10, 50);
    const sink: Buffer[] = [];
    expect(slice.writeTo({ write: (chunk) => sink.push(chunk) > 0 }, 0, 1_000_000)).toBe(50);
    expect(() => slice.writeTo({ write: () => true }, 51, 1)).toThrow(IllegalArgumentError);
  });

  it('renames, deletes and refuses use after close', () => {
    const { records, fileSystem, directory } = openWith([makeBatch({ baseOffset: 0 })]);
    records.renameTo(`${directory}/renamed.log`);
    expect(records.path).toBe(`${directory}/renamed.log`);
    expect(fileSystem.exists(`${directory}/renamed.log`)).toBe(true);
    records.append(makeBatch({ baseOffset: 1 }));
    expect([...records.batches()]).toHaveLength(2);
    expect(records.deleteIfExists()).toBe(true);
    expect(fileSystem.exists(`${directory}/renamed.log`)).toBe(false);
    expect(() => records.readInto(Buffer.alloc(1), 0)).toThrow(/closed/);
    return expect(records.flushAsync()).rejects.toThrow(/closed/);
  });

  it('opens read-only and refuses writes', () => {
    const { records, fileSystem } = openWith([makeBatch({ baseOffset: 0 })]);
    records.flush();
    const readOnly = FileRecords.open(records.path, { fileSystem, mutable: false });
    expect(readOnly.sizeInBytes()).toBe(records.sizeInBytes());
    expect(() => readOnly.append(makeBatch({ baseOffset: 1 }))).toThrow(/read-only/);
    expect(() => readOnly.slice(0, 10).append(MemoryRecords.EMPTY)).toThrow(/slice/);
    readOnly.close();
    records.close();
  });

  it('flushes asynchronously', async () => {
    const { records } = openWith([makeBatch({ baseOffset: 0 })]);
    await records.flushAsync();
    records.close();
  });
});

describe('FileRecords durability over MemoryFileSystem', () => {
  it('finds the end of a preallocated file before a half-written batch', () => {
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir('/data');
    const records = FileRecords.open('/data/segment.log', { fileSystem, preallocateBytes: 1 << 16 });
    const complete = makeBatch({ baseOffset: 0, recordCount: 3 });
    records.append(complete);
    const torn = makeBatch({ baseOffset: 3, recordCount: 50, valueSizeBytes: 100 }).buffer();
    const handle = fileSystem.open('/data/segment.log');
    handle.write(torn.subarray(0, torn.length / 2), complete.sizeInBytes());
    handle.close();
    const reopened = FileRecords.open('/data/segment.log', { fileSystem, preallocateBytes: 1 << 16 });
    expect(reopened.sizeInBytes()).toBe(complete.sizeInBytes());
  });

  it('drops an unsynced batch written into preallocated space on a crash', () => {
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir('/data');
    const records = FileRecords.open('/data/segment.log', { fileSystem, preallocateBytes: 1 << 16 });
    fileSystem.syncDirectory('/data');
    const durable = makeBatch({ baseOffset: 0, recordCount: 3 });
    records.append(durable);
    records.flush();
    records.append(makeBatch({ baseOffset: 3, recordCount: 50, valueSizeBytes: 100 }));
    // The preallocated zeros were synced: the unsynced overwrite is undone.
    fileSystem.crash({ mode: 'tear-unsynced', random: () => 0.5 });
    const recovered = FileRecords.open('/data/segment.log', { fileSystem, preallocateBytes: 1 << 16 });
    expect(recovered.sizeInBytes()).toBe(durable.sizeInBytes());
    expect([...recovered.batches()].map((batch) => batch.baseOffset)).toEqual([0]);
  });

  it('keeps only flushed appends across a crash', () => {
    const fileSystem = new MemoryFileSystem();
    fileSystem.mkdir('/data');
    const records = FileRecords.open('/data/segment.log', { fileSystem });
    fileSystem.syncDirectory('/data');
    const flushed = makeBatch({ baseOffset: 0, recordCount: 2 });
    records.append(flushed);
    records.flush();
    records.append(makeBatch({ baseOffset: 2 }));
    fileSystem.crash();
    const recovered = FileRecords.open('/data/segment.log', { fileSystem });
    expect(recovered.sizeInBytes()).toBe(flushed.sizeInBytes());
  });
});
