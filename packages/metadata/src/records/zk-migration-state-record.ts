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

export type ZkMigrationStateRecordData = MessageData<typeof ZkMigrationStateRecord>;
