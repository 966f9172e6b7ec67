import { defineMessage, type MessageData } from '@kraft/protocol';

/** Metadata record type 24: the open metadata transaction commits. */
export const EndTransactionRecord = defineMessage({
  name: 'EndTransactionRecord',
  apiKey: 24,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {},
});

/**
 * The decoded fields of a {@link EndTransactionRecord} (Kafka's generated `EndTransactionRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type EndTransactionRecordData = MessageData<typeof EndTransactionRecord>;
