import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 8: a broker unfenced; superseded by BrokerRegistrationChange. */
export const UnfenceBrokerRecord = defineMessage({
  name: 'UnfenceBrokerRecord',
  apiKey: 8,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    id: field.int32({ versions: '0+', entityType: 'brokerId' }),
    epoch: field.int64({ versions: '0+' }),
  },
});

/**
 * The decoded fields of a {@link UnfenceBrokerRecord} (Kafka's generated `UnfenceBrokerRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type UnfenceBrokerRecordData = MessageData<typeof UnfenceBrokerRecord>;
