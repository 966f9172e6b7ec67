import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

const EpochEndOffset = struct('EpochEndOffset', {
  epoch: field.int32({ versions: '12+', default: -1 }),
  endOffset: field.int64({ versions: '12+', default: -1n }),
});

const LeaderIdAndEpoch = struct('LeaderIdAndEpoch', {
  leaderId: field.int32({ versions: '12+', default: -1, entityType: 'brokerId' }),
  leaderEpoch: field.int32({ versions: '12+', default: -1 }),
});

const SnapshotId = struct('SnapshotId', {
  endOffset: field.int64({ versions: '0+', default: -1n }),
  epoch: field.int32({ versions: '0+', default: -1 }),
});

const AbortedTransaction = struct('AbortedTransaction', {
  producerId: field.int64({ versions: '4+', entityType: 'producerId' }),
  firstOffset: field.int64({ versions: '4+' }),
});

const PartitionData = struct('PartitionData', {
  partitionIndex: field.int32({ versions: '0+' }),
  errorCode: field.int16({ versions: '0+' }),
  highWatermark: field.int64({ versions: '0+' }),
  lastStableOffset: field.int64({ versions: '4+', default: -1n, ignorable: true }),
  logStartOffset: field.int64({ versions: '5+', default: -1n, ignorable: true }),
  divergingEpoch: field.struct(EpochEndOffset, { versions: '12+', taggedVersions: '12+', tag: 0 }),
  currentLeader: field.struct(LeaderIdAndEpoch, { versions: '12+', taggedVersions: '12+', tag: 1 }),
  snapshotId: field.struct(SnapshotId, { versions: '12+', taggedVersions: '12+', tag: 2 }),
  abortedTransactions: field.array(AbortedTransaction, {
    versions: '4+',
    nullableVersions: '4+',
    ignorable: true,
  }),
  preferredReadReplica: field.int32({ versions: '11+', default: -1, entityType: 'brokerId' }),
  /** Record batches as a zero-copy view of the response. */
  records: field.records({ versions: '0+', nullableVersions: '0+' }),
});

const FetchableTopicResponse = struct('FetchableTopicResponse', {
  topic: field.string({ versions: '0-12', ignorable: true, entityType: 'topicName' }),
  topicId: field.uuid({ versions: '13+', ignorable: true }),
  partitions: field.array(PartitionData, { versions: '0+' }),
});

const NodeEndpoint = struct('NodeEndpoint', {
  nodeId: field.int32({ versions: '16+', entityType: 'brokerId', mapKey: true }),
  host: field.string({ versions: '16+' }),
  port: field.int32({ versions: '16+' }),
  rack: field.string({ versions: '16+', nullableVersions: '16+', default: null }),
});

/**
 * Fetch's response (api key 1), versions 4-18, flexible from 12 (where KRaft's tagged
 * `divergingEpoch`, `currentLeader` and `snapshotId` live). Its `records` are a zero-copy view of
 * the response on read; `writeChunks` sends large ones as their own chunks, uncopied.
 */
export const FetchResponse = defineMessage({
  name: 'FetchResponse',
  apiKey: 1,
  validVersions: '4-18',
  flexibleVersions: '12+',
  fields: {
    throttleTimeMs: field.int32({ versions: '1+', ignorable: true }),
    errorCode: field.int16({ versions: '7+', ignorable: true }),
    sessionId: field.int32({ versions: '7+', default: 0 }),
    responses: field.array(FetchableTopicResponse, { versions: '0+' }),
    nodeEndpoints: field.array(NodeEndpoint, { versions: '16+', taggedVersions: '16+', tag: 0 }),
  },
});

/**
 * A Fetch response's body (Kafka's `FetchResponseData`): per partition the high watermark, the
 * records, or the diverging epoch / snapshot id the follower must act on; v16 adds the leader's
 * tagged `nodeEndpoints`.
 */
export type FetchResponseData = MessageData<typeof FetchResponse>;
/** One topic of a Fetch response (Kafka's `FetchableTopicResponse`): by name below v13, by id from v13. */
export type FetchResponseTopic = FetchResponseData['responses'][number];
/**
 * One partition of a Fetch response (Kafka's `PartitionData`): error code, high watermark,
 * records, and the tagged `divergingEpoch`, `currentLeader` and `snapshotId` (v12+).
 */
export type FetchResponsePartition = FetchResponseTopic['partitions'][number];
