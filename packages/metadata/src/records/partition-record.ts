import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 3: a partition's replicas, ISR and leader. */
export const PartitionRecord = defineMessage({
  name: 'PartitionRecord',
  apiKey: 3,
  validVersions: '0-2',
  flexibleVersions: '0+',
  fields: {
    partitionId: field.int32({ versions: '0+', default: -1 }),
    topicId: field.uuid({ versions: '0+' }),
    replicas: field.array('int32', { versions: '0+', entityType: 'brokerId' }),
    isr: field.array('int32', { versions: '0+' }),
    removingReplicas: field.array('int32', { versions: '0+', entityType: 'brokerId' }),
    addingReplicas: field.array('int32', { versions: '0+', entityType: 'brokerId' }),
    leader: field.int32({ versions: '0+', default: -1, entityType: 'brokerId' }),
    leaderRecoveryState: field.int8({ versions: '0+', default: 0, taggedVersions: '0+', tag: 0 }),
    leaderEpoch: field.int32({ versions: '0+', default: -1 }),
    partitionEpoch: field.int32({ versions: '0+', default: -1 }),
    directories: field.array('uuid', { versions: '1+' }),
    eligibleLeaderReplicas: field.array('int32', {
      versions: '2+',
      entityType: 'brokerId',
      nullableVersions: '2+',
      default: null,
      taggedVersions: '2+',
      tag: 1,
    }),
    lastKnownElr: field.array('int32', {
      versions: '2+',
      entityType: 'brokerId',
      nullableVersions: '2+',
      default: null,
      taggedVersions: '2+',
      tag: 2,
    }),
  },
});

/**
 * The decoded fields of a {@link PartitionRecord} (Kafka's generated `PartitionRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type PartitionRecordData = MessageData<typeof PartitionRecord>;
