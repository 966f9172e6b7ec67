import {
  KRaftVersionRecord,
  type KRaftVersionRecordData,
  LeaderChangeMessage,
  type LeaderChangeMessageData,
  ProtocolError,
  SnapshotFooterRecord,
  type SnapshotFooterRecordData,
  SnapshotHeaderRecord,
  type SnapshotHeaderRecordData,
  VotersRecord,
  type VotersRecordData,
} from '@kraft/protocol';
import { CorruptRecordError } from './errors/corrupt-record-error.js';
import { UnknownControlTypeError } from './errors/unknown-control-type-error.js';
import type { KafkaRecord } from './kafka-record.js';

/** Control record types (the int16 in a control record's key). KRaft writes only 2-6. */
export const ControlRecordType = {
  ABORT: 0,
  COMMIT: 1,
  LEADER_CHANGE: 2,
  SNAPSHOT_HEADER: 3,
  SNAPSHOT_FOOTER: 4,
  KRAFT_VERSION: 5,
  KRAFT_VOTERS: 6,
} as const;
export type ControlRecordType = (typeof ControlRecordType)[keyof typeof ControlRecordType];

/** The control record key: int16 version (0), int16 type. */
export const CONTROL_RECORD_KEY_SIZE_BYTES = 4;
const CURRENT_CONTROL_RECORD_KEY_VERSION = 0;
/**
 * Every control value is read and written at version 0, as Kafka's ControlRecordUtils does
 * (LeaderChangeMessage's schema reaches v1, but KRaft never writes it).
 */
const CONTROL_VALUE_VERSION = 0;

/** A control record's payload: its type and the decoded @kraft/protocol message. */
export type ControlRecordMessage =
  | { readonly type: typeof ControlRecordType.LEADER_CHANGE; readonly message: LeaderChangeMessageData }
  | { readonly type: typeof ControlRecordType.SNAPSHOT_HEADER; readonly message: SnapshotHeaderRecordData }
  | { readonly type: typeof ControlRecordType.SNAPSHOT_FOOTER; readonly message: SnapshotFooterRecordData }
  | { readonly type: typeof ControlRecordType.KRAFT_VERSION; readonly message: KRaftVersionRecordData }
  | { readonly type: typeof ControlRecordType.KRAFT_VOTERS; readonly message: VotersRecordData };

/** A decoded control record of a control batch. */
export type ControlRecord = ControlRecordMessage & { readonly offset: number; readonly timestamp: number };

/**
 * The 4-byte key of a control record of `type`: int16 key version 0, then the int16 type, as
 * Kafka's `ControlRecordType.recordKey` writes it.
 */
export function encodeControlRecordKey(type: ControlRecordType): Buffer {
  const key = Buffer.allocUnsafe(CONTROL_RECORD_KEY_SIZE_BYTES);
  key.writeInt16BE(CURRENT_CONTROL_RECORD_KEY_VERSION, 0);
  key.writeInt16BE(type, 2);
  return key;
}

/**
 * The value bytes of a control record: its message serialised at version 0, the only version
 * KRaft writes (Kafka's `ControlRecordUtils`). Pair it with {@link encodeControlRecordKey}.
 */
export function encodeControlRecordValue(record: ControlRecordMessage): Buffer {
  switch (record.type) {
    case ControlRecordType.LEADER_CHANGE:
      return LeaderChangeMessage.write(record.message, CONTROL_VALUE_VERSION);
    case ControlRecordType.SNAPSHOT_HEADER:
      return SnapshotHeaderRecord.write(record.message, CONTROL_VALUE_VERSION);
    case ControlRecordType.SNAPSHOT_FOOTER:
      return SnapshotFooterRecord.write(record.message, CONTROL_VALUE_VERSION);
    case ControlRecordType.KRAFT_VERSION:
      return KRaftVersionRecord.write(record.message, CONTROL_VALUE_VERSION);
    case ControlRecordType.KRAFT_VOTERS:
      return VotersRecord.write(record.message, CONTROL_VALUE_VERSION);
  }
}

/**
 * Reads the type from a control record key. Like Kafka: fewer than 4 bytes or a negative version
 * is corrupt, any other version is read as version 0.
 */
export function readControlRecordType(key: Buffer | null, offset: number, batchPosition: number): number {
  if (key === null || key.length < CONTROL_RECORD_KEY_SIZE_BYTES) {
    throw new CorruptRecordError(
      `control record key has ${key?.length ?? 'no'} bytes, needs 4`,
      offset,
      batchPosition,
    );
  }
  const version = key.readInt16BE(0);
  if (version < 0)
    throw new CorruptRecordError(`negative control record key version ${version}`, offset, batchPosition);
  return key.readInt16BE(2);
}

function decodeMessage(type: number, value: Buffer): ControlRecordMessage | undefined {
  switch (type) {
    case ControlRecordType.LEADER_CHANGE:
      return { type, message: LeaderChangeMessage.read(value, CONTROL_VALUE_VERSION) };
    case ControlRecordType.SNAPSHOT_HEADER:
      return { type, message: SnapshotHeaderRecord.read(value, CONTROL_VALUE_VERSION) };
    case ControlRecordType.SNAPSHOT_FOOTER:
      return { type, message: SnapshotFooterRecord.read(value, CONTROL_VALUE_VERSION) };
    case ControlRecordType.KRAFT_VERSION:
      return { type, message: KRaftVersionRecord.read(value, CONTROL_VALUE_VERSION) };
    case ControlRecordType.KRAFT_VOTERS:
      return { type, message: VotersRecord.read(value, CONTROL_VALUE_VERSION) };
    default:
      return undefined;
  }
}

/**
 * Decodes one record of a control batch. A type other than 2-6 is an `UnknownControlTypeError`
 * (Kafka's raft RecordsIterator throws there too); a value that does not parse is corrupt.
 */
export function decodeControlRecord(record: KafkaRecord, batchPosition: number): ControlRecord {
  const type = readControlRecordType(record.key, record.offset, batchPosition);
  if (type < ControlRecordType.LEADER_CHANGE || type > ControlRecordType.KRAFT_VOTERS) {
    throw new UnknownControlTypeError(type, record.offset, batchPosition);
  }
  if (record.value === null)
    throw new CorruptRecordError('control record has a null value', record.offset, batchPosition);
  let decoded: ControlRecordMessage | undefined;
  try {
    decoded = decodeMessage(type, record.value);
  } catch (error) {
    if (!ProtocolError.isProtocolError(error)) throw error;
    throw new CorruptRecordError(`control record value: ${error.message}`, record.offset, batchPosition, {
      cause: error,
    });
  }
  if (decoded === undefined) throw new UnknownControlTypeError(type, record.offset, batchPosition);
  return { ...decoded, offset: record.offset, timestamp: record.timestamp };
}
