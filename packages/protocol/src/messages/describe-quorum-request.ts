import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

const PartitionData = struct('PartitionData', {
  partitionIndex: field.int32({ versions: '0+' }),
});

const TopicData = struct('TopicData', {
  topicName: field.string({ versions: '0+', entityType: 'topicName' }),
  partitions: field.array(PartitionData, { versions: '0+' }),
});

/** DescribeQuorum (api key 55). */
export const DescribeQuorumRequest = defineMessage({
  name: 'DescribeQuorumRequest',
  apiKey: 55,
  validVersions: '0-2',
  flexibleVersions: '0+',
  fields: {
    topics: field.array(TopicData, { versions: '0+' }),
  },
});

/**
 * A DescribeQuorum request's body (Kafka's `DescribeQuorumRequestData`): the topic partitions
 * (in KRaft, `__cluster_metadata-0`) to describe.
 */
export type DescribeQuorumRequestData = MessageData<typeof DescribeQuorumRequest>;
