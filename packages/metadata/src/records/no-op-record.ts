import { defineMessage, type MessageData } from '@kraft/protocol';

/** Metadata record type 20: written by an idle controller so followers see the log advance. */
export const NoOpRecord = defineMessage({
  name: 'NoOpRecord',
  apiKey: 20,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {},
});

/**
 * The decoded fields of a {@link NoOpRecord} (Kafka's generated `NoOpRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type NoOpRecordData = MessageData<typeof NoOpRecord>;
