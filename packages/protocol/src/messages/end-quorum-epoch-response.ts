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
 * EndQuorumEpoch's response (api key 54): v0 is not flexible; v1 is, and adds the tagged
 * `nodeEndpoints`.
 */
export const EndQuorumEpochResponse = defineMessage({
  name: 'EndQuorumEpochResponse',
  apiKey: 54,
  validVersions: '0-1',
  flexibleVersions: '1+',
  fields: {
    errorCode: field.int16({ versions: '0+' }),
    topics: field.array(TopicData, { versions: '0+' }),
    nodeEndpoints: field.array(nodeEndpointStruct('1+'), { versions: '1+', taggedVersions: '1+', tag: 0 }),
  },
});

/**
 * An EndQuorumEpoch response's body (Kafka's `EndQuorumEpochResponseData`): error codes and the
 * leader id and epoch the voter knows; v1 adds the tagged `nodeEndpoints`.
 */
export type EndQuorumEpochResponseData = MessageData<typeof EndQuorumEpochResponse>;
