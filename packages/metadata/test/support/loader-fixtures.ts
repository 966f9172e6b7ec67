/** Hand-driven stand-ins for what raft gives a loader, and recorders for what a loader does. */
import type { BatchReader, LeaderAndEpoch, OffsetAndEpoch, SnapshotReader } from '@kraft/raft';
import type { Batch, KafkaRecord } from '@kraft/records';
import type { MetadataFaultError } from '../../src/errors/metadata-fault-error.js';
import { MetadataFaultError as FaultError } from '../../src/errors/metadata-fault-error.js';
import type { FaultHandler } from '../../src/fault/fault-handler.js';
import type { MetadataDelta } from '../../src/image/metadata-delta.js';
import type { MetadataImage } from '../../src/image/metadata-image.js';
import type { LoaderManifest } from '../../src/loader/loader-manifest.js';
import type { MetadataEventQueue } from '../../src/loader/metadata-event-queue.js';
import type { MetadataPublisher } from '../../src/loader/metadata-publisher.js';
import type { MetadataTime } from '../../src/loader/metadata-time.js';
import type { ApiMessageAndVersion } from '../../src/serde/api-message-and-version.js';
import { MetadataRecordSerde } from '../../src/serde/metadata-record-serde.js';

/** Runs events only when told to; deferred events wait for `runDeferred`. */
export class ManualEventQueue implements MetadataEventQueue {
  readonly events: (() => void)[] = [];
  readonly deferred: { delayMs: number; event: () => void }[] = [];
  closed = false;

  append(event: () => void): void {
    if (!this.closed) this.events.push(event);
  }

  scheduleDeferred(delayMs: number, event: () => void): void {
    if (!this.closed) this.deferred.push({ delayMs, event });
  }

  close(): void {
    this.closed = true;
    this.events.length = 0;
    this.deferred.length = 0;
  }

  runAll(): void {
    for (let event = this.events.shift(); event !== undefined; event = this.events.shift()) event();
  }

  /** Moves every deferred event to the queue (their delay has passed) and runs everything. */
  runDeferred(): void {
    for (const { event } of this.deferred.splice(0)) this.append(event);
    this.runAll();
  }
}

export class ManualTime implements MetadataTime {
  nowMs = 0;

  nanoseconds(): number {
    return this.nowMs * 1_000_000;
  }

  milliseconds(): number {
    return this.nowMs;
  }
}

/** A data batch of `records` starting at `baseOffset`, as raft hands it to a listener. */
export function dataBatch(
  baseOffset: number,
  records: readonly ApiMessageAndVersion[],
  options: { epoch?: number; appendTimestamp?: number } = {},
): Batch {
  const values = records.map((record) => MetadataRecordSerde.INSTANCE.serialize(record));
  const kafkaRecords: KafkaRecord[] = values.map((value, index) => ({
    offset: baseOffset + index,
    timestamp: options.appendTimestamp ?? 0,
    key: null,
    value,
    headers: [],
  }));
  return {
    baseOffset,
    lastOffset: baseOffset + records.length - 1,
    epoch: options.epoch ?? 1,
    appendTimestamp: options.appendTimestamp ?? 0,
    sizeInBytes: 61 + values.reduce((sum, value) => sum + value.length + 8, 0),
    isControl: false,
    position: 0,
    records: kafkaRecords,
    controlRecords: [],
  };
}

/** A control batch of `count` offsets (its records are not metadata records). */
export function controlBatch(baseOffset: number, count: number, epoch = 1): Batch {
  return {
    baseOffset,
    lastOffset: baseOffset + count - 1,
    epoch,
    appendTimestamp: 0,
    sizeInBytes: 80,
    isControl: true,
    position: 0,
    records: [],
    controlRecords: [],
  };
}

export class FakeBatchReader implements BatchReader {
  readonly baseOffset: number;
  private readonly batches: readonly Batch[];
  private last: number | undefined;
  closed = false;

  constructor(batches: readonly Batch[]) {
    this.batches = batches;
    this.baseOffset = batches[0]?.baseOffset ?? 0;
  }

  *[Symbol.iterator](): Iterator<Batch> {
    for (const batch of this.batches) {
      this.last = batch.lastOffset;
      yield batch;
    }
  }

  lastOffset(): number | undefined {
    return this.last;
  }

  close(): void {
    this.closed = true;
  }
}

export class FakeSnapshotReader implements SnapshotReader {
  readonly snapshotId: OffsetAndEpoch;
  readonly lastContainedLogOffset: number;
  readonly lastContainedLogEpoch: number;
  private readonly timestampMs: number;
  private readonly batches: readonly Batch[];
  closed = false;

  constructor(snapshotId: OffsetAndEpoch, timestampMs: number, batches: readonly Batch[]) {
    this.snapshotId = snapshotId;
    this.lastContainedLogOffset = snapshotId.offset - 1;
    this.lastContainedLogEpoch = snapshotId.epoch;
    this.timestampMs = timestampMs;
    this.batches = batches;
  }

  [Symbol.iterator](): Iterator<Batch> {
    return this.batches[Symbol.iterator]();
  }

  lastContainedLogTimestamp(): number {
    return this.timestampMs;
  }

  close(): void {
    this.closed = true;
  }
}

export interface PublishedUpdate {
  readonly delta: MetadataDelta;
  readonly image: MetadataImage;
  readonly manifest: LoaderManifest;
}

export class RecordingPublisher implements MetadataPublisher {
  readonly name: string;
  readonly updates: PublishedUpdate[] = [];
  readonly controllerChanges: LeaderAndEpoch[] = [];
  installed = 0;
  closed = 0;

  constructor(name = 'recording') {
    this.name = name;
  }

  install(): void {
    this.installed += 1;
  }

  onMetadataUpdate(delta: MetadataDelta, image: MetadataImage, manifest: LoaderManifest): void {
    this.updates.push({ delta, image, manifest });
  }

  onControllerChange(leader: LeaderAndEpoch): void {
    this.controllerChanges.push(leader);
  }

  close(): void {
    this.closed += 1;
  }

  lastImage(): MetadataImage | undefined {
    return this.updates.at(-1)?.image;
  }
}

export class RecordingFaultHandler implements FaultHandler {
  readonly faults: { message: string; cause: unknown }[] = [];

  handleFault(message: string, cause?: unknown): MetadataFaultError {
    this.faults.push({ message, cause });
    return new FaultError(message, { cause });
  }
}
