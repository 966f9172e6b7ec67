import { defineMessage, field, type MessageData } from '@kraft/protocol';

/**
 * Metadata record type 17: a change to a broker's registration. The tagged fields default to
 * "no change": `fenced` is -1 unfenced, 0 unchanged, 1 fenced; `inControlledShutdown` 1 entered.
 */
export const BrokerRegistrationChangeRecord = defineMessage({
  name: 'BrokerRegistrationChangeRecord',
  apiKey: 17,
  validVersions: '0-3',
  flexibleVersions: '0+',
  fields: {
    brokerId: field.int32({ versions: '0+', entityType: 'brokerId' }),
    brokerEpoch: field.int64({ versions: '0+' }),
    fenced: field.int8({ versions: '0+', taggedVersions: '0+', tag: 0 }),
    inControlledShutdown: field.int8({ versions: '1+', taggedVersions: '1+', tag: 1 }),
    logDirs: field.array('uuid', { versions: '2+', taggedVersions: '2+', tag: 2 }),
    cordonedLogDirs: field.array('uuid', {
      versions: '3+',
      taggedVersions: '3+',
      tag: 3,
      nullableVersions: '3+',
      default: null,
    }),
  },
});

/**
 * The decoded fields of a {@link BrokerRegistrationChangeRecord} (Kafka's generated `BrokerRegistrationChangeRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type BrokerRegistrationChangeRecordData = MessageData<typeof BrokerRegistrationChangeRecord>;
