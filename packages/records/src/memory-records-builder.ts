import { invariant } from '@kraft/protocol';
import { compressRecords } from './compression/codecs.js';
import { type CompressionType, compressionTypeId } from './compression/compression-type.js';
import { crc32c } from './crc32c.js';
import { RecordBatchTooLargeError } from './errors/record-batch-too-large-error.js';
import { NO_HEADERS, type RecordHeader } from './kafka-record.js';
import { MemoryRecords } from './memory-records.js';
import type { TimestampType } from './record-batch.js';
import {
  ATTRIBUTES_OFFSET,
  BASE_OFFSET_OFFSET,
  BASE_SEQUENCE_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  CONTROL_FLAG_MASK,
  CRC_OFFSET,
  CURRENT_MAGIC,
  DEFAULT_MAX_BATCH_SIZE_BYTES,
  DELETE_HORIZON_FLAG_MASK,
  LAST_OFFSET_DELTA_OFFSET,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  NO_PARTITION_LEADER_EPOCH,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  NO_SEQUENCE,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_BATCH_OVERHEAD,
  RECORDS_COUNT_OFFSET,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
} from './record-batch-layout.js';
import { writeSafeInt64 } from './safe-int64.js';
import { sizeOfUnsignedVarint, writeUnsignedVarint } from './varint-writer.js';

/**
 * The batch header a {@link MemoryRecordsBuilder} writes. Defaults give what KRaft writes: offset
 * 0, no leader epoch (-1), no compression, CreateTime, a data batch, producer fields -1.
 * The constructor throws `IllegalStateError` (from `@kraft/protocol`) for a base offset that is
 * not a non-negative safe integer, or for LogAppendTime without `logAppendTime`.
 */
export interface MemoryRecordsBuilderOptions {
  /** Offset of the first record; the others follow one by one. */
  readonly baseOffset?: number;
  /** The writing leader's epoch (Kafka's `partitionLeaderEpoch`); default -1. */
  readonly partitionLeaderEpoch?: number;
  /** Codec for the records section; default `none`. zstd needs `initializeZstd()` first. */
  readonly compression?: CompressionType;
  /** Codec level for gzip and zstd; the codec's default otherwise. */
  readonly compressionLevel?: number;
  /** Bound on the batch (uncompressed records plus the 61-byte header); default 8 MiB. */
  readonly maxBatchSizeBytes?: number;
  /** Default CreateTime. */
  readonly timestampType?: TimestampType;
  /** The batch's max timestamp (and every record's timestamp) when timestampType is LogAppendTime. */
  readonly logAppendTime?: number;
  /** Marks a control batch (attribute bit 5): LeaderChange, snapshot header/footer, voters. */
  readonly isControl?: boolean;
  /** Attribute bit 4; KRaft never writes transactional batches. */
  readonly isTransactional?: boolean;
  /** Idempotent producer fields, -1 (none) by default as in every KRaft batch. */
  readonly producerId?: bigint;
  /** See `producerId`; default -1. */
  readonly producerEpoch?: number;
  /** See `producerId`; default -1. */
  readonly baseSequence?: number;
  /** Stored in baseTimestamp with attribute bit 6 (KIP-534 compaction); deltas stay relative to it. */
  readonly deleteHorizonMs?: number;
}

/** A record to append: offsets are assigned by the builder. */
export interface RecordInput {
  readonly timestamp: number;
  readonly key?: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers?: readonly RecordHeader[];
}

const INITIAL_CAPACITY_BYTES = 1024;

type ResolvedOptions = Required<
  Omit<MemoryRecordsBuilderOptions, 'logAppendTime' | 'deleteHorizonMs' | 'compressionLevel'>
> & {
  readonly logAppendTime: number | undefined;
  readonly deleteHorizonMs: number | undefined;
  readonly compressionLevel: number | undefined;
};

/**
 * Builds one record batch v2 from records (Kafka's MemoryRecordsBuilder / raft BatchBuilder).
 * Records are encoded as they are appended, straight into one growing buffer behind a reserved
 * header; `build()` writes the header and a single CRC pass, compressing first if asked.
 *
 * The byte limit counts the header and the uncompressed records, so a compressed batch never
 * exceeds it either. What KRaft writes: CreateTime, no compression, producer fields -1, data
 * records with a null key, timestampDelta 0 and no headers.
 *
 * @example
 * ```ts
 * const builder = new MemoryRecordsBuilder({ baseOffset: 42, partitionLeaderEpoch: 3 });
 * builder.append({ timestamp: Date.now(), value: Buffer.from('record') }); // returns 42
 * const records = builder.build(); // one batch, offsets 42..42
 * ```
 */
export class MemoryRecordsBuilder {
  private readonly options: ResolvedOptions;
  private buffer = Buffer.allocUnsafe(INITIAL_CAPACITY_BYTES);
  private writePosition = RECORD_BATCH_OVERHEAD;
  private recordCount = 0;
  private firstTimestamp = 0;
  private maxTimestamp = Number.NEGATIVE_INFINITY;
  private built = false;

