import { crc32c } from '@node-rs/crc32';

// Record batch v2 layout (kraft-formats.md §3). Offsets are from the start of the batch.
export const BASE_OFFSET_OFFSET = 0;
export const BATCH_LENGTH_OFFSET = 8;
export const PARTITION_LEADER_EPOCH_OFFSET = 12;
export const MAGIC_OFFSET = 16;
export const CRC_OFFSET = 17;
export const ATTRIBUTES_OFFSET = 21;
export const LAST_OFFSET_DELTA_OFFSET = 23;
export const MAX_TIMESTAMP_OFFSET = 35;
export const RECORDS_COUNT_OFFSET = 57;
/** baseOffset + batchLength: the bytes before `batchLength` counts. */
export const LOG_OVERHEAD = 12;
/** The fixed batch header; a batch is never shorter. */
export const RECORD_BATCH_OVERHEAD = 61;
export const CURRENT_MAGIC = 2;

/** Results of `checkBatchAt` below zero: why no batch could be taken at that position. */
export const BATCH_INCOMPLETE = -1;
export const BATCH_CORRUPT = -2;

const TWO_POW_32 = 2 ** 32;

/** Reads an int64 as a number; NaN when it is negative or not a safe integer (a corrupt field). */
export function readSafeOffset(buffer: Buffer, position: number): number {
  const high = buffer.readUInt32BE(position);
  if (high >= 0x200000) return Number.NaN;
  return high * TWO_POW_32 + buffer.readUInt32BE(position + 4);
}

export function writeOffset(buffer: Buffer, position: number, offset: number): void {
  buffer.writeUInt32BE(Math.floor(offset / TWO_POW_32), position);
  buffer.writeUInt32BE(offset % TWO_POW_32, position + 4);
}

export function batchBaseOffset(buffer: Buffer, position: number): number {
  return readSafeOffset(buffer, position + BASE_OFFSET_OFFSET);
}

export function batchLastOffset(buffer: Buffer, position: number): number {
  return batchBaseOffset(buffer, position) + buffer.readInt32BE(position + LAST_OFFSET_DELTA_OFFSET);
}

export function batchLeaderEpoch(buffer: Buffer, position: number): number {
  return buffer.readInt32BE(position + PARTITION_LEADER_EPOCH_OFFSET);
}

/** Max timestamp as a number of ms; the field is int64 but ms since the epoch fit a double exactly. */
export function batchMaxTimestamp(buffer: Buffer, position: number): number {
  return Number(buffer.readBigInt64BE(position + MAX_TIMESTAMP_OFFSET));
}

/** Total size of the batch at `position` as its length field says it, unchecked. */
export function batchSizeAt(buffer: Buffer, position: number): number {
  return buffer.readInt32BE(position + BATCH_LENGTH_OFFSET) + LOG_OVERHEAD;
}

/** Total size of the batch at `position` from its length field, or BATCH_CORRUPT when impossible. */
export function declaredBatchSize(buffer: Buffer, position: number, maxBatchSizeInBytes: number): number {
  const size = batchSizeAt(buffer, position);
  if (size < RECORD_BATCH_OVERHEAD || size > maxBatchSizeInBytes) return BATCH_CORRUPT;
  return size;
}

/**
 * Validates the batch that starts at `position` within `buffer[0, limit)`: magic 2, a sane length,
 * a sane offset range and a CRC-32C over [attributes, end). Returns the batch size, BATCH_INCOMPLETE
 * when the buffer ends inside it, or BATCH_CORRUPT. One CRC pass over a zero-copy view.
 */
export function checkBatchAt(
  buffer: Buffer,
  position: number,
  limit: number,
  maxBatchSizeInBytes: number,
): number {
  if (limit - position < RECORD_BATCH_OVERHEAD) return BATCH_INCOMPLETE;
  const size = declaredBatchSize(buffer, position, maxBatchSizeInBytes);
  if (size < 0) return size;
  if (buffer[position + MAGIC_OFFSET] !== CURRENT_MAGIC) return BATCH_CORRUPT;
  if (limit - position < size) return BATCH_INCOMPLETE;
  const baseOffset = batchBaseOffset(buffer, position);
  const lastOffsetDelta = buffer.readInt32BE(position + LAST_OFFSET_DELTA_OFFSET);
  if (
    Number.isNaN(baseOffset) ||
    lastOffsetDelta < 0 ||
    !Number.isSafeInteger(baseOffset + lastOffsetDelta)
  ) {
    return BATCH_CORRUPT;
  }
  const expectedCrc = buffer.readUInt32BE(position + CRC_OFFSET);
  const actualCrc = crc32c(buffer.subarray(position + ATTRIBUTES_OFFSET, position + size));
  return expectedCrc === actualCrc ? size : BATCH_CORRUPT;
}

/**
 * The leading batches of `buffer` (whole batches, already validated) whose last offset lies below
 * `offset`: their size and the last offset they hold (-1 when none).
 */
export function batchesBelow(buffer: Buffer, offset: number): { sizeInBytes: number; lastOffset: number } {
  let position = 0;
  let lastOffset = -1;
  while (position + LOG_OVERHEAD <= buffer.length) {
    const batchLast = batchLastOffset(buffer, position);
    if (batchLast >= offset) break;
    lastOffset = batchLast;
    position += batchSizeAt(buffer, position);
  }
  return { sizeInBytes: position, lastOffset };
}
