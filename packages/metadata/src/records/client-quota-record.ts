import { defineMessage, field, type MessageData, struct } from '@kraft/protocol';

const EntityData = struct('EntityData', {
  entityType: field.string({ versions: '0+' }),
  /** Null names the default entity of its type. */
  entityName: field.string({ versions: '0+', nullableVersions: '0+' }),
});

/** Metadata record type 14: one quota key of a client-quota entity set or removed. */
export const ClientQuotaRecord = defineMessage({
  name: 'ClientQuotaRecord',
  apiKey: 14,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    entity: field.array(EntityData, { versions: '0+' }),
    key: field.string({ versions: '0+' }),
    value: field.float64({ versions: '0+' }),
    remove: field.bool({ versions: '0+' }),
  },
});

/**
 * The decoded fields of a {@link ClientQuotaRecord} (Kafka's generated `ClientQuotaRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type ClientQuotaRecordData = MessageData<typeof ClientQuotaRecord>;
