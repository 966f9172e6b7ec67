import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 29: a controller's registration removed. */
export const UnregisterControllerRecord = defineMessage({
  name: 'UnregisterControllerRecord',
  apiKey: 29,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    controllerId: field.int32({ versions: '0+' }),
  },
});

/**
 * The decoded fields of a {@link UnregisterControllerRecord} (Kafka's generated `UnregisterControllerRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type UnregisterControllerRecordData = MessageData<typeof UnregisterControllerRecord>;
