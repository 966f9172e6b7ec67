import { ByteReader, ByteWriter, ProtocolError, UnsupportedVersionError } from '@kraft/protocol';
import type { RecordSerde } from '@kraft/raft';
import type { Batch } from '@kraft/records';
import { MetadataParseError } from '../errors/metadata-parse-error.js';
import { metadataRecordCodec } from '../records/metadata-record-type.js';
import type { ApiMessageAndVersion } from './api-message-and-version.js';

/**
 * The frame version KRaft writes before every metadata record. Version 0 was the 2.8 preview
 * format; Kafka refuses it, and so does this serde.
 */
export const METADATA_FRAME_VERSION = 1;

/** Kafka reads the frame's three varints into Java shorts: larger values are refused. */
const MAX_FRAME_FIELD_VALUE = 0x7fff;

/**
 * A PartitionRecord with three replicas and their directories (113 bytes), the bulk of a
 * snapshot, fits without the writer growing (a copy); `ByteWriter` grows for larger ones. From
 * 64 to 128 bytes: 300,000 such writes took 0.77-0.95 s instead of 0.88-1.43 s (loaded machine).
 */
const INITIAL_WRITE_BUFFER_BYTES = 128;

/**
 * The sizing writer grows to the largest record it sized (up to raft's 8 MiB batch); past this
 * it is dropped after the `write`, so the shared instance does not keep a rare large record's
 * buffer for the life of the process.
 */
const MAX_RETAINED_SIZING_BYTES = 64 * 1024;

/** The frame of a metadata record value, read without decoding the message. */
export interface MetadataRecordHeader {
  readonly frameVersion: number;
  readonly recordType: number;
  readonly version: number;
  /** Where the message starts within the value. */
  readonly bodyOffset: number;
}

function readFrameField(reader: ByteReader, what: string): number {
  const position = reader.offset;
  let value: number;
  try {
    value = reader.readUnsignedVarint();
  } catch (error) {
    throw parseFailure(error, `${what} of the metadata record frame`, position);
  }
  if (value > MAX_FRAME_FIELD_VALUE) {
    throw new MetadataParseError('malformed', `${what} ${value} exceeds ${MAX_FRAME_FIELD_VALUE}`, position);
  }
  return value;
}

function readFrameVersion(reader: ByteReader): void {
  const frameVersion = readFrameField(reader, 'frame version');
  if (frameVersion !== METADATA_FRAME_VERSION) {
    throw new MetadataParseError(
      'unknown-frame-version',
      `metadata record frame version ${frameVersion}, only ${METADATA_FRAME_VERSION} is supported`,
      0,
    );
  }
}

function parseFailure(error: unknown, what: string, position: number): unknown {
  if (!ProtocolError.isProtocolError(error)) return error;
  const failure = error.truncated ? 'truncated' : 'malformed';
  return new MetadataParseError(failure, `${what}: ${error.message}`, position, { cause: error });
}

/**
 * Kafka's `MetadataRecordSerde`: a metadata record value is
 * `unsigned varint frameVersion (1) · unsigned varint recordType · unsigned varint version ·
 * message` in the flexible encoding. Decoding refuses another frame version, an unknown type,
 * a version the type lacks, a value cut short and bytes after the message, each with a
 * `MetadataParseError` naming the byte where it stopped. Lengths inside the message are
 * checked against the bytes that remain before anything is allocated (`ByteReader`).
 *
 * It is raft's `RecordSerde<ApiMessageAndVersion>` (`recordSize`, then `write` into a caller's
 * buffer, `read`), so a `RaftNode` or the snapshot emitter can size a batch before writing it.
 * Like Kafka's `ObjectSerializationCache`, one entry deep (raft's `jsonSerde` keeps the same
 * entry): `recordSize` keeps the bytes it encoded for the `write` of the same record that
 * follows, so a record is encoded once; `write` drops them, and sizing another record replaces
 * them. Unlike `jsonSerde`, sizing the same record again reuses them: records are immutable, so
 * the kept bytes are never stale. One instance is used from one thread at a time (JavaScript's).
 */
export class MetadataRecordSerde implements RecordSerde<ApiMessageAndVersion> {
  /** The shared instance; the serde holds no state beyond its one-record sizing cache. */
  static readonly INSTANCE = new MetadataRecordSerde();

  /**
   * Holds the bytes of `sizedRecord`, reused from record to record; it grows to the largest
   * record sized, and is replaced by a small one after a `write` once past
   * `MAX_RETAINED_SIZING_BYTES`.
   */
  private sizingWriter = new ByteWriter(INITIAL_WRITE_BUFFER_BYTES);
  private sizedRecord: ApiMessageAndVersion | undefined;
  private sizedBytes: Buffer | undefined;

  /** Reads and checks the frame; the message is left undecoded at `bodyOffset`. */
  readHeader(value: Buffer): MetadataRecordHeader {
    const reader = new ByteReader(value);
    readFrameVersion(reader);
    const recordType = readFrameField(reader, 'record type');
    const version = readFrameField(reader, 'record version');
    return { frameVersion: METADATA_FRAME_VERSION, recordType, version, bodyOffset: reader.offset };
  }

