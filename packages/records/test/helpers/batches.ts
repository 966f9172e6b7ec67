import type { CompressionType } from '../../src/compression/compression-type.js';
import { MemoryRecords } from '../../src/memory-records.js';
import { MemoryRecordsBuilder } from '../../src/memory-records-builder.js';

export interface TestBatchOptions {
  readonly baseOffset: number;
  readonly recordCount?: number;
  readonly valueSizeBytes?: number;
  readonly epoch?: number;
  readonly compression?: CompressionType;
  readonly timestamp?: number;
}

/** A value whose bytes encode its offset, so tests can tell records apart. */
export function valueFor(offset: number, sizeBytes: number): Buffer {
  const value = Buffer.alloc(sizeBytes, offset % 251);
  if (sizeBytes >= 8) value.writeDoubleBE(offset, 0);
  return value;
}

/** One KRaft-style data batch: null keys, same timestamp, deterministic values. */
export function makeBatch(options: TestBatchOptions): MemoryRecords {
  const builder = new MemoryRecordsBuilder({
    baseOffset: options.baseOffset,
    partitionLeaderEpoch: options.epoch ?? 1,
    compression: options.compression ?? 'none',
  });
  const count = options.recordCount ?? 1;
  for (let index = 0; index < count; index += 1) {
    builder.append({
      timestamp: options.timestamp ?? 1_700_000_000_000,
      key: null,
      value: valueFor(options.baseOffset + index, options.valueSizeBytes ?? 16),
    });
  }
  return builder.build();
}

/** Consecutive batches starting at offset 0, concatenated. */
export function makeBatches(
  sizes: readonly { recordCount: number; valueSizeBytes: number }[],
  epoch = 1,
): MemoryRecords[] {
  const batches: MemoryRecords[] = [];
  let offset = 0;
  for (const size of sizes) {
    batches.push(
      makeBatch({
        baseOffset: offset,
        recordCount: size.recordCount,
        valueSizeBytes: size.valueSizeBytes,
        epoch,
      }),
    );
    offset += size.recordCount;
  }
  return batches;
}

export function concat(records: readonly MemoryRecords[]): MemoryRecords {
  return MemoryRecords.readableRecords(Buffer.concat(records.map((batch) => batch.buffer())));
}
