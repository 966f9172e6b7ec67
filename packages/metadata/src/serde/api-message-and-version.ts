import type { MessageData } from '@kraft/protocol';
import type { MetadataRecordCodecs, MetadataRecordTypeId } from '../records/metadata-record-type.js';

/**
 * One metadata record with the version it is (or will be) written at: Kafka's
 * `ApiMessageAndVersion`. A union discriminated by `recordType`, so `if (record.recordType ===
 * MetadataRecordType.TOPIC_RECORD)` narrows `data` to `TopicRecordData`.
 */
export type ApiMessageAndVersion = {
  [K in MetadataRecordTypeId]: {
    readonly recordType: K;
    readonly version: number;
    readonly data: MessageData<MetadataRecordCodecs[K]>;
  };
}[MetadataRecordTypeId];

/** The member of `ApiMessageAndVersion` for one record type. */
export type ApiMessageAndVersionOf<K extends MetadataRecordTypeId> = Extract<
  ApiMessageAndVersion,
  { readonly recordType: K }
>;

/** Builds a record value with its type checked against its data. */
export function apiMessageAndVersion<K extends MetadataRecordTypeId>(
  recordType: K,
  version: number,
  data: MessageData<MetadataRecordCodecs[K]>,
): ApiMessageAndVersionOf<K> {
  return { recordType, version, data } as ApiMessageAndVersionOf<K>;
}
