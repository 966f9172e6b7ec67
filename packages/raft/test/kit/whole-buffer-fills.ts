import { FileRecords } from '@kraft/records';
import type { LogFetchInfo, RaftLog } from '../../src/ports/raft-log.js';

/**
 * What a committed read yields through a RecordsIterator whose `readInto` stops only when its
 * buffer is full or the file ends (Kafka before KAFKA-20841): a read no larger than the buffer is
 * exact (the buffer is allocated at its size), a larger one is read in whole buffers, and the
 * whole batches of the last fill's overrun are returned with it. Planted as a bug by the
 * simulator's `committed-refill-past-hwm` sabotage and by metadata's KAFKA-20841 scenario; a log
 * that does not read FileRecords gets its exact committed read back.
 */
export function readInWholeBufferFills(
  log: RaftLog,
  startOffset: number,
  bufferBytes: number,
  maxSizeBytes?: number,
): LogFetchInfo {
  const committed = log.read(startOffset, 'committed', maxSizeBytes);
  const sizeInBytes = committed.records.sizeInBytes();
  if (sizeInBytes <= bufferBytes) return committed;
  const uncommitted = log.read(startOffset, 'uncommitted', maxSizeBytes).records;
  if (!(uncommitted instanceof FileRecords)) return committed;
  // The iterator yields every whole batch in what it read and stops at a partial one.
  const filledBytes = Math.ceil(sizeInBytes / bufferBytes) * bufferBytes;
  let wholeBatchBytes = 0;
  for (const batch of uncommitted.batches()) {
    if (wholeBatchBytes + batch.sizeInBytes > filledBytes) break;
    wholeBatchBytes += batch.sizeInBytes;
  }
  return { ...committed, records: uncommitted.slice(0, Math.max(wholeBatchBytes, sizeInBytes)) };
}
