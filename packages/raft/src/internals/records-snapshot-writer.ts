import { invariant } from '@kraft/protocol';
import {
  buildControlBatch,
  buildSnapshotFooterBatch,
  type ControlRecordMessage,
  ControlRecordType,
  MemoryRecordsBuilder,
} from '@kraft/records';
import type { OffsetAndEpoch, RawSnapshotWriter } from '../ports/raft-log.js';
import type { SnapshotWriter } from '../raft-client.js';
import { MAX_BATCH_SIZE_BYTES } from './batch-accumulator.js';

/**
 * A typed snapshot writer over a RawSnapshotWriter: the SnapshotHeader control batch first
 * (written on creation; under kraft.version 1 it also holds the KRaftVersionRecord and the
 * VotersRecord in force at the snapshot's end, as Kafka's writer does), then the caller's records in batches of at most the max batch size
 * (offsets from 0 inside the snapshot), then the SnapshotFooter on `freeze`.
 */
export class RecordsSnapshotWriter implements SnapshotWriter {
  readonly snapshotId: OffsetAndEpoch;
  readonly lastContainedLogOffset: number;
  readonly lastContainedLogEpoch: number;
  private readonly raw: RawSnapshotWriter;
  private readonly timestamp: number;
  private readonly maxBatchSizeBytes: number;
  private readonly onFrozen: ((sizeInBytes: number) => void) | undefined;
  private nextOffset = 0;
  private frozen = false;
  private closed = false;

  constructor(
    raw: RawSnapshotWriter,
    lastContainedLogTimestamp: number,
    maxBatchSizeBytes = MAX_BATCH_SIZE_BYTES,
    /** Told the snapshot's size once it is frozen (the client's snapshot metrics). */
    onFrozen?: (sizeInBytes: number) => void,
    /** Control records after the header in its batch (kraft.version 1: KRaftVersion, Voters). */
    headerControlRecords: readonly ControlRecordMessage[] = [],
  ) {
    this.raw = raw;
    this.onFrozen = onFrozen;
    this.snapshotId = raw.snapshotId;
    this.lastContainedLogOffset = raw.snapshotId.offset - 1;
    this.lastContainedLogEpoch = raw.snapshotId.epoch;
    this.timestamp = lastContainedLogTimestamp;
    this.maxBatchSizeBytes = maxBatchSizeBytes;
    const header: ControlRecordMessage = {
      type: ControlRecordType.SNAPSHOT_HEADER,
      message: { version: 0, lastContainedLogTimestamp: BigInt(lastContainedLogTimestamp) },
    };
    raw.append(buildControlBatch(this.controlBatchOptions(), [header, ...headerControlRecords]));
    this.nextOffset += 1 + headerControlRecords.length;
  }

  isFrozen(): boolean {
    return this.frozen;
  }

  append(records: readonly Buffer[]): void {
    this.ensureWritable('append');
    let builder = this.newBuilder();
    for (const value of records) {
      const record = { timestamp: this.timestamp, value };
      if (!builder.tryAppend(record)) {
        invariant(
          builder.numberOfRecords() > 0,
          () => `a ${value.length}-byte record exceeds the snapshot batch size`,
        );
        this.flushBuilder(builder);
        builder = this.newBuilder();
        invariant(
          builder.tryAppend(record),
          () => `a ${value.length}-byte record exceeds the snapshot batch size`,
        );
      }
    }
    if (builder.numberOfRecords() > 0) this.flushBuilder(builder);
  }

  freeze(): number {
    this.ensureWritable('freeze');
    this.raw.append(buildSnapshotFooterBatch(this.controlBatchOptions(), { version: 0 }));
    this.nextOffset += 1;
    this.raw.freeze();
    this.frozen = true;
    const sizeInBytes = this.raw.sizeInBytes();
    this.onFrozen?.(sizeInBytes);
    return sizeInBytes;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.raw.close();
  }

  private ensureWritable(operation: string): void {
    invariant(
      !this.frozen && !this.closed,
      () =>
        `cannot ${operation} snapshot ${this.snapshotId.offset}-${this.snapshotId.epoch}: it is ${this.frozen ? 'frozen' : 'closed'}`,
    );
  }

  private controlBatchOptions(): { baseOffset: number; partitionLeaderEpoch: number; timestamp: number } {
    return {
      baseOffset: this.nextOffset,
      partitionLeaderEpoch: this.snapshotId.epoch,
      timestamp: this.timestamp,
    };
  }

  private newBuilder(): MemoryRecordsBuilder {
    return new MemoryRecordsBuilder({
      baseOffset: this.nextOffset,
      partitionLeaderEpoch: this.snapshotId.epoch,
      maxBatchSizeBytes: this.maxBatchSizeBytes,
    });
  }

  private flushBuilder(builder: MemoryRecordsBuilder): void {
    const count = builder.numberOfRecords();
    this.raw.append(builder.build());
    this.nextOffset += count;
  }
}
