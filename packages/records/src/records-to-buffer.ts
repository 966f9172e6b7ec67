import { invariant } from '@kraft/protocol';
import { MemoryRecords } from './memory-records.js';
import type { Records } from './records-iterator.js';

/**
 * All bytes of `records` in one Buffer: a MemoryRecords is a view already; a FileRecords slice is
 * copied with one `readInto`, which stops at the slice end, and must fill exactly its size.
 */
export function recordsToBuffer(records: Records): Buffer {
  if (records instanceof MemoryRecords) return records.buffer();
  const size = records.sizeInBytes();
  if (size === 0) return Buffer.alloc(0);
  const bytes = Buffer.allocUnsafe(size);
  const read = records.readInto(bytes, 0);
  invariant(read === size, () => `read ${read} of ${size} record bytes`);
  return bytes;
}
