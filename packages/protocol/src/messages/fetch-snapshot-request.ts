import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

const SnapshotId = struct('SnapshotId', {
  endOffset: field.int64({ versions: '0+' }),
  epoch: field.int32({ versions: '0+' }),
});

const PartitionSnapshot = struct('PartitionSnapshot', {
  partition: field.int32({ versions: '0+' }),
  currentLeaderEpoch: field.int32({ versions: '0+' }),
  snapshotId: field.struct(SnapshotId, { versions: '0+' }),
  position: field.int64({ versions: '0+' }),
  replicaDirectoryId: field.uuid({ versions: '1+', taggedVersions: '1+', tag: 0, ignorable: true }),
});

const TopicSnapshot = struct('TopicSnapshot', {
  name: field.string({ versions: '0+', entityType: 'topicName' }),
  partitions: field.array(PartitionSnapshot, { versions: '0+' }),
});

/** FetchSnapshot (api key 59). ClusterId is a tagged field here, unlike in Vote. */
export const FetchSnapshotRequest = defineMessage({
  name: 'FetchSnapshotRequest',
  apiKey: 59,
  validVersions: '0-1',
  flexibleVersions: '0+',
  fields: {
    clusterId: field.string({
      versions: '0+',
      nullableVersions: '0+',
      default: null,
      taggedVersions: '0+',
      tag: 0,
    }),
    replicaId: field.int32({ versions: '0+', default: -1, entityType: 'brokerId' }),
    maxBytes: field.int32({ versions: '0+', default: 0x7fffffff }),
    topics: field.array(TopicSnapshot, { versions: '0+' }),
  },
});

/**
 * A FetchSnapshot request's body (Kafka's `FetchSnapshotRequestData`): the snapshot id and the
 * byte position to continue from, and the most bytes the follower takes.
 */
export type FetchSnapshotRequestData = MessageData<typeof FetchSnapshotRequest>;
