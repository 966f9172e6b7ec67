import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

const ReplicaState = struct('ReplicaState', {
  replicaId: field.int32({ versions: '15+', default: -1, entityType: 'brokerId' }),
  replicaEpoch: field.int64({ versions: '15+', default: -1n }),
});

const FetchPartition = struct('FetchPartition', {
  partition: field.int32({ versions: '0+' }),
  currentLeaderEpoch: field.int32({ versions: '9+', default: -1, ignorable: true }),
  fetchOffset: field.int64({ versions: '0+' }),
  lastFetchedEpoch: field.int32({ versions: '12+', default: -1 }),
  logStartOffset: field.int64({ versions: '5+', default: -1n, ignorable: true }),
  partitionMaxBytes: field.int32({ versions: '0+' }),
  replicaDirectoryId: field.uuid({ versions: '17+', taggedVersions: '17+', tag: 0, ignorable: true }),
  highWatermark: field.int64({
    versions: '18+',
    taggedVersions: '18+',
    tag: 1,
    default: 0x7fffffffffffffffn,
    ignorable: true,
  }),
});

const FetchTopic = struct('FetchTopic', {
  topic: field.string({ versions: '0-12', ignorable: true, entityType: 'topicName' }),
  topicId: field.uuid({ versions: '13+', ignorable: true }),
  partitions: field.array(FetchPartition, { versions: '0+' }),
});

const ForgottenTopic = struct('ForgottenTopic', {
  topic: field.string({ versions: '7-12', ignorable: true, entityType: 'topicName' }),
  topicId: field.uuid({ versions: '13+', ignorable: true }),
  partitions: field.array('int32', { versions: '7+' }),
});

/**
 * Fetch (api key 1), versions 4-18. The raft follower sends v13+ with the metadata topic id;
 * from v15 the replica id moves from `replicaId` into the tagged `replicaState`.
 */
export const FetchRequest = defineMessage({
  name: 'FetchRequest',
  apiKey: 1,
  validVersions: '4-18',
  flexibleVersions: '12+',
  fields: {
    clusterId: field.string({
      versions: '12+',
      nullableVersions: '12+',
      default: null,
      taggedVersions: '12+',
      tag: 0,
      ignorable: true,
    }),
    replicaId: field.int32({ versions: '0-14', default: -1, entityType: 'brokerId' }),
    replicaState: field.struct(ReplicaState, { versions: '15+', taggedVersions: '15+', tag: 1 }),
    maxWaitMs: field.int32({ versions: '0+' }),
    minBytes: field.int32({ versions: '0+' }),
    maxBytes: field.int32({ versions: '3+', default: 0x7fffffff, ignorable: true }),
    isolationLevel: field.int8({ versions: '4+', default: 0, ignorable: true }),
    sessionId: field.int32({ versions: '7+', default: 0, ignorable: true }),
    sessionEpoch: field.int32({ versions: '7+', default: -1, ignorable: true }),
    topics: field.array(FetchTopic, { versions: '0+' }),
    forgottenTopicsData: field.array(ForgottenTopic, { versions: '7+' }),
    rackId: field.string({ versions: '11+', default: '', ignorable: true }),
  },
});

/**
 * A Fetch request's body (Kafka's `FetchRequestData`): the follower's wait and size bounds and,
 * per partition, its fetch offset and last fetched epoch, which the leader checks for divergence.
 */
export type FetchRequestData = MessageData<typeof FetchRequest>;
/** One topic of a Fetch request (Kafka's `FetchTopic`): by name below v13, by topic id from v13. */
export type FetchRequestTopic = FetchRequestData['topics'][number];
/**
 * One partition of a Fetch request (Kafka's `FetchPartition`): `fetchOffset`, `lastFetchedEpoch`
 * (v12+, what KRaft's divergence check uses) and `partitionMaxBytes`.
 */
export type FetchRequestPartition = FetchRequestTopic['partitions'][number];
