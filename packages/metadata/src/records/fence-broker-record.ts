import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 7: a broker fenced (removed from every ISR); superseded by BrokerRegistrationChange. */
export const FenceBrokerRecord = defineMessage({
  name: 'FenceBrokerRecord',
  apiKey: 7,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    id: field.int32({ versions: '0+', entityType: 'brokerId' }),
    epoch: field.int64({ versions: '0+' }),
  },
});

/**
 * The decoded fields of a {@link FenceBrokerRecord} (Kafka's generated `FenceBrokerRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type FenceBrokerRecordData = MessageData<typeof FenceBrokerRecord>;
