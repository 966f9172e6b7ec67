import { InvalidConfigurationError } from '@kraft/protocol';
import { RecordBatchTooLargeError } from '../errors/record-batch-too-large-error.js';
import { MAX_BATCH_SIZE_BYTES, TARGET_BATCH_SIZE_BYTES } from '../internals/batch-accumulator.js';
import type { SnapshotWriter } from '../raft-client.js';
import type { DecodedSnapshotReader } from './raft-node-listener.js';
import type {
  LogPosition,
  StateMachineSnapshotReader,
  StateMachineSnapshotWriter,
} from './raft-node-options.js';
import type { RecordSerde } from './record-serde.js';

/**
 * Serializes `values` into one buffer (sized and bounded before it is allocated) and returns one
 * view of it per value: one allocation per batch, not per value. `knownSizes` are the values'
 * `recordSize`s when the caller measured them already (a serde may serialize to measure).
 */
export function encodeValues<T>(
  serde: RecordSerde<T>,
  values: readonly T[],
  knownSizes?: readonly number[],
): Buffer[] {
  // A batch holds at least one record; an empty one would reach the accumulator's invariant.
  if (!Array.isArray(values) || values.length === 0) {
    throw new InvalidConfigurationError('RaftNode: values must be a non-empty array');
  }
  const sizes = new Array<number>(values.length);
  let totalBytes = 0;
  for (let index = 0; index < values.length; index += 1) {
    const size =
      knownSizes === undefined ? serde.recordSize(values[index] as T) : (knownSizes[index] as number);
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new InvalidConfigurationError(
        `RaftNode: serde.recordSize returned ${String(size)}, not a byte count`,
      );
    }
    sizes[index] = size;
    totalBytes += size;
    if (totalBytes > MAX_BATCH_SIZE_BYTES) {
      throw new RecordBatchTooLargeError(
        `${values.length} values need more than the max batch size of ${MAX_BATCH_SIZE_BYTES} bytes`,
      );
    }
  }
  const buffer = Buffer.allocUnsafe(totalBytes);
  const records = new Array<Buffer>(values.length);
  let offset = 0;
  for (let index = 0; index < values.length; index += 1) {
    const size = sizes[index] as number;
    const written = serde.write(values[index] as T, buffer, offset);
    if (written !== size) {
      throw new InvalidConfigurationError(
        `RaftNode: serde.write wrote ${String(written)} bytes where recordSize said ${size}`,
      );
    }
    records[index] = buffer.subarray(offset, offset + size);
    offset += size;
  }
  return records;
}

/**
 * The state machine's view of a snapshot under construction: values are gathered into batches of
 * about TARGET_BATCH_SIZE_BYTES (the size the leader's own batches aim for) before they reach the
 * raw writer, so a large state never makes one oversized batch.
 */
export class ValueSnapshotWriter<T> implements StateMachineSnapshotWriter<T> {
  readonly lastContained: LogPosition;
  private readonly serde: RecordSerde<T>;
  private readonly writer: SnapshotWriter;
  private pending: T[] = [];
  /** The `recordSize` of each pending value, measured once in `append`. */
  private pendingSizes: number[] = [];
  private pendingBytes = 0;
  private valueCount = 0;

  constructor(serde: RecordSerde<T>, writer: SnapshotWriter) {
    this.serde = serde;
    this.writer = writer;
    this.lastContained = { offset: writer.lastContainedLogOffset, epoch: writer.lastContainedLogEpoch };
  }

  append(values: readonly T[]): void {
    for (const value of values) {
      const size = this.serde.recordSize(value);
      if (this.pending.length > 0 && this.pendingBytes + size > TARGET_BATCH_SIZE_BYTES) this.flush();
      this.pending.push(value);
      this.pendingSizes.push(size);
      this.pendingBytes += size;
      this.valueCount += 1;
    }
  }

  /** Writes what is gathered; returns the number of values the snapshot holds. */
  finish(): number {
    this.flush();
    return this.valueCount;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.writer.append(encodeValues(this.serde, this.pending, this.pendingSizes));
    this.pending = [];
    this.pendingSizes = [];
    this.pendingBytes = 0;
  }
}

/** A snapshot's values, taken from its decoded batches (control batches, the header and footer, skipped). */
export class ValueSnapshotReader<T> implements StateMachineSnapshotReader<T> {
  readonly lastContained: LogPosition;
  private readonly reader: DecodedSnapshotReader<T>;

  constructor(reader: DecodedSnapshotReader<T>) {
    this.reader = reader;
    this.lastContained = { offset: reader.lastContainedLogOffset, epoch: reader.lastContainedLogEpoch };
  }

  *[Symbol.iterator](): Iterator<T> {
    for (const batch of this.reader) yield* batch.records;
  }
}
