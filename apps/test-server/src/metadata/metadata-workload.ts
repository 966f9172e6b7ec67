import {
  imageDigest,
  type LoaderManifest,
  type MetadataDelta,
  MetadataFaultCounts,
  type MetadataImage,
  MetadataLoader,
  type MetadataPublisher,
  metadataLoadingFaultHandler,
  metadataPublishingFaultHandler,
  type SnapshotEmitResult,
  SnapshotEmitter,
  SnapshotGenerator,
  SnapshotsDisabled,
} from '@kraft/metadata';
import type { Logger } from '@kraft/protocol';
import type { LeaderAndEpoch, RaftClient } from '@kraft/raft';
import type { CommitStats } from '../stats/commit-stats.js';
import type { WorkloadAppender } from '../workload/raft-workload-generator.js';
import type { WorkloadScheduler } from '../workload/workload-scheduler.js';
import { MetadataWorkloadGenerator } from './metadata-workload-generator.js';

/** The line prefixes the perf tool reads (`apps/perf/src/workload`): a JSON object follows each. */
export const METADATA_STATUS_PREFIX = 'Metadata status: ';
export const METADATA_DIGEST_PREFIX = 'Metadata image digest: ';
/**
 * Appended records the local loader has not applied yet, at most: the loader applies what raft
 * committed, so this bounds both the uncommitted tail and the leader's memory of pending appends.
 */
const MAX_OUTSTANDING_RECORDS = 20_000;

export interface MetadataWorkloadOptions {
  readonly client: Pick<RaftClient, 'register' | 'highWatermark' | 'createSnapshot'>;
  readonly appender: WorkloadAppender;
  readonly localNodeId: number;
  readonly throughputRecordsPerSecond: number;
  readonly seed: number;
  /** `metadata.log.max.record.bytes.between.snapshots` and `metadata.log.max.snapshot.interval.ms`. */
  readonly maxBytesBetweenSnapshots: number;
  readonly maxSnapshotIntervalMs: number;
  readonly stats: CommitStats;
  readonly scheduler: WorkloadScheduler;
  readonly statusIntervalMs: number;
  readonly writeLine: (line: string) => void;
  /** A loading fault on a controller is fatal: the server stops with this error. */
  readonly terminate: (error: Error) => void;
  readonly logger: Logger;
}

/** What a node says about its image when it stops (the `Metadata image digest:` line). */
export interface MetadataImageReport {
  readonly nodeId: number;
  readonly offset: number;
  readonly epoch: number;
  readonly digest: string;
  readonly recordCount: number;
  readonly sizeInBytes: number;
  readonly snapshots: readonly {
    readonly offset: number;
    readonly epoch: number;
    readonly sizeInBytes: number;
    readonly recordCount: number;
  }[];
  readonly appendedRecords: number;
  readonly appliedRecords: number;
  readonly appliedBytes: number;
  readonly loadErrorCount: number;
  readonly applyErrorCount: number;
}

/**
 * The metadata workload of one node: a MetadataLoader over the raft client with a
 * SnapshotGenerator (small byte threshold from the config) and a publisher that counts what is
 * applied; on the leader, a MetadataWorkloadGenerator appends records valid against the image.
 * Every node prints a status line per interval and, when it stops, its image digest.
 */
export class MetadataWorkload {
  readonly loader: MetadataLoader;
  readonly generator: MetadataWorkloadGenerator;
  private readonly faultCounts = new MetadataFaultCounts();
  private readonly snapshots: SnapshotEmitResult[] = [];
  private appliedRecords = 0;
  private appliedBytes = 0;
  private lastAppliedOffset = -1;
  private timer: NodeJS.Timeout | undefined;
  private reported = false;

  constructor(private readonly options: MetadataWorkloadOptions) {
    const snapshotsDisabled = new SnapshotsDisabled();
    const faults = {
      isController: true,
      terminate: options.terminate,
      snapshotsDisabled,
      counts: this.faultCounts,
      logger: options.logger,
    };
    this.loader = new MetadataLoader({
      highWatermark: () => options.client.highWatermark(),
      faultHandler: metadataLoadingFaultHandler(faults),
      logger: options.logger,
    });
    this.generator = new MetadataWorkloadGenerator({
      client: options.appender,
      localNodeId: options.localNodeId,
      throughputRecordsPerSecond: options.throughputRecordsPerSecond,
      appliedImage: () => this.loader.currentImage(),
      maxOutstandingRecords: MAX_OUTSTANDING_RECORDS,
      seed: options.seed,
      scheduler: options.scheduler,
      logger: options.logger,
    });
    const emitter = new SnapshotEmitter({ raftClient: options.client, logger: options.logger });
    const snapshotGenerator = new SnapshotGenerator({
      // Wrapped only to remember what was written: the ids go into the final report.
      emitter: {
        maybeEmit: async (image) => {
          const result = await emitter.maybeEmit(image);
          if (result !== undefined) this.snapshots.push(result);
          return result;
        },
      },
      faultHandler: metadataPublishingFaultHandler(faults),
      snapshotsDisabled,
      maxBytesSinceLastSnapshot: options.maxBytesBetweenSnapshots,
      maxTimeSinceLastSnapshotMs: options.maxSnapshotIntervalMs,
      logger: options.logger,
    });
    this.loader.installPublishers([snapshotGenerator, this.statsPublisher()]);
  }

