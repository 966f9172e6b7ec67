import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 1: a broker's registration removed (for the epoch it was registered with). */
export const UnregisterBrokerRecord = defineMessage({
  name: 'UnregisterBrokerRecord',
  apiKey: 1,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    brokerId: field.int32({ versions: '0+', entityType: 'brokerId' }),
    brokerEpoch: field.int64({ versions: '0+' }),
  },
});

/**
 * The decoded fields of a {@link UnregisterBrokerRecord} (Kafka's generated `UnregisterBrokerRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type UnregisterBrokerRecordData = MessageData<typeof UnregisterBrokerRecord>;
