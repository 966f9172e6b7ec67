import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 4: one configuration key of a resource (null value = deleted). */
export const ConfigRecord = defineMessage({
  name: 'ConfigRecord',
  apiKey: 4,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    resourceType: field.int8({ versions: '0+' }),
    resourceName: field.string({ versions: '0+' }),
    name: field.string({ versions: '0+' }),
    value: field.string({ versions: '0+', nullableVersions: '0+' }),
  },
});

/**
 * The decoded fields of a {@link ConfigRecord} (Kafka's generated `ConfigRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type ConfigRecordData = MessageData<typeof ConfigRecord>;
