import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';
import { nodeEndpointStruct } from './common-structs.js';

const PartitionData = struct('PartitionData', {
  partitionIndex: field.int32({ versions: '0+' }),
  errorCode: field.int16({ versions: '0+' }),
  leaderId: field.int32({ versions: '0+', entityType: 'brokerId' }),
  leaderEpoch: field.int32({ versions: '0+' }),
  voteGranted: field.bool({ versions: '0+' }),
});

const TopicData = struct('TopicData', {
  topicName: field.string({ versions: '0+', entityType: 'topicName' }),
  partitions: field.array(PartitionData, { versions: '0+' }),
});

/**
 * Vote's response (api key 52, versions 0-2, all flexible): v1 adds the tagged `nodeEndpoints`
 * of the leader the voter knows.
 */
export const VoteResponse = defineMessage({
  name: 'VoteResponse',
  apiKey: 52,
  validVersions: '0-2',
  flexibleVersions: '0+',
  fields: {
    errorCode: field.int16({ versions: '0+' }),
    topics: field.array(TopicData, { versions: '0+' }),
    nodeEndpoints: field.array(nodeEndpointStruct('1+'), { versions: '1+', taggedVersions: '1+', tag: 0 }),
  },
});

/**
 * A Vote response's body (Kafka's `VoteResponseData`): whether the vote was granted, with the
 * leader id and epoch the voter knows; v1 adds the tagged `nodeEndpoints`.
 */
export type VoteResponseData = MessageData<typeof VoteResponse>;
