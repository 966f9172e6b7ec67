import { invariant } from '@kraft/protocol';
import { decompressRecords } from './compression/codecs.js';
import {
  type CompressionType,
  compressionTypeForId,
  DEFAULT_MAX_DECOMPRESSED_SIZE_BYTES,
} from './compression/compression-type.js';
import { crc32c } from './crc32c.js';
import { CompressionError } from './errors/compression-error.js';
import { CorruptRecordError } from './errors/corrupt-record-error.js';
import { RecordBatchTooLargeError } from './errors/record-batch-too-large-error.js';
import { decodeRecords, type KafkaRecord, RecordCursor } from './kafka-record.js';
import {
  ATTRIBUTES_OFFSET,
  BASE_OFFSET_OFFSET,
  BASE_SEQUENCE_OFFSET,
  BASE_TIMESTAMP_OFFSET,
  COMPRESSION_CODEC_MASK,
  CONTROL_FLAG_MASK,
  CRC_OFFSET,
  CURRENT_MAGIC,
  DELETE_HORIZON_FLAG_MASK,
  LAST_OFFSET_DELTA_OFFSET,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  PARTITION_LEADER_EPOCH_OFFSET,
  PRODUCER_EPOCH_OFFSET,
  PRODUCER_ID_OFFSET,
  RECORD_BATCH_OVERHEAD,
  RECORDS_COUNT_OFFSET,
  RECORDS_OFFSET,
  TIMESTAMP_TYPE_MASK,
  TRANSACTIONAL_FLAG_MASK,
} from './record-batch-layout.js';
import { readSafeInt64, writeSafeInt64 } from './safe-int64.js';

/**
 * What a batch's timestamps mean (attribute bit 3, Kafka's `TimestampType`): `CreateTime` is the
 * producer's clock, one timestamp per record; `LogAppendTime` is the broker's clock at append,
 * the batch's `maxTimestamp` standing for every record.
 */
export type TimestampType = 'CreateTime' | 'LogAppendTime';

/** Bounds applied while decoding the records of a batch. */
export interface DecodeOptions {
  /**
   * Bound on the inflated records of a compressed batch, in bytes; default
   * `DEFAULT_MAX_DECOMPRESSED_SIZE_BYTES`. Checked before the output is allocated.
   */
  readonly maxDecompressedSizeBytes?: number;
}

/**
 * The fixed 61-byte header of a record batch v2 (DefaultRecordBatch), read field by field on
 * access. Offsets and timestamps are safe-integer numbers; a value that is not one is a
 * `CorruptRecordError`. `RecordBatch` (whole batch in memory) and `FileRecordBatch` (header read
 * from a file, body loaded on demand) share it.
 */
export abstract class RecordBatchHeader {
  /** At least the 61 header bytes of the batch. */
  protected readonly header: Buffer;
  /** Byte position of this batch within the records it came from (file position for FileRecords). */
  readonly position: number;

  protected constructor(header: Buffer, position: number) {
    invariant(
      header.length >= RECORD_BATCH_OVERHEAD,
      () => `a batch needs ${RECORD_BATCH_OVERHEAD} bytes, got ${header.length}`,
    );
    this.header = header;
    this.position = position;
  }

  /** Total bytes of the batch, including the 12-byte offset and length prefix. */
  abstract get sizeInBytes(): number;

  /**
   * Reads the int64 header field at byte `offset` as a number. Kafka's offsets and timestamps
   * are int64, but a value beyond 2^53 cannot be a real one here, so it is treated as corruption
   * rather than rounded.
   *
   * @param what - the field's name, for the error message.
   * @throws {@link CorruptRecordError} when the value is not a safe integer.
   */
  protected safeInt64(offset: number, what: string): number {
    const value = readSafeInt64(this.header, offset);
    if (Number.isNaN(value)) {
      throw new CorruptRecordError(
        `${what} is not a safe integer`,
        this.baseOffsetOrUnknown(),
        this.position,
      );
    }
    return value;
  }

