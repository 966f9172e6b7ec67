import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 12: a finalized feature level (`metadata.version`, `kraft.version`...). */
export const FeatureLevelRecord = defineMessage({
  name: 'FeatureLevelRecord',
  apiKey: 12,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    name: field.string({ versions: '0+' }),
    featureLevel: field.int16({ versions: '0+' }),
  },
});

/**
 * The decoded fields of a {@link FeatureLevelRecord} (Kafka's generated `FeatureLevelRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type FeatureLevelRecordData = MessageData<typeof FeatureLevelRecord>;
