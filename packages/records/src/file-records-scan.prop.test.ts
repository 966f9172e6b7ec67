// The end a preallocated open finds (FileRecords' scan of batch headers in 64 KiB chunks) against
// the sizes of the batches written: across chunk boundaries, with a file filled to its last byte,
// a torn last batch and a header zeroed part-way. Pins what the records mutation run left open.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { makeBatch } from '../test/helpers/batches.js';
import { FileRecords } from './file-records.js';
import { MemoryFileSystem } from './fs/memory-file-system.js';

const PATH = '/log/00000000000000000000.log';

type Damage =
  | { kind: 'none' }
  | { kind: 'torn-last-body' }
  | { kind: 'zeroed-header'; batchFraction: number };

const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.constant({ kind: 'none' as const }),
  fc.constant({ kind: 'torn-last-body' as const }),
  fc.record({
    kind: fc.constant('zeroed-header' as const),
    batchFraction: fc.double({ min: 0, max: 0.999, noNaN: true }),
  }),
);

describe('FileRecords.open of a preallocated file: where the records end', () => {
  it('is the end of the last whole, intact batch, whatever the chunk boundaries', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 9_000 }), { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        damage,
        (valueSizes, fillExactly, harm) => {
          const batches = [];
          let offset = 0;
          for (const valueSizeBytes of valueSizes) {
            batches.push(makeBatch({ baseOffset: offset, recordCount: 1, valueSizeBytes }));
            offset += 1;
          }
          const starts: number[] = [];
          let total = 0;
          for (const batch of batches) {
            starts.push(total);
            total += batch.sizeInBytes();
          }
          const fileSystem = new MemoryFileSystem();
          fileSystem.mkdir('/log');
          // Filled exactly: no zero tail at all, the scan meets the physical end.
          const preallocateBytes = fillExactly ? total : total + 70_000;
          const file = FileRecords.open(PATH, { fileSystem, preallocateBytes });
          fileSystem.syncDirectory('/log');
          for (const batch of batches) file.append(batch);
          file.flush();
          let expectedEnd = total;
          const handle = fileSystem.open(PATH);
          if (harm.kind === 'torn-last-body') {
            const last = starts.at(-1) as number;
            // The last byte, inside the CRC-covered body, flipped: the header stays whole, the CRC fails.
            const byte = Buffer.alloc(1);
            handle.read(byte, 0, 1, total - 1);
            handle.write(Buffer.from([(byte[0] as number) ^ 0xff]), total - 1);
            expectedEnd = last;
          } else if (harm.kind === 'zeroed-header') {
            const index = Math.floor(harm.batchFraction * batches.length);
            const start = starts[index] as number;
            handle.write(Buffer.alloc(17), start);
            expectedEnd = start;
          }
          handle.sync();
          handle.close();
          // A process crash: the bytes stay, the preallocated tail is not trimmed.
          fileSystem.crash({ mode: 'drop-unsynced' });
          const reopened = FileRecords.open(PATH, { fileSystem, preallocateBytes, mutable: false });
          const end = reopened.sizeInBytes();
          reopened.close();
          expect(end).toBe(expectedEnd);
        },
      ),
      { numRuns: 150 },
    );
  });
});
