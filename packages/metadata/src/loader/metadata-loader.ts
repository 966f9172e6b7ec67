import { type Logger, silentLogger } from '@kraft/protocol';
import {
  type BatchReader,
  type LeaderAndEpoch,
  type Listener,
  type SnapshotReader,
  UNKNOWN_LEADER_AND_EPOCH,
} from '@kraft/raft';
import { RecordAboveHighWatermarkError } from '../errors/record-above-high-watermark-error.js';
import type { FaultHandler } from '../fault/fault-handler.js';
import { ImageWriterOptions } from '../image/image-writer-options.js';
import { MetadataDelta } from '../image/metadata-delta.js';
import { MetadataImage } from '../image/metadata-image.js';
import { MetadataProvenance } from '../image/metadata-provenance.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import { MetadataRecordSerde } from '../serde/metadata-record-serde.js';
import type { RecordSerde } from '../serde/record-serde.js';
import type { LoaderManifest, SnapshotManifest } from './loader-manifest.js';
import { MetadataBatchLoader } from './metadata-batch-loader.js';
import { EventLoopEventQueue, type MetadataEventQueue } from './metadata-event-queue.js';
import { MetadataLoaderMetrics } from './metadata-loader-metrics.js';
import type { MetadataPublisher } from './metadata-publisher.js';
import { type MetadataTime, SYSTEM_METADATA_TIME } from './metadata-time.js';

/** While catching up, new publishers are retried this often (Kafka's 100 ms). */
export const INITIALIZE_NEW_PUBLISHERS_RETRY_MS = 100;

export interface MetadataLoaderOptions {
  /** The raft client's high watermark (`RaftClient.highWatermark`). */
  readonly highWatermark: () => number | undefined;
  /** The "metadata loading" handler: fatal on a controller (see `metadataLoadingFaultHandler`). */
  readonly faultHandler: FaultHandler;
  readonly eventQueue?: MetadataEventQueue;
  readonly time?: MetadataTime;
  readonly serde?: RecordSerde<ApiMessageAndVersion>;
  readonly logger?: Logger;
}

/**
 * Kafka's `MetadataLoader`: a raft listener that turns committed batches and snapshots into
 * `MetadataImage`s and hands them to its publishers. Raft callbacks only enqueue; the work runs
 * on the event queue, in order.
 *
 * - Nothing is published until the loader has caught up with the first high watermark it saw and
 *   has replayed at least one record (KAFKA-14857); publishers installed meanwhile are retried
 *   every 100 ms, so an idle log still gets them installed.
 * - A batch at or above the high watermark its reader was created with (read when raft hands the
 *   reader over, on the turn that created it) is never applied: the loader reports a fatal fault
 *   and stops. A snapshot ending above the high watermark is refused the same way.
 */
export class MetadataLoader implements Listener {
  readonly metrics = new MetadataLoaderMetrics();
  private readonly options: MetadataLoaderOptions;
  private readonly queue: MetadataEventQueue;
  private readonly time: MetadataTime;
  private readonly serde: RecordSerde<ApiMessageAndVersion>;
  private readonly logger: Logger;
  private readonly batchLoader: MetadataBatchLoader;
  private readonly publishers = new Map<string, MetadataPublisher>();
  private readonly uninitializedPublishers = new Map<string, MetadataPublisher>();
  private image = MetadataImage.EMPTY;
  private leaderAndEpoch: LeaderAndEpoch = UNKNOWN_LEADER_AND_EPOCH;
  private catchUpHighWatermark: number | undefined;
  private catchingUp = true;
  private initializeScheduled = false;
  private initializeRetryScheduled = false;
  private stoppedReason: string | undefined;
  private closed = false;

  constructor(options: MetadataLoaderOptions) {
    this.options = options;
    this.queue = options.eventQueue ?? new EventLoopEventQueue();
    this.time = options.time ?? SYSTEM_METADATA_TIME;
    this.serde = options.serde ?? MetadataRecordSerde.INSTANCE;
    this.logger = (options.logger ?? silentLogger).child({ component: 'metadata-loader' });
    this.batchLoader = new MetadataBatchLoader(MetadataImage.EMPTY, {
      serde: this.serde,
      faultHandler: options.faultHandler,
      time: this.time,
      update: (delta, image, manifest) => this.maybePublishMetadata(delta, image, manifest),
    });
  }

  /** The latest image loaded (published or not). */
  currentImage(): MetadataImage {
    return this.image;
  }

  /** Why the loader stopped loading, if it did: a guard tripped. */
  stopped(): string | undefined {
    return this.stoppedReason;
  }

  /** Publishers are installed once the loader has caught up, each with the whole image. */
  installPublishers(publishers: readonly MetadataPublisher[]): void {
    this.queue.append(() => {
      for (const publisher of publishers) {
        if (this.publishers.has(publisher.name) || this.uninitializedPublishers.has(publisher.name)) {
          this.options.faultHandler.handleFault(`a publisher named ${publisher.name} is already installed`);
          continue;
        }
        this.uninitializedPublishers.set(publisher.name, publisher);
      }
      this.scheduleInitializeNewPublishers(0);
    });
  }

