import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 2: a topic's creation. */
export const TopicRecord = defineMessage({
  name: 'TopicRecord',
  apiKey: 2,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    name: field.string({ versions: '0+', entityType: 'topicName' }),
    topicId: field.uuid({ versions: '0+' }),
  },
});

/**
 * The decoded fields of a {@link TopicRecord} (Kafka's generated `TopicRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type TopicRecordData = MessageData<typeof TopicRecord>;
