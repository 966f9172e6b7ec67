import {
  type ApiMessageAndVersion,
  MetadataDelta,
  type MetadataImage,
  MetadataProvenance,
  MetadataRecordSerde,
} from '@kraft/metadata';
import type { Logger } from '@kraft/protocol';
import { SeededRandom } from '@kraft/raft';
import { PacedAppendLoop } from '../workload/paced-append-loop.js';
import type { WorkloadAppender } from '../workload/raft-workload-generator.js';
import type { WorkloadScheduler } from '../workload/workload-scheduler.js';
import { MetadataRecordGenerator } from './metadata-record-generator.js';

export interface MetadataWorkloadGeneratorOptions {
  readonly client: WorkloadAppender;
  readonly localNodeId: number;
  readonly throughputRecordsPerSecond: number;
  /** The image the node's MetadataLoader has applied last (`MetadataLoader.currentImage`). */
  readonly appliedImage: () => MetadataImage;
  /** Appended records not yet applied by the local loader, at most. */
  readonly maxOutstandingRecords: number;
  /** Seeds the record choices; each epoch this node leads draws from `seed + epoch`. */
  readonly seed: number;
  readonly scheduler: WorkloadScheduler;
  readonly logger: Logger;
}

/** Raft's maximum batch is 8 MiB; metadata records are small, so 512 a call keeps batches near 64 KiB. */
const MAX_RECORDS_PER_APPEND = 512;
/** How often a new leader looks whether its loader has reached its epoch. */
const CATCH_UP_POLL_MS = 5;

/** An append's records `lastOffset - count + 1 .. lastOffset`, handed to raft at `appendTimeMs`. */
interface PendingAppend {
  readonly lastOffset: number;
  readonly count: number;
  readonly appendTimeMs: number;
}

/** Latency of `count` records, from their append to their application by the local loader. */
export interface AppliedLatency {
  readonly latencyMs: number;
  readonly count: number;
}

/**
 * The leader's half of the metadata workload, as a KRaft controller writes: while this node leads,
 * it appends metadata records at `throughputRecordsPerSecond`, each valid against the image the
 * records before it make. It starts from the image its loader applied once that image reaches the
 * new epoch (the epoch's LeaderChange batch: everything earlier is then committed and applied), and
 * keeps its own working image of what it appended since, as Kafka's controller keeps its
 * uncommitted state. A lost leadership drops the working image; the next leader starts from its
 * own loader's.
 */
export class MetadataWorkloadGenerator {
  private readonly loop: PacedAppendLoop;
  private claimedEpoch: number | undefined;
  private workingImage: MetadataImage | undefined;
  private records: MetadataRecordGenerator | undefined;
  private lastAppendedOffset = -1;
  private pendingAppends: PendingAppend[] = [];
  private stopped = false;
  appendedRecords = 0;

  constructor(private readonly options: MetadataWorkloadGeneratorOptions) {
    this.loop = new PacedAppendLoop({
      throughputRecordsPerSecond: options.throughputRecordsPerSecond,
      scheduler: options.scheduler,
      maxRecordsPerAppend: MAX_RECORDS_PER_APPEND,
      appendEpoch: () => this.appendEpoch(),
      budget: () => {
        const outstanding = Math.max(0, this.lastAppendedOffset - options.appliedImage().offset());
        return options.maxOutstandingRecords - outstanding;
      },
      append: (epoch, count) => this.append(epoch, count),
      logger: options.logger,
    });
  }

  /** From raft's `Listener.handleLeaderChange`. */
  handleLeaderChange(leaderId: number | undefined, epoch: number): void {
    if (leaderId === this.options.localNodeId) {
      if (this.claimedEpoch === epoch || this.stopped) return;
      this.claimedEpoch = epoch;
      this.workingImage = undefined;
      this.records = new MetadataRecordGenerator(new SeededRandom(this.options.seed + epoch), epoch);
      this.lastAppendedOffset = -1;
      this.pendingAppends = [];
      this.options.logger.info({ epoch }, 'metadata workload: this node leads, waiting for its loader');
      this.loop.schedule(0);
    } else if (this.claimedEpoch !== undefined) {
      this.options.logger.info({ epoch, leaderId }, 'metadata workload paused: this node no longer leads');
      this.release();
    }
  }

  /**
   * The loader applied `image`: the appends it covers are done, and their latencies are returned
   * (only this leader's own, in its epoch). A generator waiting for room sends again.
   */
  handleApplied(image: MetadataImage, nowMs: number): AppliedLatency[] {
    const latencies: AppliedLatency[] = [];
    let done = 0;
    for (const pending of this.pendingAppends) {
      if (pending.lastOffset > image.offset()) break;
      latencies.push({ latencyMs: nowMs - pending.appendTimeMs, count: pending.count });
      done += 1;
    }
    if (done > 0) this.pendingAppends.splice(0, done);
    this.loop.resumeIfWaiting();
    return latencies;
  }

  /** Appends nothing more, for good (a stop request, or the server stopping). */
  stop(): void {
    this.stopped = true;
    this.release();
  }

  isStopped(): boolean {
    return this.stopped;
  }

  private release(): void {
    this.claimedEpoch = undefined;
    this.workingImage = undefined;
    this.records = undefined;
    this.pendingAppends = [];
    this.loop.cancel();
  }

  /** The claimed epoch, once the loader caught up with it; undefined while nothing is to go. */
  private appendEpoch(): number | undefined {
    const epoch = this.claimedEpoch;
    if (epoch === undefined || this.stopped) return undefined;
    if (this.workingImage === undefined && !this.catchUp(epoch)) return undefined;
    return epoch;
  }

  /** True once the loader's image reached `epoch`; the working image and the throttle start there. */
  private catchUp(epoch: number): boolean {
    const applied = this.options.appliedImage();
    if (applied.provenance.lastContainedEpoch < epoch) {
      this.loop.schedule(CATCH_UP_POLL_MS);
      return false;
    }
    this.workingImage = applied;
    this.lastAppendedOffset = applied.offset();
    this.loop.resetPacing();
    this.options.logger.info(
      { epoch, offset: applied.offset() },
      'metadata workload started: this node leads',
    );
    return true;
  }

  /**
   * Draws operations until `count` records (a topic's records are never split), replays them on
   * the working image (a record that does not fit throws: a generator bug stops the node), then
   * appends them as one batch and returns how many. The working image moves only when raft took
   * the records; its refusals are thrown to the loop, which retries.
   */
  private append(epoch: number, count: number): number {
    const generator = this.records as MetadataRecordGenerator;
    let image = this.workingImage as MetadataImage;
    const batch: ApiMessageAndVersion[] = [];
    while (batch.length < count) {
      const operation = generator.nextOperation(image);
      // One delta per operation: the next draw sees what this one changed.
      const delta = new MetadataDelta(image);
      for (const record of operation) delta.replay(record);
      image = delta.apply(MetadataProvenance.EMPTY);
      batch.push(...operation);
    }
    const values = batch.map((record) => MetadataRecordSerde.INSTANCE.serialize(record));
    const appendTimeMs = this.options.scheduler.nowMs();
    const lastOffset = this.options.client.scheduleAppend(epoch, values);
    this.workingImage = image;
    this.lastAppendedOffset = lastOffset;
    this.pendingAppends.push({ lastOffset, count: values.length, appendTimeMs });
    this.appendedRecords += values.length;
    return values.length;
  }
}