  constructor(options: MemoryRecordsBuilderOptions = {}) {
    this.options = {
      baseOffset: options.baseOffset ?? 0,
      partitionLeaderEpoch: options.partitionLeaderEpoch ?? NO_PARTITION_LEADER_EPOCH,
      compression: options.compression ?? 'none',
      maxBatchSizeBytes: options.maxBatchSizeBytes ?? DEFAULT_MAX_BATCH_SIZE_BYTES,
      timestampType: options.timestampType ?? 'CreateTime',
      isControl: options.isControl ?? false,
      isTransactional: options.isTransactional ?? false,
      producerId: options.producerId ?? NO_PRODUCER_ID,
      producerEpoch: options.producerEpoch ?? NO_PRODUCER_EPOCH,
      baseSequence: options.baseSequence ?? NO_SEQUENCE,
      logAppendTime: options.logAppendTime,
      deleteHorizonMs: options.deleteHorizonMs,
      compressionLevel: options.compressionLevel,
    };
    invariant(
      Number.isSafeInteger(this.options.baseOffset) && this.options.baseOffset >= 0,
      () => `invalid base offset ${this.options.baseOffset}`,
    );
    invariant(
      this.options.timestampType === 'CreateTime' || Number.isSafeInteger(this.options.logAppendTime),
      () => 'LogAppendTime batches need logAppendTime',
    );
  }

  /** Records appended so far. */
  numberOfRecords(): number {
    return this.recordCount;
  }

  /** Header plus uncompressed records: what the byte limit is checked against. */
  estimatedSizeInBytes(): number {
    return this.writePosition;
  }

  /** Bytes `record` would add to the batch. */
  bytesNeeded(record: RecordInput): number {
    const body = this.recordBodySize(record);
    return sizeOfUnsignedVarint(zigzag(body)) + body;
  }

  /** Whether `record` fits within `maxBatchSizeBytes`. */
  hasRoomFor(record: RecordInput): boolean {
    return !this.built && this.writePosition + this.bytesNeeded(record) <= this.options.maxBatchSizeBytes;
  }

  /** Appends if there is room; returns false (appending nothing) otherwise. */
  tryAppend(record: RecordInput): boolean {
    if (!this.hasRoomFor(record)) return false;
    this.append(record);
    return true;
  }

  /** Appends `record` at the next offset and returns that offset; throws when it does not fit. */
  append(record: RecordInput): number {
    invariant(!this.built, () => 'the batch was already built');
    invariant(Number.isSafeInteger(record.timestamp), () => `invalid timestamp ${record.timestamp}`);
    const body = this.recordBodySize(record);
    const size = sizeOfUnsignedVarint(zigzag(body)) + body;
    if (this.writePosition + size > this.options.maxBatchSizeBytes) {
      throw new RecordBatchTooLargeError(
        `a record of ${size} bytes does not fit in a batch of ${this.writePosition} bytes limited to ${this.options.maxBatchSizeBytes}`,
        this.writePosition + size,
        this.options.maxBatchSizeBytes,
      );
    }
    if (this.recordCount === 0) this.firstTimestamp = record.timestamp;
    this.maxTimestamp = Math.max(this.maxTimestamp, record.timestamp);
    this.ensureCapacity(size);
    this.writeRecord(record, body);
    this.recordCount += 1;
    return this.options.baseOffset + this.recordCount - 1;
  }

  private baseTimestamp(): number {
    return this.options.deleteHorizonMs ?? this.firstTimestamp;
  }

  /** The batch's base timestamp once `record` is in it: the delete horizon, else the first timestamp. */
  private baseTimestampWith(record: RecordInput): number {
    return this.options.deleteHorizonMs ?? (this.recordCount === 0 ? record.timestamp : this.firstTimestamp);
  }

  private recordBodySize(record: RecordInput): number {
    const timestampDelta = record.timestamp - this.baseTimestampWith(record);
    // Zigzag doubles the delta; past 2^52 the double would no longer be exact.
    invariant(Math.abs(timestampDelta) < 2 ** 52, () => `timestamp delta ${timestampDelta} is out of range`);
    let size =
      1 + sizeOfUnsignedVarint(zigzag(timestampDelta)) + sizeOfUnsignedVarint(zigzag(this.recordCount));
    size += sizeOfNullableBytes(record.key ?? null) + sizeOfNullableBytes(record.value);
    const headers = record.headers ?? NO_HEADERS;
    size += sizeOfUnsignedVarint(zigzag(headers.length));
    for (const header of headers) {
      const keySize = Buffer.byteLength(header.key, 'utf8');
      size += sizeOfUnsignedVarint(zigzag(keySize)) + keySize + sizeOfNullableBytes(header.value);
    }
    return size;
  }

