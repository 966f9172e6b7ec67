import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 9: a topic's deletion. */
export const RemoveTopicRecord = defineMessage({
  name: 'RemoveTopicRecord',
  apiKey: 9,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    topicId: field.uuid({ versions: '0+' }),
  },
});

/**
 * The decoded fields of a {@link RemoveTopicRecord} (Kafka's generated `RemoveTopicRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type RemoveTopicRecordData = MessageData<typeof RemoveTopicRecord>;
