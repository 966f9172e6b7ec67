import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

const PartitionData = struct('PartitionData', {
  partitionIndex: field.int32({ versions: '0+' }),
  replicaEpoch: field.int32({ versions: '0+' }),
  replicaId: field.int32({ versions: '0+', entityType: 'brokerId' }),
  replicaDirectoryId: field.uuid({ versions: '1+', ignorable: true }),
  voterDirectoryId: field.uuid({ versions: '1+', ignorable: true }),
  lastOffsetEpoch: field.int32({ versions: '0+' }),
  lastOffset: field.int64({ versions: '0+' }),
  preVote: field.bool({ versions: '2+' }),
});

const TopicData = struct('TopicData', {
  topicName: field.string({ versions: '0+', entityType: 'topicName' }),
  partitions: field.array(PartitionData, { versions: '0+' }),
});

/** Vote (api key 52): v1 adds voter keys (KIP-853), v2 adds PreVote (KIP-996). */
export const VoteRequest = defineMessage({
  name: 'VoteRequest',
  apiKey: 52,
  validVersions: '0-2',
  flexibleVersions: '0+',
  fields: {
    clusterId: field.string({ versions: '0+', nullableVersions: '0+', default: null }),
    voterId: field.int32({ versions: '1+', ignorable: true, default: -1, entityType: 'brokerId' }),
    topics: field.array(TopicData, { versions: '0+' }),
  },
});

/**
 * A Vote request's body (Kafka's `VoteRequestData`): the candidate's id and epoch and, per
 * partition, its last offset and epoch, by which voters judge whether its log is up to date.
 */
export type VoteRequestData = MessageData<typeof VoteRequest>;
/**
 * One partition of a Vote request (Kafka's `PartitionData`): the candidate's epoch and id, its
 * last offset and epoch, the voter keys (v1+) and whether this is a PreVote (v2+).
 */
export type VoteRequestPartition = VoteRequestData['topics'][number]['partitions'][number];
