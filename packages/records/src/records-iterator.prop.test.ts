import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeBatch } from '../test/helpers/batches.js';
import { RecordingFileSystem } from '../test/helpers/recording-file-system.js';
import type { CompressionType } from './compression/compression-type.js';
import { FileRecords } from './file-records.js';
import { MemoryFileSystem } from './fs/memory-file-system.js';
import type { MemoryRecords } from './memory-records.js';
import { RecordsIterator } from './records-iterator.js';

const batchSpec = fc.record({
  recordCount: fc.integer({ min: 1, max: 12 }),
  valueSizeBytes: fc.integer({ min: 0, max: 400 }),
  compression: fc.constantFrom<CompressionType>('none', 'none', 'gzip', 'snappy', 'lz4'),
});

describe('RecordsIterator property: a FileRecords slice yields exactly its complete batches', () => {
  it('holds over random batches, slice bounds and buffer sizes', () => {
    fc.assert(
      fc.property(
        fc.array(batchSpec, { minLength: 1, maxLength: 25 }),
        fc.nat(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 17, max: 20_000 }),
        (specs, startPick, endFraction, bufferSize) => {
          const batches: MemoryRecords[] = [];
          const boundaries = [0];
          let offset = 0;
          for (const spec of specs) {
            const batch = makeBatch({ baseOffset: offset, ...spec });
            batches.push(batch);
            offset += spec.recordCount;
            boundaries.push((boundaries.at(-1) as number) + batch.sizeInBytes());
          }
          const memory = new MemoryFileSystem();
          memory.mkdir('/log');
          const fileSystem = new RecordingFileSystem(memory);
          const file = FileRecords.open('/log/segment.log', { fileSystem });
          for (const batch of batches) file.append(batch);

          const startIndex = startPick % specs.length;
          const start = boundaries[startIndex] as number;
          const end = start + Math.floor(endFraction * (file.sizeInBytes() - start));
          const slice = file.slice(start, end - start);

          const expected = batches
            .map((batch, index) => ({
              batch,
              from: boundaries[index] as number,
              to: boundaries[index + 1] as number,
            }))
            .filter(({ from, to }) => from >= start && to <= end);
          fileSystem.reads.length = 0;
          const iterator = new RecordsIterator(slice, { maxBatchSizeBytes: bufferSize });
          const yielded = [...iterator];

          expect(yielded.map((batch) => batch.position)).toEqual(expected.map(({ from }) => from));
          expect(yielded.map((batch) => batch.records.map((record) => record.offset))).toEqual(
            expected.map(({ batch }) => [...batch.batches()][0]?.records().map((record) => record.offset)),
          );
          expect(fileSystem.furthestRead()).toBeLessThanOrEqual(end);
          expect(iterator.bufferSizeInBytes()).toBeLessThanOrEqual(Math.max(bufferSize, 17));
        },
      ),
      { numRuns: 200 },
    );
  });
});
