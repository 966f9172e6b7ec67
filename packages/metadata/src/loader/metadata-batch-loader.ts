import type { LeaderAndEpoch, RecordSerde } from '@kraft/raft';
import type { Batch } from '@kraft/records';
import type { FaultHandler } from '../fault/fault-handler.js';
import { MetadataDelta } from '../image/metadata-delta.js';
import type { MetadataImage } from '../image/metadata-image.js';
import { MetadataProvenance } from '../image/metadata-provenance.js';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import type { LogDeltaManifest } from './loader-manifest.js';
import type { MetadataTime } from './metadata-time.js';

/** What a `MetadataBatchLoader` decodes with, reports faults to, times with and publishes to. */
export interface MetadataBatchLoaderOptions {
  readonly serde: RecordSerde<ApiMessageAndVersion>;
  readonly faultHandler: FaultHandler;
  readonly time: MetadataTime;
  /** Receives each applied delta, the image it made and what it covered. */
  readonly update: (delta: MetadataDelta, image: MetadataImage, manifest: LogDeltaManifest) => void;
}

/**
 * Replays committed batches into a delta and applies it at flush points (Kafka's
 * `MetadataBatchLoader`). A metadata transaction (BeginTransactionRecord … End or Abort) is never
 * published half done: records before its Begin are flushed first (a delta that may end inside a
 * batch, so not batch aligned), its records wait in the delta until End, and an Abort drops them.
 */
export class MetadataBatchLoader {
  private readonly options: MetadataBatchLoaderOptions;
  private image!: MetadataImage;
  private delta!: MetadataDelta;
  private inTransaction = false;
  private lastOffset = -1;
  private lastEpoch = -1;
  private lastContainedLogTimeMs = -1;
  private numBatches = 0;
  private numBytes = 0;
  private elapsedNs = 0;
  private seenRecord = false;

  constructor(image: MetadataImage, options: MetadataBatchLoaderOptions) {
    this.options = options;
    this.resetToImage(image);
  }

  /** Whether any record outside transaction markers was replayed (part of the catch-up gate). */
  hasSeenRecord(): boolean {
    return this.seenRecord;
  }

  /**
   * Starts over on `image` (a loaded snapshot, or the last good image after a fault): an open
   * transaction and the counters are dropped.
   */
  resetToImage(image: MetadataImage): void {
    this.image = image;
    this.delta = new MetadataDelta(image);
    this.inTransaction = false;
    this.lastOffset = image.provenance.lastContainedOffset;
    this.lastEpoch = image.provenance.lastContainedEpoch;
    this.lastContainedLogTimeMs = image.provenance.lastContainedLogTimeMs;
    this.numBatches = 0;
    this.numBytes = 0;
    this.elapsedNs = 0;
    this.seenRecord ||= !image.isEmpty();
  }

  /** Replays one committed batch; control batches only move the offset. Returns its replay time. */
  loadBatch(batch: Batch, leaderAndEpoch: LeaderAndEpoch): number {
    const startNs = this.options.time.nanoseconds();
    this.lastEpoch = batch.epoch;
    this.lastContainedLogTimeMs = batch.appendTimestamp;
    if (!batch.isControl) {
      let indexWithinBatch = 0;
      for (const record of batch.records) {
        this.loadRecord(record.value, record.offset, indexWithinBatch, leaderAndEpoch);
        indexWithinBatch += 1;
      }
    }
    this.lastOffset = batch.lastOffset;
    this.numBatches += 1;
    this.numBytes += batch.sizeInBytes;
    const elapsedNs = this.options.time.nanoseconds() - startNs;
    this.elapsedNs += elapsedNs;
    return elapsedNs;
  }

  /** Publishes what was loaded unless a transaction is still open. */
  maybeFlushBatches(leaderAndEpoch: LeaderAndEpoch, isOffsetBatchAligned: boolean): void {
    if (this.inTransaction) return;
    if (this.numBatches === 0 && this.lastOffset === this.image.provenance.lastContainedOffset) return;
    this.applyDeltaAndUpdate(leaderAndEpoch, isOffsetBatchAligned);
  }

  private loadRecord(
    value: Buffer | null,
    offset: number,
    indexWithinBatch: number,
    leader: LeaderAndEpoch,
  ): void {
    let record: ApiMessageAndVersion;
    try {
      if (value === null) throw new TypeError('a metadata record has no value');
      record = this.options.serde.read(value);
    } catch (error) {
      this.options.faultHandler.handleFault(`Error loading metadata log record from offset ${offset}`, error);
      return;
    }
    switch (record.recordType) {
      case MetadataRecordType.BEGIN_TRANSACTION_RECORD:
        this.beginTransaction(offset, indexWithinBatch, leader);
        break;
      case MetadataRecordType.END_TRANSACTION_RECORD:
        this.endTransaction(offset, false);
        break;
      case MetadataRecordType.ABORT_TRANSACTION_RECORD:
        this.endTransaction(offset, true);
        break;
      default:
        this.seenRecord = true;
        try {
          this.delta.replay(record);
        } catch (error) {
          this.options.faultHandler.handleFault(
            `Error loading metadata log record from offset ${offset}`,
            error,
          );
        }
    }
  }

  private beginTransaction(offset: number, indexWithinBatch: number, leader: LeaderAndEpoch): void {
    if (this.inTransaction) {
      this.options.faultHandler.handleFault(
        `BeginTransactionRecord at offset ${offset} inside a transaction`,
      );
      return;
    }
    // What came before the transaction is published on its own, ending just before the Begin.
    if (indexWithinBatch > 0 || this.numBatches > 0) {
      this.lastOffset = offset - 1;
      this.applyDeltaAndUpdate(leader, indexWithinBatch === 0);
    }
    this.inTransaction = true;
  }

  private endTransaction(offset: number, aborted: boolean): void {
    if (!this.inTransaction) {
      const name = aborted ? 'AbortTransactionRecord' : 'EndTransactionRecord';
      this.options.faultHandler.handleFault(`${name} at offset ${offset} outside a transaction`);
      return;
    }
    this.inTransaction = false;
    // The transaction's records are all in this delta (its Begin flushed what came before).
    if (aborted) this.delta = new MetadataDelta(this.image);
  }

  private applyDeltaAndUpdate(leaderAndEpoch: LeaderAndEpoch, isOffsetBatchAligned: boolean): void {
    const provenance = new MetadataProvenance(
      this.lastOffset,
      this.lastEpoch,
      this.lastContainedLogTimeMs,
      isOffsetBatchAligned,
    );
    const manifest: LogDeltaManifest = {
      type: 'log-delta',
      provenance,
      leaderAndEpoch,
      numBatches: this.numBatches,
      elapsedNs: this.elapsedNs,
      numBytes: this.numBytes,
    };
    const delta = this.delta;
    let image: MetadataImage;
    try {
      image = delta.apply(provenance);
    } catch (error) {
      this.options.faultHandler.handleFault(
        `Error generating new metadata image from metadata delta between offset ${this.image.offset()} and ${this.lastOffset}`,
        error,
      );
      this.resetToImage(this.image);
      return;
    }
    const seenRecord = this.seenRecord;
    this.resetToImage(image);
    this.seenRecord = seenRecord || this.seenRecord;
    this.options.update(delta, image, manifest);
  }
}
