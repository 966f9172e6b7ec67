import { defineMessage, field, type MessageData, struct } from '@kraft/protocol';

const BrokerEndpoint = struct('BrokerEndpoint', {
  name: field.string({ versions: '0+', mapKey: true }),
  host: field.string({ versions: '0+' }),
  port: field.uint16({ versions: '0+' }),
  securityProtocol: field.int16({ versions: '0+' }),
});

const BrokerFeature = struct('BrokerFeature', {
  name: field.string({ versions: '0+', mapKey: true }),
  minSupportedVersion: field.int16({ versions: '0+' }),
  maxSupportedVersion: field.int16({ versions: '0+' }),
});

/** Metadata record type 0: a broker's registration. */
export const RegisterBrokerRecord = defineMessage({
  name: 'RegisterBrokerRecord',
  apiKey: 0,
  validVersions: '0-4',
  flexibleVersions: '0+',
  fields: {
    brokerId: field.int32({ versions: '0+', entityType: 'brokerId' }),
    isMigratingZkBroker: field.bool({ versions: '2+', default: false }),
    incarnationId: field.uuid({ versions: '0+' }),
    brokerEpoch: field.int64({ versions: '0+' }),
    endPoints: field.array(BrokerEndpoint, { versions: '0+' }),
    features: field.array(BrokerFeature, { versions: '0+' }),
    rack: field.string({ versions: '0+', nullableVersions: '0+' }),
    fenced: field.bool({ versions: '0+', default: true }),
    inControlledShutdown: field.bool({ versions: '1+', default: false }),
    logDirs: field.array('uuid', { versions: '3+', taggedVersions: '3+', tag: 0 }),
    cordonedLogDirs: field.array('uuid', {
      versions: '4+',
      taggedVersions: '4+',
      tag: 1,
      nullableVersions: '4+',
      default: null,
    }),
  },
});

/**
 * The decoded fields of a {@link RegisterBrokerRecord} (Kafka's generated `RegisterBrokerRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type RegisterBrokerRecordData = MessageData<typeof RegisterBrokerRecord>;
