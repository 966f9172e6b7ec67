import { describe, expect, it } from 'vitest';
import { dataBatch } from '../../test/support/log-fixtures.js';
import {
  BATCH_CORRUPT,
  BATCH_INCOMPLETE,
  batchBaseOffset,
  batchesBelow,
  batchLastOffset,
  batchLeaderEpoch,
  batchSizeAt,
  checkBatchAt,
  readSafeOffset,
  writeOffset,
} from './batch-header.js';

const MAX = 8 * 1024 * 1024;

describe('batch header checks', () => {
  const batch = Buffer.from(dataBatch({ baseOffset: 7, epoch: 3, count: 4 }).buffer());

  it('accepts a whole valid batch and reads its fields', () => {
    expect(checkBatchAt(batch, 0, batch.length, MAX)).toBe(batch.length);
    expect([batchBaseOffset(batch, 0), batchLastOffset(batch, 0), batchLeaderEpoch(batch, 0)]).toEqual([
      7, 10, 3,
    ]);
  });

  it('reports a batch cut anywhere as incomplete', () => {
    for (let length = 0; length < batch.length; length += 1) {
      expect(checkBatchAt(batch, 0, length, MAX)).toBe(BATCH_INCOMPLETE);
    }
  });

  it('reports bad lengths, magic, CRC, and oversized batches as corrupt', () => {
    const cases: Array<(bytes: Buffer) => void> = [
      (bytes) => bytes.writeInt32BE(10, 8),
      (bytes) => bytes.writeInt8(1, 16),
      (bytes) => bytes.writeUInt32BE((bytes.readUInt32BE(17) + 1) >>> 0, 17),
      (bytes) => bytes.writeInt32BE(-1, 23),
      (bytes) => bytes.writeUInt32BE(0xffffffff, 0),
      (bytes) => {
        bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 0x10;
      },
    ];
    for (const damage of cases) {
      const bytes = Buffer.from(batch);
      damage(bytes);
      expect(checkBatchAt(bytes, 0, bytes.length, MAX)).toBe(BATCH_CORRUPT);
    }
    expect(checkBatchAt(batch, 0, batch.length, batch.length - 1)).toBe(BATCH_CORRUPT);
  });

  it('round-trips offsets beyond 2^32 and rejects unsafe ones', () => {
    const bytes = Buffer.alloc(8);
    writeOffset(bytes, 0, 2 ** 40 + 5);
    expect(readSafeOffset(bytes, 0)).toBe(2 ** 40 + 5);
    bytes.writeUInt32BE(0x00200000, 0);
    expect(readSafeOffset(bytes, 0)).toBeNaN();
  });
});

describe('batchesBelow', () => {
  const parts = [24, 26, 28].map((offset) =>
    Buffer.from(dataBatch({ baseOffset: offset, count: 2 }).buffer()),
  );
  const buffer = Buffer.concat(parts);
  const sizes = parts.map((part) => part.length);

  it('takes the whole leading batches whose last offset lies below the offset', () => {
    expect(batchSizeAt(buffer, 0)).toBe(sizes[0]);
    expect(batchesBelow(buffer, 28)).toEqual({
      sizeInBytes: (sizes[0] ?? 0) + (sizes[1] ?? 0),
      lastOffset: 27,
    });
    // 27 is inside the batch 26-27: that batch is not below it.
    expect(batchesBelow(buffer, 27)).toEqual({ sizeInBytes: sizes[0], lastOffset: 25 });
    expect(batchesBelow(buffer, 24)).toEqual({ sizeInBytes: 0, lastOffset: -1 });
    expect(batchesBelow(buffer, 100)).toEqual({ sizeInBytes: buffer.length, lastOffset: 29 });
  });
});
