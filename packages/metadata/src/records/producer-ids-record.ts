import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 15: a block of producer ids handed to a broker. */
export const ProducerIdsRecord = defineMessage({
  name: 'ProducerIdsRecord',
  apiKey: 15,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    brokerId: field.int32({ versions: '0+', entityType: 'brokerId' }),
    brokerEpoch: field.int64({ versions: '0+', default: -1n }),
    nextProducerId: field.int64({ versions: '0+' }),
  },
});

/**
 * The decoded fields of a {@link ProducerIdsRecord} (Kafka's generated `ProducerIdsRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type ProducerIdsRecordData = MessageData<typeof ProducerIdsRecord>;
