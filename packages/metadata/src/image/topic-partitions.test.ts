import { describe, expect, it } from 'vitest';
import { latest, partitionRecord, uuidOf } from '../../test/support/random-metadata-records.js';
import { MetadataReplayError } from '../errors/metadata-replay-error.js';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import { MetadataDelta } from './metadata-delta.js';
import { MetadataImage } from './metadata-image.js';
import { MetadataProvenance } from './metadata-provenance.js';
import { PartitionListInterner } from './partition-list-interner.js';
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

describe('PartitionListInterner', () => {
  it('hands out one array per distinct list, copied from the decoded one', () => {
    const interner = new PartitionListInterner();
    const decoded = [1, 2, 3];
    const first = interner.replicas(decoded);
    expect(first).toEqual([1, 2, 3]);
    expect(first).not.toBe(decoded);
    expect(interner.replicas([1, 2, 3])).toBe(first);
    expect(interner.replicas([3, 2, 1])).toEqual([3, 2, 1]);
    expect(interner.replicas([3, 2, 1])).not.toBe(first);
    expect(interner.replicas([])).toBe(interner.replicas([]));
    expect(interner.size.replicaLists).toBe(2);
  });

  it('never confuses two lists whose hashes collide', () => {
    // The interner's mix for a two-element list is imul(imul(2, K) ^ a, K) ^ b; this `d` makes
    // [c, d] hash as [a, b] does.
    const K = 0x9e3779b1;
    const mix = (first: number) => Math.imul(Math.imul(2, K) ^ first, K);
    const [a, b, c] = [1, 2, 3];
    const d = mix(a) ^ b ^ mix(c);
    const interner = new PartitionListInterner();
    const first = interner.replicas([a, b]);
    const colliding = interner.replicas([c, d]);
    expect(colliding).toEqual([c, d]);
    expect(interner.replicas([a, b])).toBe(first);
    expect(interner.size.replicaLists).toBe(1);
  });

  it('stops growing at its bound and copies the lists it does not hold', () => {
    const interner = new PartitionListInterner(1);
    const first = interner.replicas([7]);
    const other = interner.replicas([8]);
    expect(other).toEqual([8]);
    expect(interner.replicas([8])).not.toBe(other);
    expect(interner.replicas([7])).toBe(first);
    expect(interner.size.replicaLists).toBe(1);
  });

  it('shares directory lists and the ids in them', () => {
    const interner = new PartitionListInterner();
    const first = interner.directories([uuidOf(101), uuidOf(102)]);
    expect(interner.directories([uuidOf(101), uuidOf(102)])).toBe(first);
    const swapped = interner.directories([uuidOf(102), uuidOf(101)]);
    expect(swapped).not.toBe(first);
    expect(swapped[0]).toBe(first[1]);
    expect(swapped[1]).toBe(first[0]);
    expect(interner.size.directoryLists).toBe(2);
  });

  it('the partitions of an image share equal replica, ISR and directory lists', () => {
    const delta = new MetadataDelta(MetadataImage.EMPTY);
    delta.replay(latest(MetadataRecordType.TOPIC_RECORD, { name: 'orders', topicId: uuidOf(1) }));
    delta.replay(latest(MetadataRecordType.TOPIC_RECORD, { name: 'payments', topicId: uuidOf(2) }));
    delta.replay(partitionRecord(uuidOf(1), 0));
    delta.replay(partitionRecord(uuidOf(2), 0));
    const image = delta.apply(new MetadataProvenance(4, 1, 0, true));
    const orders = image.topics.getPartition(uuidOf(1), 0)!;
    const payments = image.topics.getPartition(uuidOf(2), 0)!;
    expect(payments.replicas).toBe(orders.replicas);
    expect(payments.isr).toBe(orders.isr);
    expect(payments.directories).toBe(orders.directories);
  });
});
