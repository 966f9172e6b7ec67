import { defineMessage, field, type MessageData } from '@kraft/protocol';

/**
 * Metadata record type 5: a change to one partition. Every changed part is a tagged field whose
 * default means "unchanged" (null lists, leader -2, recovery state -1), so a record carries only
 * what changed.
 */
export const PartitionChangeRecord = defineMessage({
  name: 'PartitionChangeRecord',
  apiKey: 5,
  validVersions: '0-2',
  flexibleVersions: '0+',
  fields: {
    partitionId: field.int32({ versions: '0+', default: -1 }),
    topicId: field.uuid({ versions: '0+' }),
    isr: field.array('int32', {
      versions: '0+',
      entityType: 'brokerId',
      nullableVersions: '0+',
      default: null,
      taggedVersions: '0+',
      tag: 0,
    }),
    leader: field.int32({
      versions: '0+',
      default: -2,
      entityType: 'brokerId',
      taggedVersions: '0+',
      tag: 1,
    }),
    replicas: field.array('int32', {
      versions: '0+',
      entityType: 'brokerId',
      nullableVersions: '0+',
      default: null,
      taggedVersions: '0+',
      tag: 2,
    }),
    removingReplicas: field.array('int32', {
      versions: '0+',
      entityType: 'brokerId',
      nullableVersions: '0+',
      default: null,
      taggedVersions: '0+',
      tag: 3,
    }),
    addingReplicas: field.array('int32', {
      versions: '0+',
      entityType: 'brokerId',
      nullableVersions: '0+',
      default: null,
      taggedVersions: '0+',
      tag: 4,
    }),
    leaderRecoveryState: field.int8({ versions: '0+', default: -1, taggedVersions: '0+', tag: 5 }),
    directories: field.array('uuid', {
      versions: '1+',
      nullableVersions: '1+',
      default: null,
      taggedVersions: '1+',
      tag: 8,
    }),
    eligibleLeaderReplicas: field.array('int32', {
      versions: '2+',
      entityType: 'brokerId',
      nullableVersions: '2+',
      default: null,
      taggedVersions: '2+',
      tag: 6,
    }),
    lastKnownElr: field.array('int32', {
      versions: '2+',
      entityType: 'brokerId',
      nullableVersions: '2+',
      default: null,
      taggedVersions: '2+',
      tag: 7,
    }),
  },
});

/**
 * The decoded fields of a {@link PartitionChangeRecord} (Kafka's generated `PartitionChangeRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type PartitionChangeRecordData = MessageData<typeof PartitionChangeRecord>;
