import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 28: clears the ELRs of one topic, or of every topic when the name is empty. */
export const ClearElrRecord = defineMessage({
  name: 'ClearElrRecord',
  apiKey: 28,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    topicName: field.string({ versions: '0+', entityType: 'topicName' }),
  },
});

/**
 * The decoded fields of a {@link ClearElrRecord} (Kafka's generated `ClearElrRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type ClearElrRecordData = MessageData<typeof ClearElrRecord>;