  /**
   * The base offset, or -1 when it is not a safe integer: what errors about this batch carry,
   * since reporting a corrupt batch must not itself throw.
   */
  protected baseOffsetOrUnknown(): number {
    const value = readSafeInt64(this.header, BASE_OFFSET_OFFSET);
    return Number.isNaN(value) ? -1 : value;
  }

  get baseOffset(): number {
    return this.safeInt64(BASE_OFFSET_OFFSET, 'base offset');
  }

  /** The length field: bytes after it (sizeInBytes - 12). */
  get batchLength(): number {
    return this.header.readInt32BE(LENGTH_OFFSET);
  }

  get lastOffsetDelta(): number {
    return this.header.readInt32BE(LAST_OFFSET_DELTA_OFFSET);
  }

  get lastOffset(): number {
    return this.baseOffset + this.lastOffsetDelta;
  }

  get nextOffset(): number {
    return this.lastOffset + 1;
  }

  get partitionLeaderEpoch(): number {
    return this.header.readInt32BE(PARTITION_LEADER_EPOCH_OFFSET);
  }

  get magic(): number {
    return this.header.readInt8(MAGIC_OFFSET);
  }

  get checksum(): number {
    return this.header.readUInt32BE(CRC_OFFSET);
  }

  get attributes(): number {
    return this.header.readInt16BE(ATTRIBUTES_OFFSET);
  }

  get compressionId(): number {
    return this.attributes & COMPRESSION_CODEC_MASK;
  }

  /** The codec; a batch with an unassigned codec id (5-7) is corrupt. */
  get compressionType(): CompressionType {
    const type = compressionTypeForId(this.compressionId);
    if (type === undefined) {
      throw new CorruptRecordError(
        `unknown compression id ${this.compressionId}`,
        this.baseOffsetOrUnknown(),
        this.position,
      );
    }
    return type;
  }

  get timestampType(): TimestampType {
    return (this.attributes & TIMESTAMP_TYPE_MASK) === 0 ? 'CreateTime' : 'LogAppendTime';
  }

  get isTransactional(): boolean {
    return (this.attributes & TRANSACTIONAL_FLAG_MASK) !== 0;
  }

  get isControl(): boolean {
    return (this.attributes & CONTROL_FLAG_MASK) !== 0;
  }

  get hasDeleteHorizon(): boolean {
    return (this.attributes & DELETE_HORIZON_FLAG_MASK) !== 0;
  }

  /** The first record's timestamp; it holds the delete horizon instead when that flag is set. */
  get baseTimestamp(): number {
    return this.safeInt64(BASE_TIMESTAMP_OFFSET, 'base timestamp');
  }

  get deleteHorizonMs(): number | undefined {
    return this.hasDeleteHorizon ? this.baseTimestamp : undefined;
  }

  get maxTimestamp(): number {
    return this.safeInt64(MAX_TIMESTAMP_OFFSET, 'max timestamp');
  }

  /** int64 and not an offset: kept as bigint (KRaft writes -1). */
  get producerId(): bigint {
    return this.header.readBigInt64BE(PRODUCER_ID_OFFSET);
  }

  get producerEpoch(): number {
    return this.header.readInt16BE(PRODUCER_EPOCH_OFFSET);
  }

  get baseSequence(): number {
    return this.header.readInt32BE(BASE_SEQUENCE_OFFSET);
  }

  get recordCount(): number {
    return this.header.readInt32BE(RECORDS_COUNT_OFFSET);
  }
}

/**
 * A zero-copy view of one whole record batch: `bytes` holds exactly the batch, from its base
 * offset to its last byte. `records()` decodes (and inflates) the records. Build one only over
 * bytes whose length field matches (`MemoryRecords.batches()` does); `ensureValid()` then checks
 * the length, the magic and the CRC.
 */
export class RecordBatch extends RecordBatchHeader {
  readonly bytes: Buffer;

  constructor(bytes: Buffer, position = 0) {
    super(bytes, position);
    this.bytes = bytes;
  }

  get sizeInBytes(): number {
    return this.bytes.length;
  }

