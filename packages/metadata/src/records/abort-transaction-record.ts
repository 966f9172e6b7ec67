import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 25: the open metadata transaction is dropped. */
export const AbortTransactionRecord = defineMessage({
  name: 'AbortTransactionRecord',
  apiKey: 25,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    reason: field.string({
      versions: '0+',
      nullableVersions: '0+',
      default: null,
      taggedVersions: '0+',
      tag: 0,
    }),
  },
});

/**
 * The decoded fields of a {@link AbortTransactionRecord} (Kafka's generated `AbortTransactionRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type AbortTransactionRecordData = MessageData<typeof AbortTransactionRecord>;
