import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeBatch } from '../test/helpers/batches.js';
import type { Batch } from './batch.js';
import { CorruptRecordError } from './errors/corrupt-record-error.js';
import { FileRecords } from './file-records.js';
import { type CrashMode, MemoryFileSystem } from './fs/memory-file-system.js';
import { RecordsIterator } from './records-iterator.js';

type Operation = { kind: 'append'; recordCount: number; valueSizeBytes: number } | { kind: 'flush' };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({
    kind: fc.constant('append' as const),
    recordCount: fc.integer({ min: 1, max: 8 }),
    valueSizeBytes: fc.integer({ min: 0, max: 300 }),
  }),
  fc.constant({ kind: 'flush' as const }),
);

/** Batches read back after recovery, stopping at the first corrupt one (a torn or garbled tail). */
function readBack(file: FileRecords): Batch[] {
  const batches: Batch[] = [];
  try {
    for (const batch of new RecordsIterator(file, { maxBatchSizeBytes: 512 })) batches.push(batch);
  } catch (error) {
    if (!CorruptRecordError.isCorruptRecordError(error)) throw error;
  }
  return batches;
}

describe('FileRecords over MemoryFileSystem: crash recovery property', () => {
  it('recovers a prefix of the appended batches that holds every flushed one', () => {
    fc.assert(
      fc.property(
        fc.array(operation, { minLength: 1, maxLength: 30 }),
        fc.constantFrom<CrashMode>('drop-unsynced', 'tear-unsynced', 'garble-unsynced'),
        fc.boolean(),
        fc.integer({ min: 1, max: 2 ** 31 }),
        (operations, mode, preallocate, seed) => {
          const fileSystem = new MemoryFileSystem();
          fileSystem.mkdir('/log');
          const options = { fileSystem, preallocateBytes: preallocate ? 1 << 16 : 0 };
          const file = FileRecords.open('/log/segment.log', options);
          fileSystem.syncDirectory('/log');
          const appendedOffsets: number[] = [];
          let flushedCount = 0;
          let nextOffset = 0;
          for (const step of operations) {
            if (step.kind === 'flush') {
              file.flush();
              flushedCount = appendedOffsets.length;
            } else {
              file.append(makeBatch({ baseOffset: nextOffset, ...step }));
              appendedOffsets.push(nextOffset);
              nextOffset += step.recordCount;
            }
          }
          let state = seed;
          const random = () => {
            state = (Math.imul(state, 1103515245) + 12345) >>> 0;
            return state / 4294967296;
          };
          fileSystem.crash({ mode, random });

          const recovered = readBack(FileRecords.open('/log/segment.log', options));
          const offsets = recovered.map((batch) => batch.baseOffset);
          expect(offsets).toEqual(appendedOffsets.slice(0, offsets.length));
          expect(offsets.length).toBeGreaterThanOrEqual(flushedCount);
        },
      ),
      { numRuns: 150 },
    );
  });
});
