import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';
import { nodeEndpointStruct } from './common-structs.js';

const PartitionData = struct('PartitionData', {
  partitionIndex: field.int32({ versions: '0+' }),
  errorCode: field.int16({ versions: '0+' }),
  leaderId: field.int32({ versions: '0+', entityType: 'brokerId' }),
  leaderEpoch: field.int32({ versions: '0+' }),
});

const TopicData = struct('TopicData', {
  topicName: field.string({ versions: '0+', entityType: 'topicName' }),
  partitions: field.array(PartitionData, { versions: '0+' }),
});

/**
 * BeginQuorumEpoch's response (api key 53): v0 is not flexible; v1 is, and adds the tagged
 * `nodeEndpoints` so a voter can tell the sender about a newer leader.
 */
export const BeginQuorumEpochResponse = defineMessage({
  name: 'BeginQuorumEpochResponse',
  apiKey: 53,
  validVersions: '0-1',
  flexibleVersions: '1+',
  fields: {
    errorCode: field.int16({ versions: '0+' }),
    topics: field.array(TopicData, { versions: '0+' }),
    nodeEndpoints: field.array(nodeEndpointStruct('1+'), { versions: '1+', taggedVersions: '1+', tag: 0 }),
  },
});

/**
 * A BeginQuorumEpoch response's body (Kafka's `BeginQuorumEpochResponseData`): top-level and
 * per-partition error codes with the leader id and epoch the voter knows; v1 adds the tagged
 * `nodeEndpoints`.
 */
export type BeginQuorumEpochResponseData = MessageData<typeof BeginQuorumEpochResponse>;