  removeAndClosePublisher(publisher: MetadataPublisher): void {
    this.queue.append(() => {
      const removed =
        this.publishers.delete(publisher.name) || this.uninitializedPublishers.delete(publisher.name);
      if (removed) this.closePublisher(publisher);
    });
  }

  handleCommit(reader: BatchReader): void {
    const highWatermark = this.options.highWatermark();
    this.noteHighWatermark(highWatermark);
    this.queue.append(() => this.loadCommit(reader, highWatermark));
  }

  handleLoadSnapshot(reader: SnapshotReader): void {
    const highWatermark = this.options.highWatermark();
    this.noteHighWatermark(highWatermark);
    this.queue.append(() => this.loadSnapshot(reader, highWatermark));
  }

  handleLeaderChange(leader: LeaderAndEpoch): void {
    this.queue.append(() => {
      this.leaderAndEpoch = leader;
      for (const publisher of this.publishers.values()) {
        this.callPublisher(publisher, 'onControllerChange', () => publisher.onControllerChange?.(leader));
      }
    });
  }

  beginShutdown(): void {
    this.queue.append(() => this.close());
  }

  /** Closes every publisher and the queue; nothing runs after. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const publisher of [...this.uninitializedPublishers.values(), ...this.publishers.values()]) {
      this.closePublisher(publisher);
    }
    this.publishers.clear();
    this.uninitializedPublishers.clear();
    this.queue.close();
  }

  private loadCommit(reader: BatchReader, highWatermark: number | undefined): void {
    if (this.stoppedReason !== undefined || this.closed) return;
    let closeReader = true;
    try {
      for (const batch of reader) {
        if (highWatermark === undefined || batch.lastOffset >= highWatermark) {
          closeReader = false;
          this.stop(
            new RecordAboveHighWatermarkError(
              `committed batch [${batch.baseOffset}, ${batch.lastOffset}] is at or above the high watermark ${highWatermark ?? 'unknown'} its reader was created with`,
              batch.lastOffset,
              highWatermark,
            ),
          );
          return;
        }
        this.metrics.batchProcessingTime.record(this.batchLoader.loadBatch(batch, this.leaderAndEpoch));
      }
      this.batchLoader.maybeFlushBatches(this.leaderAndEpoch, true);
    } catch (error) {
      this.options.faultHandler.handleFault(
        `Unhandled fault in MetadataLoader#handleCommit. Last image offset was ${this.image.offset()}`,
        error,
      );
    } finally {
      // A reader that delivered a batch above the high watermark stays open: closing it would
      // move this listener's raft offset past the high watermark.
      if (closeReader) reader.close();
    }
  }

  private loadSnapshot(reader: SnapshotReader, highWatermark: number | undefined): void {
    if (this.stoppedReason !== undefined || this.closed) return;
    let closeReader = true;
    try {
      if (highWatermark === undefined || reader.snapshotId.offset > highWatermark) {
        closeReader = false;
        this.stop(
          new RecordAboveHighWatermarkError(
            `snapshot ending at ${reader.snapshotId.offset} is above the high watermark ${highWatermark ?? 'unknown'}`,
            reader.lastContainedLogOffset,
            highWatermark,
          ),
        );
        return;
      }
      const startNs = this.time.nanoseconds();
      // On the empty image: whatever the snapshot does not hold is gone (KAFKA-14894, KAFKA-13357).
      const delta = new MetadataDelta(MetadataImage.EMPTY);
      let index = 0;
      for (const batch of reader) {
        if (batch.isControl) continue;
        for (const record of batch.records) {
          this.replaySnapshotRecord(delta, record.value, index, reader);
          index += 1;
        }
      }
      // The header's provenance, not the last batch's.
      const provenance = new MetadataProvenance(
        reader.lastContainedLogOffset,
        reader.lastContainedLogEpoch,
        reader.lastContainedLogTimestamp(),
        true,
      );
      const image = delta.apply(provenance);
      this.batchLoader.resetToImage(image);
      this.metrics.handleLoadSnapshotCount += 1;
      const manifest: SnapshotManifest = {
        type: 'snapshot',
        provenance,
        elapsedNs: this.time.nanoseconds() - startNs,
      };
      this.logger.info(
        { offset: provenance.lastContainedOffset, epoch: provenance.lastContainedEpoch },
        'loaded snapshot',
      );
      this.maybePublishMetadata(delta, image, manifest);
    } catch (error) {
      this.options.faultHandler.handleFault(
        `Unhandled fault in MetadataLoader#handleLoadSnapshot. Snapshot offset was ${reader.lastContainedLogOffset}`,
        error,
      );
    } finally {
      if (closeReader) reader.close();
    }
  }

  private replaySnapshotRecord(
    delta: MetadataDelta,
    value: Buffer | null,
    index: number,
    reader: SnapshotReader,
  ): void {
    try {
      if (value === null) throw new TypeError('a metadata record has no value');
      delta.replay(this.serde.read(value));
    } catch (error) {
      this.options.faultHandler.handleFault(
        `Error loading metadata log record ${index} in snapshot at offset ${reader.lastContainedLogOffset}`,
        error,
      );
    }
  }

  private maybePublishMetadata(delta: MetadataDelta, image: MetadataImage, manifest: LoaderManifest): void {
    this.image = image;
    this.metrics.lastAppliedRecordOffset = image.provenance.lastContainedOffset;
    this.metrics.lastAppliedRecordTimestampMs = image.provenance.lastContainedLogTimeMs;
    this.metrics.currentMetadataVersion = image.features.metadataVersion();
    if (this.stillNeedToCatchUp(image.offset())) return;
    const startNs = this.time.nanoseconds();
    for (const publisher of this.publishers.values()) {
      this.callPublisher(publisher, 'onMetadataUpdate', () =>
        publisher.onMetadataUpdate(delta, image, manifest),
      );
    }
    this.metrics.publishLatency.record(this.time.nanoseconds() - startNs);
    if (this.uninitializedPublishers.size > 0) this.scheduleInitializeNewPublishers(0);
  }

  /** The catch-up gate: the first known high watermark reached, and at least one record seen. */
  private stillNeedToCatchUp(offset: number): boolean {
    if (!this.catchingUp) return false;
    this.noteHighWatermark(this.options.highWatermark());
    const target = this.catchUpHighWatermark;
    if (target === undefined || offset + 1 < target || !this.batchLoader.hasSeenRecord()) return true;
    this.logger.info({ offset, highWatermark: target }, 'metadata loader caught up');
    this.catchingUp = false;
    return false;
  }

