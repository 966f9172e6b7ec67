import { invariant, sizeOfVarint } from '@kraft/protocol';
import { RECORD_BATCH_OVERHEAD } from '@kraft/records';
import { BatchAccumulatorFullError } from '../errors/batch-accumulator-full-error.js';
import { NotLeaderError } from '../errors/not-leader-error.js';
import { RecordBatchTooLargeError } from '../errors/record-batch-too-large-error.js';

/** Kafka's `MAX_BATCH_SIZE_BYTES`: one batch, one fetch chunk, one snapshot batch at most. */
export const MAX_BATCH_SIZE_BYTES = 8 * 1024 * 1024;
/**
 * An open batch that reaches this size is completed and drains at the next poll, without waiting
 * out the linger time. Kafka completes a batch only at MAX_BATCH_SIZE_BYTES; on this machine
 * batches of 256 KiB-1 MiB replicate and fsync best (TARGETS §4.1), and a writer that keeps a few
 * MiB in flight never fills 8 MiB, so every batch waited the whole linger (ADR 0009).
 */
export const TARGET_BATCH_SIZE_BYTES = 1024 * 1024;
/** Kafka's `MAX_NUMBER_OF_BATCHES`: completed batches waiting for the raft thread. */
export const MAX_NUMBER_OF_BATCHES = 10;
/** Bytes of record values the accumulator may hold (Kafka's pool: 5 buffers of 8 MiB). */
export const MAX_BUFFERED_BYTES = 5 * MAX_BATCH_SIZE_BYTES;
/** The v2 batch header (record batch overhead) in bytes: `@kraft/records`' constant. */
export const RECORD_BATCH_OVERHEAD_BYTES = RECORD_BATCH_OVERHEAD;

/** A batch ready to append: offsets are assigned, bytes are not built yet. */
export interface CompletedBatch {
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly records: readonly Buffer[];
  /** The exact size of the v2 batch these records make (uncompressed). */
  readonly sizeInBytes: number;
  /** The accumulator's time when the first record of the batch was added (commit latency). */
  readonly appendTimeMs: number;
}

interface OpenBatch {
  baseOffset: number;
  records: Buffer[];
  sizeInBytes: number;
  appendTimeMs: number;
}

/**
 * The leader's write path (Kafka's `BatchAccumulator`). Offsets are assigned when records are
 * prepared, so `prepareAppend` can return the last offset at once. All records of one call go
 * into one batch (the atomicity unit). Batches drain when completed (they reached the target
 * size, or the next call's records do not fit) or when the linger time since the first record of
 * the open batch has passed.
 *
 * Bounds: at most MAX_NUMBER_OF_BATCHES completed batches and MAX_BUFFERED_BYTES of values;
 * beyond that `prepareAppend` throws BatchAccumulatorFullError (backpressure, not a failure).
 */
export class BatchAccumulator {
  readonly epoch: number;
  private readonly lingerMs: number;
  private readonly maxBatchSizeBytes: number;
  private readonly targetBatchSizeBytes: number;
  private readonly maxBufferedBytes: number;
  private nextOffset: number;
  private readonly completed: CompletedBatch[] = [];
  private current: OpenBatch | undefined;
  private bufferedBytes = 0;
  /** Set while a prepared append awaits `allowDrain`: the open batch must not drain. */
  private drainOffset: number | undefined;
  private lingerDeadlineMs: number | undefined;

  constructor(options: {
    epoch: number;
    baseOffset: number;
    lingerMs: number;
    maxBatchSizeBytes?: number;
    targetBatchSizeBytes?: number;
    maxBufferedBytes?: number;
  }) {
    this.epoch = options.epoch;
    this.nextOffset = options.baseOffset;
    this.lingerMs = options.lingerMs;
    this.maxBatchSizeBytes = options.maxBatchSizeBytes ?? MAX_BATCH_SIZE_BYTES;
    this.targetBatchSizeBytes = Math.min(
      options.targetBatchSizeBytes ?? TARGET_BATCH_SIZE_BYTES,
      this.maxBatchSizeBytes,
    );
    this.maxBufferedBytes = options.maxBufferedBytes ?? MAX_BUFFERED_BYTES;
  }

