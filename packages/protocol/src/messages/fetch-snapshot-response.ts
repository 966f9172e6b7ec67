import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';
import { nodeEndpointStruct } from './common-structs.js';

const SnapshotId = struct('SnapshotId', {
  endOffset: field.int64({ versions: '0+' }),
  epoch: field.int32({ versions: '0+' }),
});

const LeaderIdAndEpoch = struct('LeaderIdAndEpoch', {
  leaderId: field.int32({ versions: '0+', entityType: 'brokerId' }),
  leaderEpoch: field.int32({ versions: '0+' }),
});

const PartitionSnapshot = struct('PartitionSnapshot', {
  index: field.int32({ versions: '0+' }),
  errorCode: field.int16({ versions: '0+' }),
  snapshotId: field.struct(SnapshotId, { versions: '0+' }),
  currentLeader: field.struct(LeaderIdAndEpoch, { versions: '0+', taggedVersions: '0+', tag: 0 }),
  size: field.int64({ versions: '0+' }),
  position: field.int64({ versions: '0+' }),
  /** Raw snapshot file bytes from `position`; not aligned to batches. */
  unalignedRecords: field.records({ versions: '0+' }),
});

const TopicSnapshot = struct('TopicSnapshot', {
  name: field.string({ versions: '0+', entityType: 'topicName' }),
  partitions: field.array(PartitionSnapshot, { versions: '0+' }),
});

/**
 * FetchSnapshot's response (api key 59, versions 0-1): a chunk of a snapshot file, not aligned
 * to batches; v1 adds the tagged `nodeEndpoints`.
 */
export const FetchSnapshotResponse = defineMessage({
  name: 'FetchSnapshotResponse',
  apiKey: 59,
  validVersions: '0-1',
  flexibleVersions: '0+',
  fields: {
    throttleTimeMs: field.int32({ versions: '0+', ignorable: true }),
    errorCode: field.int16({ versions: '0+' }),
    topics: field.array(TopicSnapshot, { versions: '0+' }),
    nodeEndpoints: field.array(nodeEndpointStruct('1+'), { versions: '1+', taggedVersions: '1+', tag: 0 }),
  },
});

/**
 * A FetchSnapshot response's body (Kafka's `FetchSnapshotResponseData`): per partition the
 * snapshot id, its total size, the position of this chunk and the chunk's raw bytes.
 */
export type FetchSnapshotResponseData = MessageData<typeof FetchSnapshotResponse>;
