import { invariant } from '@kraft/protocol';
import type { Batch } from './batch.js';
import { type BatchDecodeOptions, decodeBatch } from './batch-decoder.js';
import { INCOMPLETE_HEADER, nextBatchSize } from './batch-framing.js';
import { DEFAULT_MAX_DECOMPRESSED_SIZE_BYTES } from './compression/compression-type.js';
import { FileRecords } from './file-records.js';
import type { MemoryRecords } from './memory-records.js';
import { RecordBatch } from './record-batch.js';
import { DEFAULT_MAX_BATCH_SIZE_BYTES, HEADER_SIZE_UP_TO_MAGIC } from './record-batch-layout.js';

/**
 * Records a {@link RecordsIterator} can read (Kafka's `Records` interface): batches held in
 * memory or a slice of a log file.
 */
export type Records = MemoryRecords | FileRecords;

/** How a {@link RecordsIterator} reads and checks batches; every field has a default. */
export interface RecordsIteratorOptions {
  /** Size of the reused read buffer for FileRecords (Kafka: MAX_BATCH_SIZE_BYTES, 8 MiB). */
  readonly maxBatchSizeBytes?: number;
  /** Check every batch's CRC before decoding it (default true, as KRaft's listener reads do). */
  readonly validateCrc?: boolean;
  /** Bound on the inflated records of a compressed batch, in bytes; default `DEFAULT_MAX_DECOMPRESSED_SIZE_BYTES`. */
  readonly maxDecompressedSizeBytes?: number;
  /**
   * Decode data batches' records (default true). False, for a reader that follows control records
   * only (KIP-853's voter set): a data batch comes back with its header fields and no records,
   * without its CRC checked or its records decoded; control batches are checked and decoded as
   * always.
   */
  readonly decodeDataRecords?: boolean;
}

/**
 * Decodes batches from MemoryRecords or FileRecords, synchronously, one at a time (Kafka's raft
 * RecordsIterator).
 *
 * For FileRecords it refills one reused buffer of `min(maxBatchSizeBytes, sizeInBytes())`
 * through `readInto` (which never reads past the end of the records: KAFKA-20841), keeps a
 * partial batch across refills, and reads a batch larger than the buffer into a buffer of exactly
 * its size. It stops at the end of the records: a trailing partial batch is not returned. The
 * size is captured once, so appends to a growing file during iteration are not seen. Memory is
 * bounded by the buffer plus one batch.
 *
 * Each batch yielded from a file owns its bytes (copied out of the reused buffer), so records
 * stay valid after later refills. A corrupt batch raises `CorruptRecordError` with its offset and
 * file position.
 *
 * @example
 * ```ts
 * for (const batch of new RecordsIterator(records)) {
 *   if (batch.isControl) continue;
 *   for (const record of batch.records) apply(record.offset, record.value);
 * }
 * ```
 */
export class RecordsIterator implements IterableIterator<Batch> {
  private readonly decodeOptions: BatchDecodeOptions;
  private readonly source: BatchSource;

  constructor(records: Records, options: RecordsIteratorOptions = {}) {
    const maxBatchSizeBytes = options.maxBatchSizeBytes ?? DEFAULT_MAX_BATCH_SIZE_BYTES;
    invariant(
      Number.isSafeInteger(maxBatchSizeBytes) && maxBatchSizeBytes > 0,
      () => `invalid maxBatchSizeBytes ${maxBatchSizeBytes}`,
    );
    this.decodeOptions = {
      validateCrc: options.validateCrc ?? true,
      maxDecompressedSizeBytes: options.maxDecompressedSizeBytes ?? DEFAULT_MAX_DECOMPRESSED_SIZE_BYTES,
      decodeDataRecords: options.decodeDataRecords ?? true,
    };
    this.source =
      records instanceof FileRecords
        ? new FileBatchSource(records, Math.max(maxBatchSizeBytes, HEADER_SIZE_UP_TO_MAGIC))
        : new MemoryBatchSource(records);
  }

  /**
   * Reads and decodes the next complete batch; `done` once the records (as sized when the
   * iterator was made) are used up or only a partial batch is left.
   *
   * @throws {@link CorruptRecordError} when a batch's framing, CRC (unless `validateCrc` is
   * false) or records are bad, or a control record does not decode.
   * @throws {@link UnknownControlTypeError} for a control record of a type KRaft never writes.
   * @throws {@link RecordBatchTooLargeError} when a compressed batch inflates beyond the bound.
   * @throws {@link FileSystemError} when reading FileRecords fails.
   */
  next(): IteratorResult<Batch, undefined> {
    const batch = this.source.nextBatch();
    if (batch === undefined) return { done: true, value: undefined };
    return { done: false, value: decodeBatch(batch, this.decodeOptions) };
  }

