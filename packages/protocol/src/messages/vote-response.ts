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

export type VoteResponseData = MessageData<typeof VoteResponse>;
