import { defineMessage, field, type MessageData } from '@kraft/protocol';

/**
 * Metadata record type 21: the ZooKeeper migration state. Kafka's file is ZkMigrationRecord.json
 * but the message is named ZkMigrationStateRecord, as here.
 */
export const ZkMigrationStateRecord = defineMessage({
  name: 'ZkMigrationStateRecord',
  apiKey: 21,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    zkMigrationState: field.int8({ versions: '0+' }),
  },
});

/**
 * The decoded fields of a {@link ZkMigrationStateRecord} (Kafka's generated `ZkMigrationStateRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type ZkMigrationStateRecordData = MessageData<typeof ZkMigrationStateRecord>;