  /**
   * Decodes a whole value: one reader, no intermediate objects (the loader calls it per record).
   * Byte fields (SCRAM salts and keys, token HMACs, unknown tagged fields) come back as views of
   * `value`, so `value` must not be overwritten while the record is in use. Raft's `RecordSerde`
   * hands in record values it never reuses, which is what makes that safe; a caller reading a
   * buffer it reuses must copy those fields.
   *
   * @throws {@link MetadataParseError} for bytes that are not one whole metadata record.
   */
  read(value: Buffer): ApiMessageAndVersion {
    const reader = new ByteReader(value);
    readFrameVersion(reader);
    const recordType = readFrameField(reader, 'record type');
    const version = readFrameField(reader, 'record version');
    const codec = metadataRecordCodec(recordType);
    if (codec === undefined) {
      throw new MetadataParseError(
        'unknown-record-type',
        `unknown metadata record type ${recordType}`,
        reader.offset,
      );
    }
    if (!codec.validVersions.contains(version)) {
      throw new MetadataParseError(
        'unsupported-version',
        `${codec.name} has no version ${version} (valid: ${codec.validVersions})`,
        reader.offset,
      );
    }
    let data: unknown;
    try {
      data = codec.readFrom(reader, version);
    } catch (error) {
      throw parseFailure(error, `${codec.name} v${version}`, reader.offset);
    }
    if (reader.remaining() !== 0) {
      throw new MetadataParseError(
        'trailing-bytes',
        `${reader.remaining()} bytes after ${codec.name} v${version}`,
        reader.offset,
      );
    }
    return { recordType, version, data } as ApiMessageAndVersion;
  }

  /**
   * The exact number of bytes `write` produces for `record`. The record is encoded here (into a
   * reused writer) and its bytes kept for the next `write` of the same record.
   *
   * @throws {@link UnsupportedVersionError} for an unknown record type or version.
   * @throws {@link ProtocolError} for a field that cannot be encoded (see `writeTo`).
   */
  recordSize(record: ApiMessageAndVersion): number {
    return this.sizedBytesOf(record).length;
  }

  /**
   * Writes the framed `record` at `target[offset]` and returns the number of bytes written
   * (`recordSize(record)`), copying the bytes `recordSize` kept when it sized this record.
   *
   * @throws {@link RangeError} when `target` has fewer than `recordSize(record)` bytes after
   * `offset` (nothing is written).
   * @throws {@link UnsupportedVersionError} or {@link ProtocolError} as `recordSize`.
   */
  write(record: ApiMessageAndVersion, target: Buffer, offset: number): number {
    const bytes = this.sizedBytesOf(record);
    this.sizedRecord = undefined;
    this.sizedBytes = undefined;
    if (!Number.isSafeInteger(offset) || offset < 0 || offset + bytes.length > target.length) {
      throw new RangeError(
        `a ${bytes.length}-byte metadata record does not fit at offset ${offset} of a ${target.length}-byte buffer`,
      );
    }
    const written = bytes.copy(target, offset);
    if (this.sizingWriter.capacityInBytes() > MAX_RETAINED_SIZING_BYTES) {
      this.sizingWriter = new ByteWriter(INITIAL_WRITE_BUFFER_BYTES);
    }
    return written;
  }

  /** The framed `record` in a buffer of its own (tests, tools, digests; not for batches). */
  serialize(record: ApiMessageAndVersion): Buffer {
    const writer = new ByteWriter(INITIAL_WRITE_BUFFER_BYTES);
    this.writeTo(writer, record);
    return writer.toBuffer();
  }

  /** Appends the framed record to `writer`; throws `UnsupportedVersionError` for an unknown type or version. */
  writeTo(writer: ByteWriter, record: ApiMessageAndVersion): void {
    const codec = metadataRecordCodec(record.recordType);
    if (codec === undefined) {
      throw new UnsupportedVersionError(`unknown metadata record type ${String(record.recordType)}`);
    }
    // planFor refuses a version the record lacks before anything is written.
    codec.planFor(record.version);
    writer.writeUnsignedVarint(METADATA_FRAME_VERSION);
    writer.writeUnsignedVarint(record.recordType);
    writer.writeUnsignedVarint(record.version);
    codec.writeTo(writer, record.data, record.version);
  }

  private sizedBytesOf(record: ApiMessageAndVersion): Buffer {
    if (record === this.sizedRecord && this.sizedBytes !== undefined) return this.sizedBytes;
    this.sizedRecord = undefined;
    this.sizedBytes = undefined;
    this.sizingWriter.offset = 0;
    this.writeTo(this.sizingWriter, record);
    this.sizedBytes = this.sizingWriter.toBuffer();
    this.sizedRecord = record;
    return this.sizedBytes;
  }

  /**
   * The records of a data batch as raft hands it to a listener, decoded in offset order; a
   * failure names the record's offset. A control batch has none. A record without a value is
   * malformed: KRaft never writes one.
   */
  readBatch(batch: Batch): ApiMessageAndVersion[] {
    const records: ApiMessageAndVersion[] = [];
    for (const record of batch.records) {
      if (record.value === null) {
        throw new MetadataParseError('malformed', `record at offset ${record.offset} has no value`, 0);
      }
      try {
        records.push(this.read(record.value));
      } catch (error) {
        if (!MetadataParseError.isMetadataParseError(error)) throw error;
        throw new MetadataParseError(
          error.failure,
          `record at offset ${record.offset}: ${error.reason}`,
          error.position,
          {
            cause: error,
          },
        );
      }
    }
    return records;
  }
}
