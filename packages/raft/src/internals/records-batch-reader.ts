import { invariant } from '@kraft/protocol';
import { type Batch, type Records, RecordsIterator } from '@kraft/records';
import type { BatchReader } from '../raft-client.js';

/**
 * Committed batches for a listener, decoded lazily from the log's committed slice (a FileRecords
 * view, no size cap). Guard: every batch it yields ends below the high watermark it was created
 * with; anything else is a broken invariant of the log's committed read (KAFKA-20841) and stops
 * the node instead of handing uncommitted data to a state machine.
 */
export class RecordsBatchReader implements BatchReader {
  readonly baseOffset: number;
  private readonly records: Records;
  private readonly highWatermark: number;
  private readonly readBufferBytes: number | undefined;
  private readonly onClose: (reader: RecordsBatchReader) => void;
  private lastReturnedOffset: number | undefined;
  private iterated = false;
  private closed = false;

  constructor(options: {
    baseOffset: number;
    records: Records;
    highWatermark: number;
    /** The iterator's refill buffer for file records (default: RecordsIterator's 8 MiB). */
    readBufferBytes?: number;
    onClose: (reader: RecordsBatchReader) => void;
  }) {
    this.baseOffset = options.baseOffset;
    this.records = options.records;
    this.highWatermark = options.highWatermark;
    this.readBufferBytes = options.readBufferBytes;
    this.onClose = options.onClose;
  }

  *[Symbol.iterator](): Iterator<Batch> {
    invariant(!this.iterated, () => 'a BatchReader can be iterated once');
    this.iterated = true;
    const iterator = new RecordsIterator(
      this.records,
      this.readBufferBytes === undefined ? {} : { maxBatchSizeBytes: this.readBufferBytes },
    );
    for (const batch of iterator) {
      if (this.closed) return;
      invariant(
        batch.lastOffset < this.highWatermark,
        () =>
          `committed read returned batch [${batch.baseOffset}, ${batch.lastOffset}] at or above the high watermark ${this.highWatermark}`,
      );
      invariant(
        batch.lastOffset >= this.baseOffset,
        () =>
          `committed read returned batch ${batch.baseOffset}..${batch.lastOffset} before ${this.baseOffset}`,
      );
      this.lastReturnedOffset = batch.lastOffset;
      yield batch;
    }
  }

  lastOffset(): number | undefined {
    return this.lastReturnedOffset;
  }

  isClosed(): boolean {
    return this.closed;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
  }
}
