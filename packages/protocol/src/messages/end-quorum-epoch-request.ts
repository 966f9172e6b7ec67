import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';
import { listenerEndpointStruct } from './common-structs.js';

const ReplicaInfo = struct('ReplicaInfo', {
  candidateId: field.int32({ versions: '1+', entityType: 'brokerId' }),
  candidateDirectoryId: field.uuid({ versions: '1+' }),
});

const PartitionData = struct('PartitionData', {
  partitionIndex: field.int32({ versions: '0+' }),
  leaderId: field.int32({ versions: '0+', entityType: 'brokerId' }),
  leaderEpoch: field.int32({ versions: '0+' }),
  preferredSuccessors: field.array('int32', { versions: '0', ignorable: true }),
  preferredCandidates: field.array(ReplicaInfo, { versions: '1+', ignorable: true }),
});

const TopicData = struct('TopicData', {
  topicName: field.string({ versions: '0+', entityType: 'topicName' }),
  partitions: field.array(PartitionData, { versions: '0+' }),
});

/** EndQuorumEpoch (api key 54): v0 PreferredSuccessors ids, v1 PreferredCandidates voter keys. */
export const EndQuorumEpochRequest = defineMessage({
  name: 'EndQuorumEpochRequest',
  apiKey: 54,
  validVersions: '0-1',
  flexibleVersions: '1+',
  fields: {
    clusterId: field.string({ versions: '0+', nullableVersions: '0+', default: null }),
    topics: field.array(TopicData, { versions: '0+' }),
    leaderEndpoints: field.array(listenerEndpointStruct('LeaderEndpoint', '1+'), {
      versions: '1+',
      ignorable: true,
    }),
  },
});

/**
 * An EndQuorumEpoch request's body (Kafka's `EndQuorumEpochRequestData`): a resigning leader's id
 * and epoch and the voters it prefers as successors, most caught up first.
 */
export type EndQuorumEpochRequestData = MessageData<typeof EndQuorumEpochRequest>;
