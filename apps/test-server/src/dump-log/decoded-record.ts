import { MetadataRecordSerde, metadataRecordCodec, metadataRecordTypeName } from '@kraft/metadata';
import {
  KRaftVersionRecord,
  LeaderChangeMessage,
  type MessageCodec,
  messageToJsonText,
  SnapshotFooterRecord,
  SnapshotHeaderRecord,
  VotersRecord,
} from '@kraft/protocol';
import { type ControlRecord, ControlRecordType, decodeControlRecord, type KafkaRecord } from '@kraft/records';

/** One record as the dump prints it: what it is (`LeaderChange`, `TOPIC_RECORD`) and its JSON. */
export interface DecodedRecord {
  readonly offset: number;
  readonly timestamp: number;
  readonly keySize: number;
  readonly valueSize: number;
  readonly headerKeys: readonly string[];
  /** A control record's Kafka name, or undefined for a metadata record. */
  readonly control: string | undefined;
  /** A metadata record's type name and version. */
  readonly type: string | undefined;
  readonly version: number;
  /** The record's data in Kafka's JSON form, as compact text. */
  readonly dataJson: string;
}

/** Control record names as Kafka's DumpLogSegments prints them; every value is version 0. */
const CONTROL_CODECS: Record<number, readonly [string, MessageCodec<unknown>]> = {
  [ControlRecordType.LEADER_CHANGE]: ['LeaderChange', LeaderChangeMessage as MessageCodec<unknown>],
  [ControlRecordType.SNAPSHOT_HEADER]: ['SnapshotHeader', SnapshotHeaderRecord as MessageCodec<unknown>],
  [ControlRecordType.SNAPSHOT_FOOTER]: ['SnapshotFooter', SnapshotFooterRecord as MessageCodec<unknown>],
  [ControlRecordType.KRAFT_VERSION]: ['KRaftVersion', KRaftVersionRecord as MessageCodec<unknown>],
  [ControlRecordType.KRAFT_VOTERS]: ['KRaftVoters', VotersRecord as MessageCodec<unknown>],
};

function common(record: KafkaRecord) {
  return {
    offset: record.offset,
    timestamp: record.timestamp,
    keySize: record.key?.length ?? -1,
    valueSize: record.value?.length ?? -1,
    headerKeys: record.headers.map((header) => header.key),
  };
}

/** Decodes a record of a control batch; throws the records package's typed errors. */
export function decodeControl(record: KafkaRecord, batchPosition: number): DecodedRecord {
  const control: ControlRecord = decodeControlRecord(record, batchPosition);
  const [name, codec] = CONTROL_CODECS[control.type] as readonly [string, MessageCodec<unknown>];
  return {
    ...common(record),
    control: name,
    type: undefined,
    version: 0,
    dataJson: messageToJsonText(codec, control.message, 0),
  };
}

/** Decodes a record of a data batch as a framed metadata record; throws `MetadataParseError`. */
export function decodeMetadata(record: KafkaRecord, value: Buffer): DecodedRecord {
  const decoded = MetadataRecordSerde.INSTANCE.read(value);
  const codec = metadataRecordCodec(decoded.recordType) as MessageCodec<unknown>;
  return {
    ...common(record),
    control: undefined,
    type: metadataRecordTypeName(decoded.recordType),
    version: decoded.version,
    dataJson: messageToJsonText(codec, decoded.data, decoded.version),
  };
}