  /** Registers the loader, with the generator hearing its leader changes; starts the status lines. */
  start(): void {
    // One listener, so each committed batch is read and decoded once. The generator follows
    // leadership from raft itself: on an empty log the loader publishes nothing before the first
    // record, which the first leader has to write. Raft announces leadership only once the
    // loader's readers reached the epoch start; the generator then waits for the loader's image.
    const loader = this.loader;
    this.options.client.register({
      handleCommit: (reader) => loader.handleCommit(reader),
      handleLoadSnapshot: (reader) => loader.handleLoadSnapshot(reader),
      handleLeaderChange: (leader: LeaderAndEpoch) => {
        loader.handleLeaderChange(leader);
        this.generator.handleLeaderChange(leader.leaderId, leader.epoch);
      },
      beginShutdown: () => loader.beginShutdown(),
    });
    this.timer = setInterval(() => this.writeStatus(), this.options.statusIntervalMs);
    this.timer.unref();
  }

  /** The stop request (SIGUSR2): no more appends, so the quorum's images settle for comparison. */
  stopAppending(): void {
    this.options.logger.info({ nodeId: this.options.localNodeId }, 'metadata workload stopped on request');
    this.generator.stop();
    this.writeStatus();
  }

  /** Stops appending, prints the image digest once, closes the loader. */
  close(): void {
    this.generator.stop();
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (!this.reported) {
      this.reported = true;
      this.options.writeLine(`${METADATA_DIGEST_PREFIX}${JSON.stringify(this.report())}`);
    }
    this.loader.close();
  }

  report(): MetadataImageReport {
    const image = this.loader.currentImage();
    return {
      nodeId: this.options.localNodeId,
      offset: image.offset(),
      epoch: image.provenance.lastContainedEpoch,
      ...imageDigest(image),
      snapshots: this.snapshots.map((snapshot) => ({
        offset: snapshot.snapshotId.offset,
        epoch: snapshot.snapshotId.epoch,
        sizeInBytes: snapshot.sizeInBytes,
        recordCount: snapshot.recordCount,
      })),
      appendedRecords: this.generator.appendedRecords,
      appliedRecords: this.appliedRecords,
      appliedBytes: this.appliedBytes,
      loadErrorCount: this.faultCounts.loadErrorCount,
      applyErrorCount: this.faultCounts.applyErrorCount,
    };
  }

  private writeStatus(): void {
    const image = this.loader.currentImage();
    const status = {
      offset: image.offset(),
      epoch: image.provenance.lastContainedEpoch,
      snapshots: this.snapshots.length,
      appendedRecords: this.generator.appendedRecords,
      appending: !this.generator.isStopped(),
      loaderStopped: this.loader.stopped() ?? null,
    };
    this.options.writeLine(`${METADATA_STATUS_PREFIX}${JSON.stringify(status)}`);
  }

  /** Counts applied records and bytes into the stats lines; the leader's own appends carry latency. */
  private statsPublisher(): MetadataPublisher {
    return {
      name: 'MetadataWorkloadStats',
      onMetadataUpdate: (_delta: MetadataDelta, image: MetadataImage, manifest: LoaderManifest) =>
        this.recordApplied(image, manifest),
      close: () => {},
    };
  }

  private recordApplied(image: MetadataImage, manifest: LoaderManifest): void {
    const previous = this.lastAppliedOffset;
    this.lastAppliedOffset = image.offset();
    if (manifest.type !== 'log-delta') return;
    // Offsets advanced, so control records count too: a handful per election.
    const count = image.offset() - previous;
    if (count <= 0) return;
    const bytesPerRecord = manifest.numBytes / count;
    this.appliedRecords += count;
    this.appliedBytes += manifest.numBytes;
    let timed = 0;
    for (const { latencyMs, count: records } of this.generator.handleApplied(
      image,
      this.options.scheduler.nowMs(),
    )) {
      this.options.stats.recordCommits(latencyMs, records, bytesPerRecord);
      timed += records;
    }
    if (timed < count) this.options.stats.recordCommitsWithoutLatency(count - timed, bytesPerRecord);
  }
}
