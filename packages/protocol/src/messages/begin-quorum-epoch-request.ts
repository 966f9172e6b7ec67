import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';
import { listenerEndpointStruct } from './common-structs.js';

const PartitionData = struct('PartitionData', {
  partitionIndex: field.int32({ versions: '0+' }),
  voterDirectoryId: field.uuid({ versions: '1+', ignorable: true }),
  leaderId: field.int32({ versions: '0+', entityType: 'brokerId' }),
  leaderEpoch: field.int32({ versions: '0+' }),
});

const TopicData = struct('TopicData', {
  topicName: field.string({ versions: '0+', entityType: 'topicName' }),
  partitions: field.array(PartitionData, { versions: '0+' }),
});

/** BeginQuorumEpoch (api key 53). v0 is not flexible; v1 is. */
export const BeginQuorumEpochRequest = defineMessage({
  name: 'BeginQuorumEpochRequest',
  apiKey: 53,
  validVersions: '0-1',
  flexibleVersions: '1+',
  fields: {
    clusterId: field.string({ versions: '0+', nullableVersions: '0+', default: null }),
    voterId: field.int32({ versions: '1+', ignorable: true, default: -1, entityType: 'brokerId' }),
    topics: field.array(TopicData, { versions: '0+' }),
    leaderEndpoints: field.array(listenerEndpointStruct('LeaderEndpoint', '1+'), {
      versions: '1+',
      ignorable: true,
    }),
  },
});

/**
 * A BeginQuorumEpoch request's body (Kafka's `BeginQuorumEpochRequestData`): a new leader's id
 * and epoch, sent to every voter once it won the election; v1 adds the receiving voter's
 * key and the leader's endpoints.
 */
export type BeginQuorumEpochRequestData = MessageData<typeof BeginQuorumEpochRequest>;
