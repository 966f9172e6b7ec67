import { CorruptRecordError } from './errors/corrupt-record-error.js';
import {
  CURRENT_MAGIC,
  HEADER_SIZE_UP_TO_MAGIC,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  RECORD_BATCH_OVERHEAD,
} from './record-batch-layout.js';
import { readSafeInt64 } from './safe-int64.js';

/** Returned by `nextBatchSize` when fewer than `HEADER_SIZE_UP_TO_MAGIC` bytes remain. */
export const INCOMPLETE_HEADER = -1;

/**
 * Reads the framing of the batch at `bytes[position]`: its total size, once the length and magic
 * are there. A length below the 61-byte header or a magic other than 2 is corrupt (Kafka's
 * ByteBufferLogInputStream checks the same). `positionBase` turns `position` into the position
 * reported in errors (the file position of `bytes[0]`).
 */
export function nextBatchSize(bytes: Buffer, position: number, end: number, positionBase: number): number {
  if (end - position < HEADER_SIZE_UP_TO_MAGIC) return INCOMPLETE_HEADER;
  const length = bytes.readInt32BE(position + LENGTH_OFFSET);
  if (length < RECORD_BATCH_OVERHEAD - LOG_OVERHEAD) {
    throw new CorruptRecordError(
      `batch length ${length} is below the ${RECORD_BATCH_OVERHEAD - LOG_OVERHEAD}-byte minimum`,
      offsetOrUnknown(bytes, position),
      positionBase + position,
    );
  }
  const magic = bytes.readInt8(position + MAGIC_OFFSET);
  if (magic !== CURRENT_MAGIC) {
    throw new CorruptRecordError(
      `unsupported magic ${magic} (only 2 is supported)`,
      offsetOrUnknown(bytes, position),
      positionBase + position,
    );
  }
  return length + LOG_OVERHEAD;
}

function offsetOrUnknown(bytes: Buffer, position: number): number {
  const offset = readSafeInt64(bytes, position);
  return Number.isNaN(offset) ? -1 : offset;
}
