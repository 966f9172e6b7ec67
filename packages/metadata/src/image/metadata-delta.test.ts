import { describe, expect, it } from 'vitest';
import {
  latest,
  partitionRecord,
  registerBrokerRecord,
  uuidOf,
} from '../../test/support/random-metadata-records.js';
import { MetadataReplayError } from '../errors/metadata-replay-error.js';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { PartitionChangeRecordData } from '../records/partition-change-record.js';
import { MetadataDelta } from './metadata-delta.js';
import { MetadataImage } from './metadata-image.js';
import { MetadataProvenance } from './metadata-provenance.js';
import { partitionChange as partitionChangeOf } from './partition-registration.js';
import { DIRECTORY_MIGRATING, DIRECTORY_UNASSIGNED } from './topics-image.js';

function topicRecords(topicCount: number, partitionsPerTopic: number) {
  const records = [];
  for (let topic = 0; topic < topicCount; topic += 1) {
    const topicId = uuidOf(topic);
    records.push(latest(MetadataRecordType.TOPIC_RECORD, { name: `topic-${topic}`, topicId }));
    for (let partitionId = 0; partitionId < partitionsPerTopic; partitionId += 1) {
      records.push(
        latest(MetadataRecordType.PARTITION_RECORD, {
          partitionId,
          topicId,
          replicas: [0, 1, 2],
          isr: [0, 1, 2],
          removingReplicas: [],
          addingReplicas: [],
          leader: 0,
          leaderRecoveryState: 0,
          leaderEpoch: 0,
          partitionEpoch: 0,
          directories: [uuidOf(100), uuidOf(101), uuidOf(102)],
          eligibleLeaderReplicas: null,
          lastKnownElr: null,
        }),
      );
    }
  }
  return records;
}

function imageOf(records: ReturnType<typeof topicRecords>, base = MetadataImage.EMPTY): MetadataImage {
  const delta = new MetadataDelta(base);
  for (const record of records) delta.replay(record);
  return delta.apply(new MetadataProvenance(base.offset() + records.length, 1, 0, true));
}

function partitionChange(topic: number, partitionId: number, change: Partial<PartitionChangeRecordData>) {
  return latest(
    MetadataRecordType.PARTITION_CHANGE_RECORD,
    partitionChangeOf(uuidOf(topic), partitionId, change),
  );
}

/** Topic 0 and its partitions 0 and 1, as records. */
function topicWithTwoPartitions() {
  return {
    topic: latest(MetadataRecordType.TOPIC_RECORD, { name: 'topic-0', topicId: uuidOf(0) }),
    partition0: partitionRecord(uuidOf(0), 0),
    partition1: partitionRecord(uuidOf(0), 1),
  };
}

