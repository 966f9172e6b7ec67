import { type Logger, silentLogger } from '@kraft/protocol';
import type { FaultHandler } from '../fault/fault-handler.js';
import type { SnapshotsDisabled } from '../fault/snapshots-disabled.js';
import type { MetadataDelta } from '../image/metadata-delta.js';
import type { MetadataImage } from '../image/metadata-image.js';
import type { LoaderManifest, LogDeltaManifest } from '../loader/loader-manifest.js';
import type { MetadataPublisher } from '../loader/metadata-publisher.js';
import { type MetadataTime, SYSTEM_METADATA_TIME } from '../loader/metadata-time.js';
import type { SnapshotEmitResult } from './snapshot-emitter.js';

/** `metadata.log.max.record.bytes.between.snapshots`: 20 MiB. */
export const DEFAULT_MAX_BYTES_SINCE_LAST_SNAPSHOT = 20 * 1024 * 1024;
/** `metadata.log.max.snapshot.interval.ms`: one hour; 0 turns the time trigger off. */
export const DEFAULT_MAX_TIME_SINCE_LAST_SNAPSHOT_MS = 60 * 60 * 1000;

/**
 * What a `SnapshotGenerator` writes with, reports to and triggers on (Kafka's
 * `SnapshotGenerator.Builder`).
 */
export interface SnapshotGeneratorOptions {
  /**
   * Writes the snapshot (a `SnapshotEmitter`); `maybeEmit` resolves to undefined when the snapshot
   * exists already.
   */
  readonly emitter: {
    /** Writes `image` as a snapshot; resolves to undefined when a snapshot with its id exists. */
    maybeEmit(image: MetadataImage): Promise<SnapshotEmitResult | undefined>;
  };
  /** The "metadata publishing" handler: a failed snapshot is counted, never fatal. */
  readonly faultHandler: FaultHandler;
  /** Shared with the loading fault handler, which disables snapshots after a loading fault. */
  readonly snapshotsDisabled: SnapshotsDisabled;
  readonly maxBytesSinceLastSnapshot?: number;
  readonly maxTimeSinceLastSnapshotMs?: number;
  readonly time?: MetadataTime;
  readonly logger?: Logger;
}

/**
 * Kafka's `SnapshotGenerator`: a publisher that snapshots the image after 20 MiB of batches, an
 * hour, or a metadata.version change. It is a publisher, so it sees nothing before the loader
 * has caught up and published (KAFKA-13968); its counters belong to the image stream, not to
 * leadership, so a resign changes nothing (KAFKA-14300). At most one snapshot is written at a
 * time, only at a batch-aligned image (KAFKA-14619, KAFKA-17713), and never while snapshots are
 * disabled.
 */
export class SnapshotGenerator implements MetadataPublisher {
  readonly name = 'SnapshotGenerator';
  private readonly options: SnapshotGeneratorOptions;
  private readonly maxBytesSinceLastSnapshot: number;
  private readonly maxTimeSinceLastSnapshotMs: number;
  private readonly time: MetadataTime;
  private readonly logger: Logger;
  private bytesSinceLastSnapshot = 0;
  private lastSnapshotTimeMs: number;
  private inFlight: Promise<void> | undefined;
  private closed = false;

  constructor(options: SnapshotGeneratorOptions) {
    this.options = options;
    this.maxBytesSinceLastSnapshot =
      options.maxBytesSinceLastSnapshot ?? DEFAULT_MAX_BYTES_SINCE_LAST_SNAPSHOT;
    this.maxTimeSinceLastSnapshotMs =
      options.maxTimeSinceLastSnapshotMs ?? DEFAULT_MAX_TIME_SINCE_LAST_SNAPSHOT_MS;
    this.time = options.time ?? SYSTEM_METADATA_TIME;
    this.logger = (options.logger ?? silentLogger).child({ component: 'snapshot-generator' });
    this.lastSnapshotTimeMs = this.time.milliseconds();
  }

  /** Bytes of batches replayed since the last snapshot (written or loaded). */
  bytesSinceSnapshot(): number {
    return this.bytesSinceLastSnapshot;
  }

  /** Resolves once no snapshot is being written. */
  async idle(): Promise<void> {
    while (this.inFlight !== undefined) await this.inFlight;
  }

  onMetadataUpdate(delta: MetadataDelta, image: MetadataImage, manifest: LoaderManifest): void {
    if (manifest.type === 'snapshot') {
      this.resetCounters();
      return;
    }
    this.publishLogDelta(delta, image, manifest);
  }

  /** Leadership does not touch the counters: a resign must not delay the next snapshot (KAFKA-14300). */
  onControllerChange(): void {}

  close(): void {
    this.closed = true;
  }

  private publishLogDelta(delta: MetadataDelta, image: MetadataImage, manifest: LogDeltaManifest): void {
    this.bytesSinceLastSnapshot += manifest.numBytes;
    const reason = this.triggerReason(delta);
    if (reason === undefined) return;
    if (this.inFlight !== undefined) {
      this.logger.debug({ offset: image.offset(), reason }, 'not snapshotting: a snapshot is being written');
      return;
    }
    // An image ending inside a batch waits for the next aligned one, counters kept.
    if (!manifest.provenance.isOffsetBatchAligned) {
      this.logger.debug({ offset: image.offset(), reason }, 'not snapshotting at an offset inside a batch');
      return;
    }
    const disabledReason = this.options.snapshotsDisabled.disabledReason();
    if (disabledReason !== undefined || this.closed) {
      this.logger.error(
        { offset: image.offset(), reason, disabledReason },
        'not snapshotting: snapshots are disabled',
      );
      return;
    }
    this.resetCounters();
    this.logger.info(
      { offset: image.offset(), epoch: image.provenance.lastContainedEpoch, reason },
      'creating snapshot',
    );
    this.inFlight = this.emit(image).finally(() => {
      this.inFlight = undefined;
    });
  }

  private triggerReason(delta: MetadataDelta): string | undefined {
    if (this.bytesSinceLastSnapshot >= this.maxBytesSinceLastSnapshot) {
      return `replayed at least ${this.maxBytesSinceLastSnapshot} bytes`;
    }
    const sinceLastMs = this.time.milliseconds() - this.lastSnapshotTimeMs;
    if (this.maxTimeSinceLastSnapshotMs !== 0 && sinceLastMs >= this.maxTimeSinceLastSnapshotMs) {
      return `waited at least ${this.maxTimeSinceLastSnapshotMs} ms`;
    }
    if (delta.metadataVersionChange() !== undefined) return 'the metadata.version changed';
    return undefined;
  }

  private async emit(image: MetadataImage): Promise<void> {
    try {
      await this.options.emitter.maybeEmit(image);
    } catch (error) {
      this.options.faultHandler.handleFault('KRaft snapshot file generation error', error);
    }
  }

  private resetCounters(): void {
    this.bytesSinceLastSnapshot = 0;
    this.lastSnapshotTimeMs = this.time.milliseconds();
  }
}