  /** CRC-32C over attributes..end: what the `crc` field must hold. */
  computeChecksum(): number {
    return crc32c(this.bytes.subarray(ATTRIBUTES_OFFSET));
  }

  /** Whether the length field, the magic (2) and the CRC-32C all check out; never throws. */
  isValid(): boolean {
    return this.invalidReason() === undefined;
  }

  /**
   * Checks the length field, the magic and the CRC-32C, as Kafka's `DefaultRecordBatch.ensureValid`.
   *
   * @throws {@link CorruptRecordError} naming which check failed, with the batch's offset and position.
   */
  ensureValid(): void {
    const reason = this.invalidReason();
    if (reason !== undefined) throw new CorruptRecordError(reason, this.baseOffsetOrUnknown(), this.position);
  }

  private invalidReason(): string | undefined {
    if (this.bytes.readInt32BE(LENGTH_OFFSET) + LOG_OVERHEAD !== this.bytes.length) {
      return `batch length field ${this.bytes.readInt32BE(LENGTH_OFFSET)} disagrees with its ${this.bytes.length} bytes`;
    }
    if (this.magic !== CURRENT_MAGIC) return `unsupported magic ${this.magic} (only 2 is supported)`;
    const computed = this.computeChecksum();
    if (computed !== this.checksum) {
      return `CRC mismatch: stored ${this.checksum.toString(16)}, computed ${computed.toString(16)}`;
    }
    return undefined;
  }

  /**
   * Decodes every record. Records of an uncompressed batch are views of `bytes`; a compressed
   * batch is inflated once (bounded by `maxDecompressedSizeBytes`). Does not check the CRC: call
   * `ensureValid()` first when the bytes come from outside.
   *
   * @throws {@link CorruptRecordError} when a record is truncated or malformed, the record count
   * disagrees with the records, or the compressed bytes do not inflate.
   * @throws {@link RecordBatchTooLargeError} when the records inflate beyond the bound.
   */
  records(options: DecodeOptions = {}): KafkaRecord[] {
    const baseOffset = this.baseOffset;
    const count = this.recordCount;
    const baseTimestamp = this.baseTimestamp;
    const logAppendTime = this.timestampType === 'LogAppendTime' ? this.maxTimestamp : undefined;
    const cursor = this.recordsCursor(
      baseOffset,
      options.maxDecompressedSizeBytes ?? DEFAULT_MAX_DECOMPRESSED_SIZE_BYTES,
    );
    return decodeRecords(cursor, count, baseOffset, baseTimestamp, logAppendTime);
  }

  private recordsCursor(baseOffset: number, maxDecompressedSizeBytes: number): RecordCursor {
    const type = this.compressionType;
    if (type === 'none')
      return new RecordCursor(this.bytes, RECORDS_OFFSET, this.bytes.length, baseOffset, this.position);
    let inflated: Buffer;
    try {
      inflated = decompressRecords(type, this.bytes.subarray(RECORDS_OFFSET), maxDecompressedSizeBytes);
    } catch (error) {
      if (CompressionError.isCompressionError(error)) {
        throw new CorruptRecordError(error.message, baseOffset, this.position, { cause: error });
      }
      if (RecordBatchTooLargeError.isRecordBatchTooLargeError(error)) {
        throw new RecordBatchTooLargeError(
          `${error.message} (batch at offset ${baseOffset}, position ${this.position})`,
          error.sizeInBytes,
          error.limitBytes,
        );
      }
      throw error;
    }
    return new RecordCursor(inflated, 0, inflated.length, baseOffset, this.position);
  }

  /** Rewrites the base offset in place (not covered by the CRC), as a leader does on append. */
  setBaseOffset(offset: number): void {
    invariant(Number.isSafeInteger(offset) && offset >= 0, () => `invalid base offset ${offset}`);
    writeSafeInt64(this.bytes, offset, BASE_OFFSET_OFFSET);
  }

  /** Rewrites the partition leader epoch in place (not covered by the CRC). */
  setPartitionLeaderEpoch(epoch: number): void {
    this.bytes.writeInt32BE(epoch, PARTITION_LEADER_EPOCH_OFFSET);
  }
}