describe('MetadataDelta', () => {
  it('shares every untouched topic and part with the previous image, which stays as it was', () => {
    const before = imageOf(topicRecords(200, 10));
    const after = imageOf([partitionChange(7, 3, { leader: 1, isr: [1, 2] })], before);
    expect(after.topics.getPartition(uuidOf(7), 3)).toMatchObject({
      leader: 1,
      leaderEpoch: 1,
      partitionEpoch: 1,
    });
    expect(before.topics.getPartition(uuidOf(7), 3)).toMatchObject({
      leader: 0,
      leaderEpoch: 0,
      partitionEpoch: 0,
    });
    for (let topic = 0; topic < 200; topic += 1) {
      if (topic === 7) continue;
      expect(after.topics.getTopic(uuidOf(topic))).toBe(before.topics.getTopic(uuidOf(topic)));
    }
    expect(after.topics.getPartition(uuidOf(7), 4)).toBe(before.topics.getPartition(uuidOf(7), 4));
    expect(after.cluster).toBe(before.cluster);
    expect(after.configs).toBe(before.configs);
    expect(after.features).toBe(before.features);
  });

  it('a delta that replays nothing keeps every part of the image', () => {
    const before = imageOf(topicRecords(3, 2));
    const after = new MetadataDelta(before).apply(new MetadataProvenance(99, 2, 5, true));
    expect(after.topics).toBe(before.topics);
    expect(after.provenance.lastContainedOffset).toBe(99);
  });

  it('a partition change keeps the directories of kept replicas and leaves new ones unassigned', () => {
    const before = imageOf(topicRecords(1, 1));
    const after = imageOf([partitionChange(0, 0, { replicas: [2, 3, 0] })], before);
    const partition = after.topics.getPartition(uuidOf(0), 0)!;
    expect(partition.directories).toEqual([uuidOf(102), DIRECTORY_UNASSIGNED, uuidOf(100)]);
    expect(partition.leaderEpoch).toBe(0);
    expect(partition.partitionEpoch).toBe(1);
  });

  it('a version 0 PartitionRecord gets MIGRATING directories and empty ELRs', () => {
    const [topic, partition] = topicRecords(1, 1);
    const delta = new MetadataDelta(MetadataImage.EMPTY);
    delta.replay(topic!);
    const legacy = { ...partition!, version: 0, data: { ...(partition!.data as object), directories: [] } };
    delta.replay(legacy as typeof partition & object);
    const registration = delta.apply(MetadataProvenance.EMPTY).topics.getPartition(uuidOf(0), 0)!;
    expect(registration.directories).toEqual([DIRECTORY_MIGRATING, DIRECTORY_MIGRATING, DIRECTORY_MIGRATING]);
    expect(registration.eligibleLeaderReplicas).toEqual([]);
    expect(registration.lastKnownElr).toEqual([]);
  });

  it('removing a topic removes its partitions, its name and its configs', () => {
    const base = imageOf([
      ...topicRecords(2, 2),
      latest(MetadataRecordType.CONFIG_RECORD, {
        resourceType: 2,
        resourceName: 'topic-1',
        name: 'retention.ms',
        value: '5',
      }),
    ]);
    const after = imageOf([latest(MetadataRecordType.REMOVE_TOPIC_RECORD, { topicId: uuidOf(1) })], base);
    expect(after.topics.getTopic(uuidOf(1))).toBeUndefined();
    expect(after.topics.getTopicByName('topic-1')).toBeUndefined();
    expect(after.configs.configs(2, 'topic-1')).toBeUndefined();
    expect(after.topics.getTopicByName('topic-0')).toBe(base.topics.getTopicByName('topic-0'));
  });

  it('refuses records that name what the image does not hold', () => {
    const delta = new MetadataDelta(imageOf(topicRecords(1, 1)));
    expect(() => delta.replay(partitionChange(0, 9, { leader: 1 }))).toThrow(MetadataReplayError);
    expect(() => delta.replay(partitionChange(5, 0, { leader: 1 }))).toThrow(/no topic with id/);
    expect(() => delta.replay(latest(MetadataRecordType.FENCE_BROKER_RECORD, { id: 4, epoch: 1n }))).toThrow(
      /not registered/,
    );
    expect(() =>
      delta.replay(latest(MetadataRecordType.REMOVE_ACCESS_CONTROL_ENTRY_RECORD, { id: uuidOf(3) })),
    ).toThrow(/no ACL/);
  });

  it('forgets a removed topic, so a later partition of it is refused and not kept apart', () => {
    const { topic, partition0, partition1 } = topicWithTwoPartitions();
    const delta = new MetadataDelta(MetadataImage.EMPTY);
    delta.replay(topic);
    delta.replay(partition0);
    delta.replay(latest(MetadataRecordType.REMOVE_TOPIC_RECORD, { topicId: uuidOf(0) }));
    expect(() => delta.replay(partition1)).toThrow(/no topic with id/);
  });

  it('puts the partitions of a topic re-created under the same id into the new topic', () => {
    const { topic, partition0, partition1 } = topicWithTwoPartitions();
    const removal = latest(MetadataRecordType.REMOVE_TOPIC_RECORD, { topicId: uuidOf(0) });
    // Re-created after a removal, and re-created over itself with no removal between.
    for (const between of [[removal], []]) {
      const delta = new MetadataDelta(MetadataImage.EMPTY);
      for (const record of [topic, partition0, ...between, topic, partition1]) delta.replay(record);
      const partitions = delta.apply(MetadataProvenance.EMPTY).topics.getTopic(uuidOf(0))?.partitions;
      expect([...(partitions?.keys() ?? [])]).toEqual([1]);
    }
  });

  it('fences a broker only at its registered epoch', () => {
    const delta = new MetadataDelta(MetadataImage.EMPTY);
    delta.replay(registerBrokerRecord(1, { incarnationId: uuidOf(1), brokerEpoch: 7n }));
    expect(() => delta.replay(latest(MetadataRecordType.FENCE_BROKER_RECORD, { id: 1, epoch: 6n }))).toThrow(
      /registered at epoch 7/,
    );
    delta.replay(latest(MetadataRecordType.FENCE_BROKER_RECORD, { id: 1, epoch: 7n }));
    expect(delta.apply(MetadataProvenance.EMPTY).cluster.broker(1)?.fenced).toBe(true);
  });

  it('reports a metadata.version change only when the level differs', () => {
    const image = imageOf([
      latest(MetadataRecordType.FEATURE_LEVEL_RECORD, { name: 'metadata.version', featureLevel: 20 }),
    ]);
    const same = new MetadataDelta(image);
    same.replay(
      latest(MetadataRecordType.FEATURE_LEVEL_RECORD, { name: 'metadata.version', featureLevel: 20 }),
    );
    expect(same.metadataVersionChange()).toBeUndefined();
    const changed = new MetadataDelta(image);
    changed.replay(
      latest(MetadataRecordType.FEATURE_LEVEL_RECORD, { name: 'metadata.version', featureLevel: 21 }),
    );
    expect(changed.metadataVersionChange()).toBe(21);
  });

  it('a delta takes no changes after it was applied', () => {
    const delta = new MetadataDelta(imageOf(topicRecords(1, 1)));
    delta.replay(partitionChange(0, 0, { leader: 1 }));
    delta.apply(MetadataProvenance.EMPTY);
    expect(() => delta.replay(partitionChange(0, 0, { leader: 2 }))).toThrow(/sealed/);
  });
});
