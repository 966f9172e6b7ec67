import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseSegmentFileName, segmentFileStem } from '@kraft/log';
import { FileRecords } from '@kraft/records';
import { PARTITION_DIRECTORY } from './local-quorum.js';

/** SHA-256 over a node's log batches, as they are on disk, from its first segment up to an offset. */
export interface LogPrefixDigest {
  /** The first segment's base offset: the log start, as the files say. */
  readonly startOffset: number;
  /** The offset after the last batch hashed (at most the requested end; less if the log is shorter). */
  readonly endOffset: number;
  readonly bytes: number;
  readonly digest: string;
}

/** The base offsets of a node's segments, oldest first. */
export function segmentBaseOffsets(logDirectory: string): number[] {
  return readdirSync(join(logDirectory, PARTITION_DIRECTORY))
    .map((name) => parseSegmentFileName(name))
    .filter((offset): offset is number => offset !== undefined)
    .sort((left, right) => left - right);
}

/**
 * Hashes every whole batch whose base offset is below `endOffset`, each validated (CRC) as it is
 * read, one batch in memory at a time. Followers append the leader's batches unchanged, so two
 * nodes holding the same committed prefix give the same digest for the same `endOffset`.
 */
export function logPrefixDigest(logDirectory: string, endOffset: number): LogPrefixDigest {
  const partition = join(logDirectory, PARTITION_DIRECTORY);
  const baseOffsets = segmentBaseOffsets(logDirectory);
  const hash = createHash('sha256');
  const startOffset = baseOffsets[0] ?? 0;
  let reached = startOffset;
  let bytes = 0;
  for (const baseOffset of baseOffsets) {
    if (baseOffset >= endOffset) break;
    const records = FileRecords.open(join(partition, `${segmentFileStem(baseOffset)}.log`), {
      mutable: false,
    });
    try {
      for (const batch of records.batches()) {
        if (batch.baseOffset >= endOffset) break;
        const loaded = batch.load();
        loaded.ensureValid();
        hash.update(loaded.bytes);
        bytes += loaded.bytes.length;
        reached = batch.lastOffset + 1;
      }
    } finally {
      records.close();
    }
  }
  return { startOffset, endOffset: reached, bytes, digest: hash.digest('hex') };
}

/** The bytes of a node's segment files: what a recovery scan after kill -9 reads. */
export function segmentBytes(logDirectory: string): number {
  const partition = join(logDirectory, PARTITION_DIRECTORY);
  let total = 0;
  for (const baseOffset of segmentBaseOffsets(logDirectory)) {
    total += statSync(join(partition, `${segmentFileStem(baseOffset)}.log`)).size;
  }
  return total;
}
