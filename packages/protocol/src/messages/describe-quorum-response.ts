import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';
import { listenerEndpointStruct } from './common-structs.js';

const ReplicaState = struct('ReplicaState', {
  replicaId: field.int32({ versions: '0+', entityType: 'brokerId' }),
  replicaDirectoryId: field.uuid({ versions: '2+' }),
  logEndOffset: field.int64({ versions: '0+' }),
  lastFetchTimestamp: field.int64({ versions: '1+', ignorable: true, default: -1n }),
  lastCaughtUpTimestamp: field.int64({ versions: '1+', ignorable: true, default: -1n }),
});

const PartitionData = struct('PartitionData', {
  partitionIndex: field.int32({ versions: '0+' }),
  errorCode: field.int16({ versions: '0+' }),
  errorMessage: field.string({ versions: '2+', nullableVersions: '2+', ignorable: true }),
  leaderId: field.int32({ versions: '0+', entityType: 'brokerId' }),
  leaderEpoch: field.int32({ versions: '0+' }),
  highWatermark: field.int64({ versions: '0+' }),
  currentVoters: field.array(ReplicaState, { versions: '0+' }),
  observers: field.array(ReplicaState, { versions: '0+' }),
});

const TopicData = struct('TopicData', {
  topicName: field.string({ versions: '0+', entityType: 'topicName' }),
  partitions: field.array(PartitionData, { versions: '0+' }),
});

const Node = struct('Node', {
  nodeId: field.int32({ versions: '2+', entityType: 'brokerId', mapKey: true }),
  listeners: field.array(listenerEndpointStruct('Listener', '2+'), { versions: '2+' }),
});

/**
 * DescribeQuorum's response (api key 55, versions 0-2): what `kafka-metadata-quorum describe`
 * prints.
 */
export const DescribeQuorumResponse = defineMessage({
  name: 'DescribeQuorumResponse',
  apiKey: 55,
  validVersions: '0-2',
  flexibleVersions: '0+',
  fields: {
    errorCode: field.int16({ versions: '0+' }),
    errorMessage: field.string({ versions: '2+', nullableVersions: '2+', ignorable: true }),
    topics: field.array(TopicData, { versions: '0+' }),
    nodes: field.array(Node, { versions: '2+' }),
  },
});

/**
 * A DescribeQuorum response's body (Kafka's `DescribeQuorumResponseData`): per partition the
 * leader, epoch, high watermark and each voter's and observer's log end offset and fetch times;
 * v2 adds directory ids and the nodes' listeners.
 */
export type DescribeQuorumResponseData = MessageData<typeof DescribeQuorumResponse>;
