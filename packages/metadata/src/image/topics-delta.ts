import type { Uuid } from '@kraft/protocol';
import { MetadataReplayError } from '../errors/metadata-replay-error.js';
import type { ClearElrRecordData } from '../records/clear-elr-record.js';
import type { PartitionChangeRecordData } from '../records/partition-change-record.js';
import type { PartitionRecordData } from '../records/partition-record.js';
import type { RemoveTopicRecordData } from '../records/remove-topic-record.js';
import type { TopicRecordData } from '../records/topic-record.js';
import { PartitionListInterner } from './partition-list-interner.js';
import { mergePartitionChange, partitionChange, registrationOf } from './partition-registration.js';
import { PersistentMapDelta } from './persistent-map-delta.js';
import { TopicPartitions, TopicPartitionsDelta } from './topic-partitions.js';
import { type PartitionRegistration, TopicImage, TopicsImage } from './topics-image.js';

/**
 * Changes to the topics (Kafka's `TopicsDelta`). Partitions of each touched topic change in their
 * own transient map, so replaying a million PartitionRecords touches each topic object once, at
 * `apply()`, and not once per record.
 */
export class TopicsDelta {
  readonly image: TopicsImage;
  private readonly topicsById: PersistentMapDelta<string, TopicImage>;
  private readonly topicsByName: PersistentMapDelta<string, TopicImage>;
  private readonly partitionChanges = new Map<string, TopicPartitionsDelta>();
  private readonly created = new Set<string>();
  /** The base image's interner; a fresh one on an image with no topics, which holds no list. */
  private readonly lists: PartitionListInterner;
  /** The topic the previous record touched: records come grouped by topic, so most lookups stop here. */
  private lastTouched: TopicPartitionsDelta | undefined;

  constructor(image: TopicsImage) {
    this.image = image;
    this.topicsById = new PersistentMapDelta(image.topicsById);
    this.topicsByName = new PersistentMapDelta(image.topicsByName);
    this.lists = image.isEmpty() ? new PartitionListInterner() : image.lists;
  }

  /** TopicRecord: creates the topic, with no partitions yet. */
  replayTopic(record: TopicRecordData): void {
    const topic = new TopicImage(record.name, record.topicId, TopicPartitions.EMPTY);
    const key = record.topicId.toString();
    this.topicsById.set(key, topic);
    this.topicsByName.set(record.name, topic);
    this.partitionChanges.set(key, new TopicPartitionsDelta(record.topicId, topic.partitions));
    this.lastTouched = undefined;
    this.created.add(key);
  }

  /**
   * PartitionRecord: sets a partition's whole registration.
   *
   * @throws {@link MetadataReplayError} if the topic does not exist.
   */
  replayPartition(record: PartitionRecordData): void {
    const partitions = this.partitionsOf(record.topicId);
    partitions.set(record.partitionId, registrationOf(record, partitions.topicId, this.lists));
  }

  /**
   * PartitionChangeRecord: changes the fields it names and bumps the partition epoch (and the
   * leader epoch on a leader change), as Kafka's `PartitionRegistration.merge`.
   *
   * @throws {@link MetadataReplayError} if the topic or the partition does not exist.
   */
  replayPartitionChange(record: PartitionChangeRecordData): void {
    const partitions = this.partitionsOf(record.topicId);
    const current = partitions.get(record.partitionId);
    if (current === undefined) {
      throw new MetadataReplayError(
        `no partition ${record.partitionId} in topic ${record.topicId} to change`,
      );
    }
    partitions.set(record.partitionId, mergePartitionChange(current, record, this.lists));
  }

  /** Removes the topic and returns its name (its configs go with it). */
  replayRemoveTopic(record: RemoveTopicRecordData): string {
    const key = record.topicId.toString();
    const topic = this.topicsById.delete(key);
    if (topic === undefined) throw new MetadataReplayError(`no topic with id ${key} to remove`);
    this.topicsByName.delete(topic.name);
    this.partitionChanges.delete(key);
    this.lastTouched = undefined;
    this.created.delete(key);
    return topic.name;
  }

  /** Clears the ELR and last known ELR of one topic's partitions, or every topic's for an empty name. */
  replayClearElr(record: ClearElrRecordData): void {
    if (record.topicName === '') {
      for (const topic of this.topicsById.current.values()) this.clearElrOf(topic.topicId);
      return;
    }
    const topic = this.topicsByName.get(record.topicName);
    if (topic === undefined)
      throw new MetadataReplayError(`no topic named ${record.topicName} to clear ELRs of`);
    this.clearElrOf(topic.topicId);
  }

  /** The partition's registration as the delta has it so far; undefined if it does not exist. */
  getPartition(topicId: Uuid, partitionId: number): PartitionRegistration | undefined {
    const key = topicId.toString();
    return (this.partitionChanges.get(key) ?? this.topicsById.get(key)?.partitions)?.get(partitionId);
  }

  /** Topics created by this delta and still present. */
  createdTopicIds(): ReadonlySet<string> {
    return this.created;
  }

  /** Topics whose partitions changed (created topics included), by id text. */
  changedTopicIds(): ReadonlySet<string> {
    return new Set(this.partitionChanges.keys());
  }

  /** Topics of the base image this delta removed, by id text. */
  deletedTopics(): ReadonlyMap<string, TopicImage> {
    return this.topicsById.removed();
  }

  /**
   * The next image; topics and partitions the delta did not touch are shared with the base image.
   */
  apply(): TopicsImage {
    for (const [key, partitions] of this.partitionChanges) {
      const topic = this.topicsById.get(key) as TopicImage;
      if (!partitions.hasChanges() && !this.created.has(key)) continue;
      const next = new TopicImage(topic.name, topic.topicId, partitions.seal());
      this.topicsById.set(key, next);
      this.topicsByName.set(next.name, next);
    }
    if (!this.topicsById.hasChanges() && !this.topicsByName.hasChanges()) return this.image;
    return new TopicsImage(this.topicsById.seal(), this.topicsByName.seal(), this.lists);
  }

  private clearElrOf(topicId: Uuid): void {
    const partitions = this.partitionsOf(topicId);
    // Copied out first (currentEntries): the loop below changes the transient list under them.
    for (const [partitionId, partition] of partitions.currentEntries()) {
      if (partition.eligibleLeaderReplicas?.length === 0 && partition.lastKnownElr?.length === 0) continue;
      partitions.set(
        partitionId,
        mergePartitionChange(
          partition,
          partitionChange(topicId, partitionId, { eligibleLeaderReplicas: [], lastKnownElr: [] }),
          this.lists,
        ),
      );
    }
  }

  private partitionsOf(topicId: Uuid): TopicPartitionsDelta {
    const last = this.lastTouched;
    if (last?.topicId.equals(topicId)) return last;
    const key = topicId.toString();
    let partitions = this.partitionChanges.get(key);
    if (partitions === undefined) {
      const topic = this.topicsById.get(key);
      if (topic === undefined) throw new MetadataReplayError(`no topic with id ${key}`);
      partitions = new TopicPartitionsDelta(topic.topicId, topic.partitions);
      this.partitionChanges.set(key, partitions);
    }
    this.lastTouched = partitions;
    return partitions;
  }
}