  private ensureCapacity(extraBytes: number): void {
    const needed = this.writePosition + extraBytes;
    if (needed <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
    this.buffer.copy(grown, 0, 0, this.writePosition);
    this.buffer = grown;
  }

  private writeRecord(record: RecordInput, body: number): void {
    const buffer = this.buffer;
    let position = writeUnsignedVarint(buffer, this.writePosition, zigzag(body));
    buffer[position] = 0; // attributes
    position += 1;
    position = writeUnsignedVarint(buffer, position, zigzag(record.timestamp - this.baseTimestamp()));
    position = writeUnsignedVarint(buffer, position, zigzag(this.recordCount));
    position = writeNullableBytes(buffer, position, record.key ?? null);
    position = writeNullableBytes(buffer, position, record.value);
    const headers = record.headers ?? NO_HEADERS;
    position = writeUnsignedVarint(buffer, position, zigzag(headers.length));
    for (const header of headers) {
      const keySize = Buffer.byteLength(header.key, 'utf8');
      position = writeUnsignedVarint(buffer, position, zigzag(keySize));
      position += buffer.write(header.key, position, keySize, 'utf8');
      position = writeNullableBytes(buffer, position, header.value);
    }
    this.writePosition = position;
  }

  /** Writes the header and CRC and returns the batch; an empty builder gives empty records. */
  build(): MemoryRecords {
    invariant(!this.built, () => 'the batch was already built');
    this.built = true;
    if (this.recordCount === 0) return MemoryRecords.EMPTY;
    let batch: Buffer;
    if (this.options.compression === 'none') {
      batch = this.buffer.subarray(0, this.writePosition);
    } else {
      const compressed = compressRecords(
        this.options.compression,
        this.buffer.subarray(RECORD_BATCH_OVERHEAD, this.writePosition),
        this.options.compressionLevel,
      );
      batch = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD + compressed.length);
      compressed.copy(batch, RECORD_BATCH_OVERHEAD);
    }
    this.writeHeader(batch);
    return MemoryRecords.readableRecords(batch);
  }

  private attributes(): number {
    let attributes = compressionTypeId(this.options.compression);
    if (this.options.timestampType === 'LogAppendTime') attributes |= TIMESTAMP_TYPE_MASK;
    if (this.options.isTransactional) attributes |= TRANSACTIONAL_FLAG_MASK;
    if (this.options.isControl) attributes |= CONTROL_FLAG_MASK;
    if (this.options.deleteHorizonMs !== undefined) attributes |= DELETE_HORIZON_FLAG_MASK;
    return attributes;
  }

  private writeHeader(batch: Buffer): void {
    writeSafeInt64(batch, this.options.baseOffset, BASE_OFFSET_OFFSET);
    batch.writeInt32BE(batch.length - LOG_OVERHEAD, LENGTH_OFFSET);
    batch.writeInt32BE(this.options.partitionLeaderEpoch, PARTITION_LEADER_EPOCH_OFFSET);
    batch.writeInt8(CURRENT_MAGIC, MAGIC_OFFSET);
    batch.writeInt16BE(this.attributes(), ATTRIBUTES_OFFSET);
    batch.writeInt32BE(this.recordCount - 1, LAST_OFFSET_DELTA_OFFSET);
    writeSafeInt64(batch, this.baseTimestamp(), BASE_TIMESTAMP_OFFSET);
    const maxTimestamp =
      this.options.timestampType === 'LogAppendTime'
        ? (this.options.logAppendTime as number)
        : this.maxTimestamp;
    writeSafeInt64(batch, maxTimestamp, MAX_TIMESTAMP_OFFSET);
    batch.writeBigInt64BE(this.options.producerId, PRODUCER_ID_OFFSET);
    batch.writeInt16BE(this.options.producerEpoch, PRODUCER_EPOCH_OFFSET);
    batch.writeInt32BE(this.options.baseSequence, BASE_SEQUENCE_OFFSET);
    batch.writeInt32BE(this.recordCount, RECORDS_COUNT_OFFSET);
    batch.writeUInt32BE(crc32c(batch.subarray(ATTRIBUTES_OFFSET)), CRC_OFFSET);
  }
}

/** Zigzag of a safe integer as a non-negative number (exact for |value| < 2^52). */
function zigzag(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}

function sizeOfNullableBytes(bytes: Uint8Array | null): number {
  if (bytes === null) return 1;
  return sizeOfUnsignedVarint(zigzag(bytes.length)) + bytes.length;
}

function writeNullableBytes(buffer: Buffer, position: number, bytes: Uint8Array | null): number {
  if (bytes === null) {
    buffer[position] = 1; // zigzag(-1)
    return position + 1;
  }
  const next = writeUnsignedVarint(buffer, position, zigzag(bytes.length));
  buffer.set(bytes, next);
  return next + bytes.length;
}