  private noteHighWatermark(highWatermark: number | undefined): void {
    this.catchUpHighWatermark ??= highWatermark;
  }

  /** At most one immediate and one retry pending; catching up runs the immediate one at once. */
  private scheduleInitializeNewPublishers(delayMs: number): void {
    if (delayMs === 0) {
      if (this.initializeScheduled) return;
      this.initializeScheduled = true;
      this.queue.append(() => {
        this.initializeScheduled = false;
        this.initializeNewPublishers();
      });
      return;
    }
    if (this.initializeRetryScheduled) return;
    this.initializeRetryScheduled = true;
    this.queue.scheduleDeferred(delayMs, () => {
      this.initializeRetryScheduled = false;
      this.initializeNewPublishers();
    });
  }

  private initializeNewPublishers(): void {
    if (this.uninitializedPublishers.size === 0 || this.stoppedReason !== undefined || this.closed) return;
    if (this.stillNeedToCatchUp(this.image.offset())) {
      this.scheduleInitializeNewPublishers(INITIALIZE_NEW_PUBLISHERS_RETRY_MS);
      return;
    }
    const startNs = this.time.nanoseconds();
    const delta = deltaFromEmpty(this.image);
    const manifest: SnapshotManifest = {
      type: 'snapshot',
      provenance: this.image.provenance,
      elapsedNs: this.time.nanoseconds() - startNs,
    };
    for (const [name, publisher] of [...this.uninitializedPublishers]) {
      this.uninitializedPublishers.delete(name);
      this.publishers.set(name, publisher);
      this.callPublisher(publisher, 'install', () => publisher.install?.());
      this.callPublisher(publisher, 'onMetadataUpdate', () =>
        publisher.onMetadataUpdate(delta, this.image, manifest),
      );
      this.callPublisher(publisher, 'onControllerChange', () =>
        publisher.onControllerChange?.(this.leaderAndEpoch),
      );
    }
  }

  private callPublisher(publisher: MetadataPublisher, what: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      this.options.faultHandler.handleFault(
        `Unhandled error in ${what} of publisher ${publisher.name} at image offset ${this.image.offset()}`,
        error,
      );
    }
  }

  private closePublisher(publisher: MetadataPublisher): void {
    this.callPublisher(publisher, 'close', () => publisher.close());
  }

  private stop(error: RecordAboveHighWatermarkError): void {
    this.stoppedReason = error.message;
    this.logger.fatal(
      { err: error, offset: error.offset, highWatermark: error.highWatermark },
      'metadata loader stopped',
    );
    this.options.faultHandler.handleFault(error.message, error);
  }
}

/** A delta from the empty image to `image`: what a newly installed publisher is given. */
export function deltaFromEmpty(image: MetadataImage): MetadataDelta {
  const delta = new MetadataDelta(MetadataImage.EMPTY);
  // In memory, nothing needs to fit an older metadata.version: the highest versions lose nothing.
  for (const record of image.records(ImageWriterOptions.LATEST)) delta.replay(record);
  return delta;
}
