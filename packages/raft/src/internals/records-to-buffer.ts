import { invariant } from '@kraft/protocol';
import { type FileRecords, MemoryRecords, type Records } from '@kraft/records';

/** Copies records into one Buffer for a response (a MemoryRecords is a view already). */
export function recordsToBuffer(records: Records): Buffer | null {
  if (records instanceof MemoryRecords) return records.buffer();
  const size = records.sizeInBytes();
  if (size === 0) return Buffer.alloc(0);
  const bytes = Buffer.allocUnsafe(size);
  const read = (records as FileRecords).readInto(bytes, 0);
  invariant(read === size, () => `read ${read} of ${size} record bytes`);
  return bytes;
}
