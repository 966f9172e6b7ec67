import { type Logger, silentLogger } from '@kraft/protocol';
import { MAX_BATCH_SIZE_BYTES, type OffsetAndEpoch, type RaftClient } from '@kraft/raft';
import { RECORD_BATCH_OVERHEAD } from '@kraft/records';
import type { MetadataImage } from '../image/metadata-image.js';
import { type MetadataTime, SYSTEM_METADATA_TIME } from '../loader/metadata-time.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import { MetadataRecordSerde } from '../serde/metadata-record-serde.js';
import type { RecordSerde } from '../serde/record-serde.js';

/** Kafka's `SnapshotEmitter` writes 1024 records per batch. */
export const DEFAULT_SNAPSHOT_BATCH_RECORDS = 1024;
/** Work between two yields to the event loop, at most. */
export const DEFAULT_MAX_STEP_MS = 5;
/** A record's framing inside a batch at most: length, attributes, deltas, key, value length, headers. */
const MAX_RECORD_OVERHEAD_BYTES = 28;
/** How many records go by between two looks at the clock. */
const RECORDS_BETWEEN_CLOCK_CHECKS = 32;

export interface SnapshotEmitterOptions {
  readonly raftClient: Pick<RaftClient, 'createSnapshot'>;
  readonly serde?: RecordSerde<ApiMessageAndVersion>;
  readonly time?: MetadataTime;
  readonly logger?: Logger;
  readonly batchRecords?: number;
  /** A batch's size at most, framing included (raft's maximum batch size by default). */
  readonly maxBatchSizeBytes?: number;
  readonly maxStepMs?: number;
  /** Gives the event loop a turn (a `setImmediate` by default). */
  readonly yieldToEventLoop?: () => Promise<void>;
}

export interface SnapshotEmitResult {
  readonly snapshotId: OffsetAndEpoch;
  readonly sizeInBytes: number;
  readonly recordCount: number;
  readonly batchCount: number;
  /** The longest stretch the emitter ran without yielding, in milliseconds. */
  readonly longestStepMs: number;
}

/** Kafka's `SnapshotEmitter` gauges. */
export class SnapshotEmitterMetrics {
  latestSnapshotGeneratedBytes = 0;
  /** The log time of the last record in the latest snapshot, -1 before the first. */
  latestSnapshotGeneratedLogTimeMs = -1;
  snapshotsGenerated = 0;
}

const yieldWithSetImmediate = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Writes an image as a snapshot through raft's `createSnapshot` (Kafka's `SnapshotEmitter`). The
 * snapshot id is the image's provenance, so it never ends past what the loader applied. Records
 * go out in batches of at most 1024 records and below the maximum batch size, and the emitter
 * yields to the event loop whenever it has worked `maxStepMs`, so a large image never blocks a
 * raft poll for longer than that. The image is immutable: nothing changes under it meanwhile.
 */
export class SnapshotEmitter {
  readonly metrics = new SnapshotEmitterMetrics();
  private readonly options: SnapshotEmitterOptions;
  private readonly serde: RecordSerde<ApiMessageAndVersion>;
  private readonly time: MetadataTime;
  private readonly logger: Logger;
  private readonly batchRecords: number;
  private readonly batchValueBudgetBytes: number;
  private readonly maxStepMs: number;
  private readonly yieldToEventLoop: () => Promise<void>;

  constructor(options: SnapshotEmitterOptions) {
    this.options = options;
    this.serde = options.serde ?? MetadataRecordSerde.INSTANCE;
    this.time = options.time ?? SYSTEM_METADATA_TIME;
    this.logger = (options.logger ?? silentLogger).child({ component: 'snapshot-emitter' });
    this.batchRecords = options.batchRecords ?? DEFAULT_SNAPSHOT_BATCH_RECORDS;
    this.batchValueBudgetBytes = (options.maxBatchSizeBytes ?? MAX_BATCH_SIZE_BYTES) - RECORD_BATCH_OVERHEAD;
    this.maxStepMs = options.maxStepMs ?? DEFAULT_MAX_STEP_MS;
    this.yieldToEventLoop = options.yieldToEventLoop ?? yieldWithSetImmediate;
  }

  /** Writes `image` as a snapshot; undefined if a snapshot with its id exists already. */
  async maybeEmit(image: MetadataImage): Promise<SnapshotEmitResult | undefined> {
    const provenance = image.provenance;
    const snapshotId = provenance.snapshotId();
    const writer = this.options.raftClient.createSnapshot(snapshotId, provenance.lastContainedLogTimeMs);
    if (writer === undefined) {
      this.logger.error(
        { offset: snapshotId.offset, epoch: snapshotId.epoch },
        'not writing a snapshot that exists',
      );
      return undefined;
    }
    try {
      const written = await this.writeRecords(image, (values) => writer.append(values));
      const sizeInBytes = writer.freeze();
      this.metrics.latestSnapshotGeneratedBytes = sizeInBytes;
      this.metrics.latestSnapshotGeneratedLogTimeMs = provenance.lastContainedLogTimeMs;
      this.metrics.snapshotsGenerated += 1;
      this.logger.info(
        { offset: snapshotId.offset, epoch: snapshotId.epoch, sizeInBytes, records: written.recordCount },
        'wrote snapshot',
      );
      return { snapshotId, sizeInBytes, ...written };
    } finally {
      writer.close();
    }
  }

  private async writeRecords(
    image: MetadataImage,
    append: (values: Buffer[]) => void,
  ): Promise<Omit<SnapshotEmitResult, 'snapshotId' | 'sizeInBytes'>> {
    let batch: Buffer[] = [];
    let batchBytes = 0;
    let recordCount = 0;
    let batchCount = 0;
    let stepStartMs = this.time.milliseconds();
    let longestStepMs = 0;
    const flush = (): void => {
      append(batch);
      batchCount += 1;
      batch = [];
      batchBytes = 0;
    };
    for (const record of image.records()) {
      const value = this.serde.write(record);
      const recordBytes = value.length + MAX_RECORD_OVERHEAD_BYTES;
      let flushed = false;
      if (
        batch.length >= this.batchRecords ||
        (batch.length > 0 && batchBytes + recordBytes > this.batchValueBudgetBytes)
      ) {
        flush();
        flushed = true;
      }
      batch.push(value);
      batchBytes += recordBytes;
      recordCount += 1;
      // A flush builds and writes a whole batch: the clock is read after it as well.
      if (!flushed && recordCount % RECORDS_BETWEEN_CLOCK_CHECKS !== 0) continue;
      const stepMs = this.time.milliseconds() - stepStartMs;
      if (stepMs < this.maxStepMs) continue;
      longestStepMs = Math.max(longestStepMs, stepMs);
      await this.yieldToEventLoop();
      stepStartMs = this.time.milliseconds();
    }
    if (batch.length > 0) flush();
    longestStepMs = Math.max(longestStepMs, this.time.milliseconds() - stepStartMs);
    return { recordCount, batchCount, longestStepMs };
  }
}
