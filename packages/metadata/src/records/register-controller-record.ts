import { defineMessage, field, type MessageData, struct } from '@kraft/protocol';

const ControllerEndpoint = struct('ControllerEndpoint', {
  name: field.string({ versions: '0+', mapKey: true }),
  host: field.string({ versions: '0+' }),
  port: field.uint16({ versions: '0+' }),
  securityProtocol: field.int16({ versions: '0+' }),
});

const ControllerFeature = struct('ControllerFeature', {
  name: field.string({ versions: '0+', mapKey: true }),
  minSupportedVersion: field.int16({ versions: '0+' }),
  maxSupportedVersion: field.int16({ versions: '0+' }),
});

/** Metadata record type 27: a controller's registration. */
export const RegisterControllerRecord = defineMessage({
  name: 'RegisterControllerRecord',
  apiKey: 27,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    controllerId: field.int32({ versions: '0+' }),
    incarnationId: field.uuid({ versions: '0+' }),
    zkMigrationReady: field.bool({ versions: '0+' }),
    endPoints: field.array(ControllerEndpoint, { versions: '0+' }),
    features: field.array(ControllerFeature, { versions: '0+' }),
  },
});

/**
 * The decoded fields of a {@link RegisterControllerRecord} (Kafka's generated `RegisterControllerRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type RegisterControllerRecordData = MessageData<typeof RegisterControllerRecord>;