  /**
   * Adds `records` as one batch's worth and returns their last offset. With `delayDrain` the
   * batch holding them stays until `allowDrain()` (Kafka's prepare/schedule split).
   */
  append(epoch: number, records: readonly Buffer[], nowMs: number, delayDrain: boolean): number {
    if (epoch < this.epoch)
      throw new NotLeaderError(`epoch ${epoch} is older than the leader epoch ${this.epoch}`, epoch);
    invariant(
      epoch === this.epoch,
      () => `append for epoch ${epoch}, but this leader's epoch is ${this.epoch}`,
    );
    invariant(records.length > 0, () => 'an append needs at least one record');
    const valueBytes = records.reduce((sum, record) => sum + record.length, 0);
    // Sized twice at most: as a new batch's first records, and after the open batch's records.
    const sizeAsNewBatch = this.recordsSizeInBytes(records, 0);
    const openRecordCount = this.current?.records.length ?? 0;
    const sizeInOpenBatch =
      openRecordCount === 0 ? sizeAsNewBatch : this.recordsSizeInBytes(records, openRecordCount);
    if (RECORD_BATCH_OVERHEAD_BYTES + sizeAsNewBatch > this.maxBatchSizeBytes) {
      throw new RecordBatchTooLargeError(
        `${records.length} records of ${valueBytes} bytes exceed the max batch size ${this.maxBatchSizeBytes}`,
      );
    }
    if (
      this.completed.length >= MAX_NUMBER_OF_BATCHES ||
      this.bufferedBytes + valueBytes > this.maxBufferedBytes
    ) {
      throw new BatchAccumulatorFullError(
        `accumulator holds ${this.completed.length} batches and ${this.bufferedBytes} bytes; retry after the next poll`,
      );
    }
    let batch = this.current;
    let sizeInBatch = sizeInOpenBatch;
    if (batch !== undefined && batch.sizeInBytes + sizeInOpenBatch > this.maxBatchSizeBytes) {
      this.completeCurrentBatch();
      batch = undefined;
    }
    if (batch === undefined) {
      sizeInBatch = sizeAsNewBatch;
      batch = {
        baseOffset: this.nextOffset,
        records: [],
        sizeInBytes: RECORD_BATCH_OVERHEAD_BYTES,
        appendTimeMs: nowMs,
      };
      this.current = batch;
      this.lingerDeadlineMs ??= nowMs + this.lingerMs;
    }
    if (delayDrain) this.drainOffset ??= this.nextOffset;
    for (const record of records) batch.records.push(record);
    batch.sizeInBytes += sizeInBatch;
    this.bufferedBytes += valueBytes;
    this.nextOffset += records.length;
    if (batch.sizeInBytes >= this.targetBatchSizeBytes && this.drainOffset === undefined)
      this.completeCurrentBatch();
    return this.nextOffset - 1;
  }

  /** Releases a prepared append for draining. */
  allowDrain(): void {
    this.drainOffset = undefined;
  }

  /** True when a completed batch waits, or the linger time of the open batch has passed. */
  needsDrain(nowMs: number): boolean {
    return this.timeUntilDrainMs(nowMs) === 0;
  }

  timeUntilDrainMs(nowMs: number): number {
    if (this.completed.length > 0) return 0;
    if (this.current === undefined || this.drainOffset !== undefined || this.lingerDeadlineMs === undefined) {
      return Number.POSITIVE_INFINITY;
    }
    return Math.max(0, this.lingerDeadlineMs - nowMs);
  }

  /** Takes every drainable batch, in offset order. */
  drain(nowMs: number): CompletedBatch[] {
    const lingerExpired = this.lingerDeadlineMs !== undefined && nowMs >= this.lingerDeadlineMs;
    if (this.current !== undefined && this.drainOffset === undefined && lingerExpired)
      this.completeCurrentBatch();
    const drained = this.completed.splice(0, this.completed.length);
    for (const batch of drained) {
      for (const record of batch.records) this.bufferedBytes -= record.length;
    }
    // The linger clock restarts with the first record after a drain of the open batch.
    if (this.current === undefined) this.lingerDeadlineMs = undefined;
    return drained;
  }

  /** The offset the next appended record gets. */
  nextAppendOffset(): number {
    return this.nextOffset;
  }

  /** True when no record waits to be appended: nothing completed, no open batch. */
  isEmpty(): boolean {
    return this.completed.length === 0 && this.current === undefined;
  }

  /**
   * Takes the next `count` offsets for a control batch the leader appends itself (a VotersRecord,
   * KIP-853) and returns the first. Only while nothing waits here: the control batch then goes to
   * the log before any record taken after it, so the log stays in offset order.
   */
  reserveControlOffsets(count: number): number {
    invariant(count > 0, () => `a control batch needs at least one record, got ${count}`);
    invariant(
      this.isEmpty(),
      () => `control offsets reserved at ${this.nextOffset} while records wait to be appended`,
    );
    const baseOffset = this.nextOffset;
    this.nextOffset += count;
    return baseOffset;
  }

  /**
   * Completes the open batch before its linger time ends, so that a control batch the leader must
   * append now (a VotersRecord, KIP-853) can follow it in offset order; Kafka's accumulator
   * completes its open batch for the same reason. False, changing nothing, while a prepared
   * append holds the open batch back.
   */
  completeOpenBatch(): boolean {
    if (this.drainOffset !== undefined) return false;
    this.completeCurrentBatch();
    return true;
  }

  /** Drops everything not drained (the node stopped leading); returns how many records were dropped. */
  close(): number {
    const dropped =
      this.completed.reduce((sum, batch) => sum + batch.records.length, 0) +
      (this.current?.records.length ?? 0);
    this.completed.length = 0;
    this.current = undefined;
    this.bufferedBytes = 0;
    return dropped;
  }

  private completeCurrentBatch(): void {
    const batch = this.current;
    if (batch === undefined) return;
    this.completed.push({
      baseOffset: batch.baseOffset,
      lastOffset: batch.baseOffset + batch.records.length - 1,
      records: batch.records,
      sizeInBytes: batch.sizeInBytes,
      appendTimeMs: batch.appendTimeMs,
    });
    this.current = undefined;
  }

  /** Exact v2 size of `records` written from offset delta `firstDelta` (no key, no headers, delta timestamp 0). */
  private recordsSizeInBytes(records: readonly Buffer[], firstDelta: number): number {
    let size = 0;
    for (let index = 0; index < records.length; index += 1) {
      size += recordSizeInBytes(firstDelta + index, (records[index] as Buffer).length);
    }
    return size;
  }
}

/** One v2 record: attributes, timestamp delta 0, offset delta, null key, value, no headers. */
export function recordSizeInBytes(offsetDelta: number, valueSizeInBytes: number): number {
  const body = 1 + 1 + sizeOfVarint(offsetDelta) + 1 + sizeOfVarint(valueSizeInBytes) + valueSizeInBytes + 1;
  return sizeOfVarint(body) + body;
}
