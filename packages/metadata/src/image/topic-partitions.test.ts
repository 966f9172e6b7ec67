import { describe, expect, it } from 'vitest';
import { latest, partitionRecord, uuidOf } from '../../test/support/random-metadata-records.js';
import { MetadataReplayError } from '../errors/metadata-replay-error.js';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import { MetadataDelta } from './metadata-delta.js';
import { MetadataImage } from './metadata-image.js';
import { MetadataProvenance } from './metadata-provenance.js';
import { MAX_PARTITION_ID } from './topic-partitions.js';
import { UuidInterner } from './uuid-interner.js';

function imageWith(partitionIds: number[]): MetadataImage {
  const delta = new MetadataDelta(MetadataImage.EMPTY);
  delta.replay(latest(MetadataRecordType.TOPIC_RECORD, { name: 'orders', topicId: uuidOf(1) }));
  for (const partitionId of partitionIds) delta.replay(partitionRecord(uuidOf(1), partitionId));
  return delta.apply(new MetadataProvenance(partitionIds.length, 1, 0, true));
}

describe('TopicPartitions', () => {
  it('is a read-only map by partition id, in id order, with gaps left out', () => {
    const partitions = imageWith([3, 0, 5]).topics.getTopic(uuidOf(1))!.partitions;
    expect(partitions.size).toBe(3);
    expect([...partitions.keys()]).toEqual([0, 3, 5]);
    expect([...partitions].map(([partitionId, partition]) => [partitionId, partition.partitionId])).toEqual([
      [0, 0],
      [3, 3],
      [5, 5],
    ]);
    expect(partitions.has(4)).toBe(false);
    expect(partitions.get(-1)).toBeUndefined();
    expect(partitions.get(5)?.partitionId).toBe(5);
    const seen: number[] = [];
    partitions.forEach((_, partitionId) => {
      seen.push(partitionId);
    });
    expect(seen).toEqual([0, 3, 5]);
  });

  it('refuses a partition id outside 0..MAX_PARTITION_ID with a MetadataReplayError', () => {
    expect(() => imageWith([MAX_PARTITION_ID + 1])).toThrow(MetadataReplayError);
    expect(() => imageWith([-1])).toThrow(/outside 0\.\./);
    expect(imageWith([MAX_PARTITION_ID]).topics.getPartition(uuidOf(1), MAX_PARTITION_ID)).toBeDefined();
  });

  it('registrations share the topic id, one object per directory id, and the replica list as ISR', () => {
    const image = imageWith([0, 1]);
    const first = image.topics.getPartition(uuidOf(1), 0)!;
    const second = image.topics.getPartition(uuidOf(1), 1)!;
    expect(first.topicId).toBe(image.topics.getTopic(uuidOf(1))!.topicId);
    expect(second.topicId).toBe(first.topicId);
    expect(second.directories[0]).toBe(first.directories[0]);
    expect(second.directories[1]).toBe(first.directories[1]);
    expect(first.isr).toBe(first.replicas);
  });
});

describe('UuidInterner', () => {
  it('returns the first object for equal ids and never confuses different ones', () => {
    const interner = new UuidInterner(2);
    const first = uuidOf(7);
    expect(interner.intern(first)).toBe(first);
    expect(interner.intern(uuidOf(7))).toBe(first);
    const other = uuidOf(8);
    expect(interner.intern(other)).toBe(other);
    expect(interner.size).toBe(2);
  });

  it('shares directory ids across the deltas of an image lineage, as a loader replays one batch per delta', () => {
    const first = imageWith([0]);
    const delta = new MetadataDelta(first);
    delta.replay(partitionRecord(uuidOf(1), 1));
    const next = delta.apply(new MetadataProvenance(2, 1, 0, true));
    const directoriesOf = (partitionId: number) =>
      next.topics.getPartition(uuidOf(1), partitionId)!.directories;
    expect(directoriesOf(1)[0]).toBe(first.topics.getPartition(uuidOf(1), 0)!.directories[0]);
    expect(directoriesOf(1)[1]).toBe(directoriesOf(0)[1]);
  });

  it('stops growing at its bound and hands unknown ids back as they are', () => {
    const interner = new UuidInterner(1);
    interner.intern(uuidOf(1));
    const later = uuidOf(2);
    expect(interner.intern(later)).toBe(later);
    expect(interner.intern(uuidOf(2))).not.toBe(later);
    expect(interner.size).toBe(1);
  });
});
