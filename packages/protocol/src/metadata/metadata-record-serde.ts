import { ProtocolError } from '../errors/protocol-error.js';
import { UnsupportedVersionError } from '../errors/unsupported-version-error.js';
import { ByteReader } from '../primitives/byte-reader.js';
import { ByteWriter } from '../primitives/byte-writer.js';
import type { MessageCodec, MessageData } from '../schema/message-codec.js';
import { ConfigRecord } from './config-record.js';
import { FeatureLevelRecord } from './feature-level-record.js';
import { NoOpRecord } from './no-op-record.js';
import { PartitionRecord } from './partition-record.js';
import { RegisterBrokerRecord } from './register-broker-record.js';
import { RemoveTopicRecord } from './remove-topic-record.js';
import { TopicRecord } from './topic-record.js';

/** The frame version KRaft writes before every metadata record (0 was the 2.8 preview). */
export const METADATA_FRAME_VERSION = 1;

/** Metadata record types this package declares, by Kafka's `MetadataRecordType` names. */
export const MetadataRecordType = {
  REGISTER_BROKER_RECORD: 0,
  TOPIC_RECORD: 2,
  PARTITION_RECORD: 3,
  CONFIG_RECORD: 4,
  REMOVE_TOPIC_RECORD: 9,
  FEATURE_LEVEL_RECORD: 12,
  NO_OP_RECORD: 20,
} as const;

const CODECS = {
  0: RegisterBrokerRecord,
  2: TopicRecord,
  3: PartitionRecord,
  4: ConfigRecord,
  9: RemoveTopicRecord,
  12: FeatureLevelRecord,
  20: NoOpRecord,
} as const;

type Codecs = typeof CODECS;
export type MetadataRecordTypeId = keyof Codecs;

/** A decoded metadata record: its type, its version and its data. */
export type MetadataRecord = {
  [K in MetadataRecordTypeId]: {
    readonly recordType: K;
    readonly version: number;
    readonly data: MessageData<Codecs[K]>;
  };
}[MetadataRecordTypeId];

export interface MetadataRecordHeader {
  readonly frameVersion: number;
  readonly recordType: number;
  readonly version: number;
  /** Where the message body starts in the value. */
  readonly bodyOffset: number;
}

/** The codec of a metadata record type, or undefined for types this package does not declare. */
export function metadataRecordCodec(recordType: number): MessageCodec<unknown> | undefined {
  return (CODECS as Record<number, MessageCodec<unknown> | undefined>)[recordType];
}

/** Reads the frame of a record value: frame version (must be 1), record type, record version. */
export function readMetadataRecordHeader(value: Buffer): MetadataRecordHeader {
  const reader = new ByteReader(value);
  const frameVersion = reader.readUnsignedVarint();
  if (frameVersion !== METADATA_FRAME_VERSION) {
    throw new ProtocolError(
      `metadata frame version ${frameVersion}, expected ${METADATA_FRAME_VERSION}`,
      'frameVersion',
    );
  }
  const recordType = reader.readUnsignedVarint();
  const version = reader.readUnsignedVarint();
  if (version > 0x7fff) throw new ProtocolError(`record version ${version} exceeds int16`, 'version');
  return { frameVersion, recordType, version, bodyOffset: reader.offset };
}

/**
 * Decodes a framed metadata record value. Trailing bytes are an error, as in Kafka; an
 * undeclared record type is an `UnsupportedVersionError` (use `readMetadataRecordHeader` to skip it).
 */
export function readMetadataRecord(value: Buffer): MetadataRecord {
  const header = readMetadataRecordHeader(value);
  const codec = metadataRecordCodec(header.recordType);
  if (codec === undefined)
    throw new UnsupportedVersionError(`unknown metadata record type ${header.recordType}`);
  const data = codec.read(value.subarray(header.bodyOffset), header.version);
  return { recordType: header.recordType, version: header.version, data } as MetadataRecord;
}

/** Encodes a metadata record value: frame version 1, type, version, then the flexible body. */
export function writeMetadataRecord(record: MetadataRecord): Buffer {
  const codec = metadataRecordCodec(record.recordType);
  if (codec === undefined)
    throw new UnsupportedVersionError(`unknown metadata record type ${record.recordType}`);
  const writer = new ByteWriter(64);
  writer.writeUnsignedVarint(METADATA_FRAME_VERSION).writeUnsignedVarint(record.recordType);
  writer.writeUnsignedVarint(record.version);
  codec.writeTo(writer, record.data, record.version);
  return writer.toBuffer();
}