  /** The iterator itself, so it can drive a `for...of` loop (once: it does not restart). */
  [Symbol.iterator](): this {
    return this;
  }

  /** Bytes the iterator holds for reading (the reused buffer); for tests and metrics. */
  bufferSizeInBytes(): number {
    return this.source.bufferSizeInBytes();
  }
}

interface BatchSource {
  nextBatch(): RecordBatch | undefined;
  bufferSizeInBytes(): number;
}

class MemoryBatchSource implements BatchSource {
  private readonly batches: Iterator<RecordBatch>;

  constructor(records: MemoryRecords) {
    this.batches = records.batches();
  }

  nextBatch(): RecordBatch | undefined {
    const result = this.batches.next();
    return result.done ? undefined : result.value;
  }

  bufferSizeInBytes(): number {
    return 0;
  }
}

class FileBatchSource implements BatchSource {
  private readonly records: FileRecords;
  /** Captured once: iteration never goes past it. */
  private readonly totalSizeInBytes: number;
  private readonly buffer: Buffer;
  /** Bytes of the records read so far (relative to their start): the next readInto position. */
  private bytesRead = 0;
  /** Unconsumed bytes are buffer[dataStart, dataEnd). */
  private dataStart = 0;
  private dataEnd = 0;

  constructor(records: FileRecords, maxBatchSizeBytes: number) {
    this.records = records;
    this.totalSizeInBytes = records.sizeInBytes();
    this.buffer = Buffer.allocUnsafe(Math.min(maxBatchSizeBytes, this.totalSizeInBytes));
  }

  bufferSizeInBytes(): number {
    return this.buffer.length;
  }

  /** Relative position of buffer[dataStart]: where the next batch starts. */
  private nextBatchPosition(): number {
    return this.bytesRead - (this.dataEnd - this.dataStart);
  }

  nextBatch(): RecordBatch | undefined {
    for (;;) {
      const available = this.dataEnd - this.dataStart;
      const batchPosition = this.nextBatchPosition();
      const size = nextBatchSize(
        this.buffer,
        this.dataStart,
        this.dataEnd,
        this.records.start + batchPosition - this.dataStart,
      );
      if (size !== INCOMPLETE_HEADER) {
        if (size <= available) return this.takeFromBuffer(size, batchPosition);
        // A batch that runs past the end of the records is a trailing partial batch: never returned.
        if (size > this.totalSizeInBytes - batchPosition) return undefined;
        if (size > this.buffer.length) return this.readOversizedBatch(size, batchPosition);
      }
      if (!this.refill()) return undefined;
    }
  }

  /** Copies the batch out, so the reused buffer can be refilled while the batch is still in use. */
  private takeFromBuffer(size: number, batchPosition: number): RecordBatch {
    const bytes = Buffer.allocUnsafe(size);
    this.buffer.copy(bytes, 0, this.dataStart, this.dataStart + size);
    this.dataStart += size;
    return new RecordBatch(bytes, this.records.start + batchPosition);
  }

  /** A batch bigger than the buffer gets a buffer of exactly its size, read to its end. */
  private readOversizedBatch(size: number, batchPosition: number): RecordBatch {
    const bytes = Buffer.allocUnsafe(size);
    const leftover = this.dataEnd - this.dataStart;
    this.buffer.copy(bytes, 0, this.dataStart, this.dataEnd);
    const count = this.records.readInto(bytes.subarray(leftover), this.bytesRead);
    invariant(
      count === size - leftover,
      () => `read ${count} of ${size - leftover} bytes of an oversized batch`,
    );
    this.bytesRead += count;
    this.dataStart = 0;
    this.dataEnd = 0;
    return new RecordBatch(bytes, this.records.start + batchPosition);
  }

  /** Moves the partial batch to the front and reads more; false when the records are exhausted. */
  private refill(): boolean {
    const remaining = this.totalSizeInBytes - this.bytesRead;
    if (remaining === 0) return false;
    if (this.dataStart > 0) {
      this.buffer.copy(this.buffer, 0, this.dataStart, this.dataEnd);
      this.dataEnd -= this.dataStart;
      this.dataStart = 0;
    }
    const space = Math.min(this.buffer.length - this.dataEnd, remaining);
    invariant(
      space > 0,
      () => `iterator buffer of ${this.buffer.length} bytes is full without a complete batch`,
    );
    const count = this.records.readInto(
      this.buffer.subarray(this.dataEnd, this.dataEnd + space),
      this.bytesRead,
    );
    this.bytesRead += count;
    this.dataEnd += count;
    return count > 0;
  }
}
