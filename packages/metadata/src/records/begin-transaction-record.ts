import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 23: the records up to the matching End/Abort apply atomically. */
export const BeginTransactionRecord = defineMessage({
  name: 'BeginTransactionRecord',
  apiKey: 23,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    name: field.string({
      versions: '0+',
      nullableVersions: '0+',
      default: null,
      taggedVersions: '0+',
      tag: 0,
    }),
  },
});

/**
 * The decoded fields of a {@link BeginTransactionRecord} (Kafka's generated `BeginTransactionRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type BeginTransactionRecordData = MessageData<typeof BeginTransactionRecord>;
