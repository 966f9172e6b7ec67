import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseSegmentFileName } from '@kraft/log';
import { FileRecords, RecordBatch } from '@kraft/records';
import { type CommittedRecord, readRecordTag } from './history-checker.js';

/** The test server's partition directory inside its log dir (Kafka's `__raft_performance_test-0`). */
export const TEST_SERVER_PARTITION_DIRECTORY = '__raft_performance_test-0';
/** A RaftNode's (the kv-store's) partition directory: `__cluster_metadata-0`, as a KRaft controller's. */
export const RAFT_NODE_PARTITION_DIRECTORY = '__cluster_metadata-0';

/** One batch below the committed offset, with its bytes as they are on disk. */
export interface CommittedBatch {
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly bytes: Buffer;
}

export interface CommittedLog {
  readonly batches: readonly CommittedBatch[];
  /**
   * The offset after the last batch read: the node holds `[start, endOffset)` of the committed log,
   * from its first segment's base offset (0 until log retention deletes a segment).
   */
  readonly endOffset: number;
}

/**
 * The batches of a node's log that start below `committedOffset`, read segment by segment with
 * FileRecords (read-only, batch by batch: a trailing partial batch is not returned), stopping at
 * the first batch at or past it and at `maxBytes`, which bounds what a long run may hold in memory.
 */
export function readCommittedLog(
  logDirectory: string,
  committedOffset: number,
  maxBytes: number,
  partitionDirectory = TEST_SERVER_PARTITION_DIRECTORY,
): CommittedLog {
  const partition = join(logDirectory, partitionDirectory);
  const segments = readdirSync(partition)
    .map((name) => ({ name, baseOffset: parseSegmentFileName(name) }))
    .filter((segment): segment is { name: string; baseOffset: number } => segment.baseOffset !== undefined)
    .sort((left, right) => left.baseOffset - right.baseOffset);
  const batches: CommittedBatch[] = [];
  let totalBytes = 0;
  let endOffset = segments[0]?.baseOffset ?? 0;
  for (const segment of segments) {
    if (segment.baseOffset >= committedOffset) break;
    const records = FileRecords.open(join(partition, segment.name), { mutable: false });
    try {
      for (const batch of records.batches()) {
        if (batch.baseOffset >= committedOffset) break;
        totalBytes += batch.sizeInBytes;
        if (totalBytes > maxBytes) {
          throw new RangeError(`${partition}: the committed log is larger than ${maxBytes} bytes`);
        }
        const loaded = batch.load();
        loaded.ensureValid();
        batches.push({ baseOffset: batch.baseOffset, lastOffset: batch.lastOffset, bytes: loaded.bytes });
        endOffset = batch.lastOffset + 1;
      }
    } finally {
      records.close();
    }
  }
  return { batches, endOffset };
}

/** The data records of `batches` (control batches skipped), each with its tag. */
export function committedRecords(
  batches: readonly CommittedBatch[],
  committedOffset: number,
): CommittedRecord[] {
  const records: CommittedRecord[] = [];
  for (const batch of batches) {
    const decoded = new RecordBatch(batch.bytes);
    if (decoded.isControl) continue;
    for (const record of decoded.records()) {
      if (record.offset >= committedOffset) break;
      records.push({ offset: record.offset, tag: readRecordTag(record.value) });
    }
  }
  return records;
}

/**
 * The committed logs of every node, compared: a majority must hold the committed log up to
 * `committedOffset`, and every batch must equal, byte for byte, the batch of the same base offset
 * on the longest log (the reference), or on the first node holding it when the reference's log
 * starts later (log retention deleted what a snapshot covers). Within the reference's range, a
 * batch the reference does not have at that base offset differs too. Returns the reference and
 * each problem found (at most one per node: its first differing batch).
 */
export function compareCommittedLogs(
  logs: ReadonlyMap<number, CommittedLog>,
  committedOffset: number,
): { readonly reference: CommittedLog; readonly problems: string[] } {
  const entries = [...logs.entries()];
  if (entries.length === 0) throw new RangeError('no committed logs to compare');
  const [referenceId, reference] = entries.reduce((best, entry) =>
    entry[1].endOffset > best[1].endOffset ? entry : best,
  );
  const problems: string[] = [];
  const complete = entries.filter(([, log]) => log.endOffset >= committedOffset).length;
  if (complete <= entries.length / 2) {
    problems.push(
      `only ${complete} of ${entries.length} nodes hold the committed log up to ${committedOffset}`,
    );
  }
  const referenceStart = reference.batches[0]?.baseOffset ?? reference.endOffset;
  // The reference's batches, then, below where its log starts, the first node holding each.
  const canonical = new Map<number, { readonly nodeId: number; readonly bytes: Buffer }>(
    reference.batches.map((batch) => [batch.baseOffset, { nodeId: referenceId, bytes: batch.bytes }]),
  );
  for (const [nodeId, log] of entries) {
    for (const batch of log.batches) {
      if (batch.baseOffset < referenceStart && !canonical.has(batch.baseOffset)) {
        canonical.set(batch.baseOffset, { nodeId, bytes: batch.bytes });
      }
    }
  }
  for (const [nodeId, log] of entries) {
    for (const batch of log.batches) {
      const expected = canonical.get(batch.baseOffset);
      if (expected !== undefined && batch.bytes.equals(expected.bytes)) continue;
      const other = expected?.nodeId ?? referenceId;
      problems.push(
        `node ${nodeId}'s committed log differs from node ${other}'s at the batch of offset ${batch.baseOffset}`,
      );
      break;
    }
  }
  return { reference, problems };
}
