import { INCOMPLETE_HEADER, nextBatchSize } from './batch-framing.js';
import { CorruptRecordError } from './errors/corrupt-record-error.js';
import { RecordBatch } from './record-batch.js';

/**
 * Record batches held in memory: a zero-copy view over a Buffer of concatenated batches (a
 * Fetch response's records, a builder's output, a buffer refilled by the iterator).
 *
 * Like Kafka's MemoryRecords, iteration stops silently at a trailing partial batch (a fetch may
 * end mid-batch); a batch whose length or magic is wrong is a `CorruptRecordError`.
 */
export class MemoryRecords {
  static readonly EMPTY = new MemoryRecords(Buffer.alloc(0));

  private readonly bytes: Buffer;
  /** Position reported in errors for `bytes[0]`: the file position when these came from a file. */
  private readonly positionBase: number;

  private constructor(bytes: Buffer, positionBase = 0) {
    this.bytes = bytes;
    this.positionBase = positionBase;
  }

  /** A view over `buffer` (not copied). */
  static readableRecords(buffer: Buffer, positionBase = 0): MemoryRecords {
    return new MemoryRecords(buffer, positionBase);
  }

  /** The underlying bytes, not copied: every batch, plus any trailing partial batch. */
  buffer(): Buffer {
    return this.bytes;
  }

  /** Length of {@link MemoryRecords.buffer} in bytes, a trailing partial batch included. */
  sizeInBytes(): number {
    return this.bytes.length;
  }

  /** Complete batches in order, as zero-copy views; stops at a trailing partial batch. */
  *batches(): IterableIterator<RecordBatch> {
    let position = 0;
    for (;;) {
      const size = this.completeBatchSizeAt(position);
      if (size === 0) return;
      yield new RecordBatch(this.bytes.subarray(position, position + size), this.positionBase + position);
      position += size;
    }
  }

  /** Size of the complete batch at `position`, or 0 when none is there. */
  private completeBatchSizeAt(position: number): number {
    const size = nextBatchSize(this.bytes, position, this.bytes.length, this.positionBase);
    if (size === INCOMPLETE_HEADER || size > this.bytes.length - position) return 0;
    return size;
  }

  /** Bytes taken by the complete batches (what remains is a partial batch). */
  validBytes(): number {
    let position = 0;
    for (;;) {
      const size = this.completeBatchSizeAt(position);
      if (size === 0) return position;
      position += size;
    }
  }

  /**
   * The first complete batch, or `undefined` when there is none.
   *
   * @throws {@link CorruptRecordError} when the first batch's length or magic is invalid.
   */
  firstBatch(): RecordBatch | undefined {
    return this.batches().next().value ?? undefined;
  }

  /**
   * The last complete batch (a trailing partial batch is skipped), or `undefined` when there is
   * none. Walks every batch header, so it costs one step per batch.
   *
   * @throws {@link CorruptRecordError} when a batch's length or magic is invalid.
   */
  lastBatch(): RecordBatch | undefined {
    let last: RecordBatch | undefined;
    for (const batch of this.batches()) last = batch;
    return last;
  }

  /**
   * Checks every batch (length, magic, CRC) and that no partial batch trails them: what a log
   * checks before appending records that came from the network.
   */
  validate(): void {
    let end = 0;
    for (const batch of this.batches()) {
      batch.ensureValid();
      end = batch.position - this.positionBase + batch.sizeInBytes;
    }
    if (end !== this.bytes.length) {
      throw new CorruptRecordError(
        `${this.bytes.length - end} trailing bytes do not form a batch`,
        -1,
        this.positionBase + end,
      );
    }
  }
}
