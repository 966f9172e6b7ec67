import type { Uuid } from '@kraft/protocol';
import { Map as PersistentMap } from 'immutable';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { PartitionRecordData } from '../records/partition-record.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';

export { DIRECTORY_MIGRATING, DIRECTORY_UNASSIGNED } from './directory-id.js';

import { latestRecord, sortedKeys } from './image-records.js';
import type { ImageWriterOptions } from './image-writer-options.js';
import { PartitionListInterner } from './partition-list-interner.js';
import { partitionRecordOf } from './partition-registration.js';
import type { TopicPartitions } from './topic-partitions.js';

/**
 * A partition's state as a full PartitionRecord (Kafka's `PartitionRegistration`): replicas and
 * their directories, ISR, ELR, last known ELR, leader, leader recovery state, leader epoch and
 * partition epoch. Directories are always one per replica (MIGRATING for a record that predates
 * them), ELRs never null, as in Kafka's registration.
 */
export type PartitionRegistration = Readonly<PartitionRecordData>;

/** One topic: its name, id and partitions by index (Kafka's `TopicImage`). */
export class TopicImage {
  readonly name: string;
  readonly topicId: Uuid;
  readonly partitions: TopicPartitions;

  constructor(name: string, topicId: Uuid, partitions: TopicPartitions) {
    this.name = name;
    this.topicId = topicId;
    this.partitions = partitions;
  }

  /**
   * The TopicRecord, then one PartitionRecord per partition in id order, at the version `options`
   * selects.
   *
   * @throws {@link UnwritableMetadataError} when a partition holds what that version cannot carry.
   */
  *records(options: ImageWriterOptions): Generator<ApiMessageAndVersion> {
    yield latestRecord(MetadataRecordType.TOPIC_RECORD, { name: this.name, topicId: this.topicId });
    // In partition id order already.
    for (const partition of this.partitions.values()) yield partitionRecordOf(partition, options);
  }
}

/**
 * Topics by id and by name (Kafka's `TopicsImage`). Ids are keyed by their text form: a `Uuid`
 * object has no hash of its own, and the text is cached on it.
 */
export class TopicsImage {
  static readonly EMPTY = new TopicsImage(PersistentMap(), PersistentMap());

  readonly topicsById: PersistentMap<string, TopicImage>;
  readonly topicsByName: PersistentMap<string, TopicImage>;
  /**
   * The lists and directory ids the partitions hold, one object per value. Handed from each image
   * to the deltas on it and on to the next image, so a log replayed one batch per delta still
   * shares them.
   */
  readonly lists: PartitionListInterner;

  constructor(
    topicsById: PersistentMap<string, TopicImage>,
    topicsByName: PersistentMap<string, TopicImage>,
    lists: PartitionListInterner = new PartitionListInterner(),
  ) {
    this.topicsById = topicsById;
    this.topicsByName = topicsByName;
    this.lists = lists;
  }

  /** The topic with this id; undefined if there is none. */
  getTopic(topicId: Uuid): TopicImage | undefined {
    return this.topicsById.get(topicId.toString());
  }

  /** The topic with this name; undefined if there is none. */
  getTopicByName(name: string): TopicImage | undefined {
    return this.topicsByName.get(name);
  }

  /** One partition's registration; undefined if the topic or the partition does not exist. */
  getPartition(topicId: Uuid, partitionId: number): PartitionRegistration | undefined {
    return this.getTopic(topicId)?.partitions.get(partitionId);
  }

  /** Whether the image holds no topic. */
  isEmpty(): boolean {
    return this.topicsById.size === 0;
  }

  /** Every topic's records (see `TopicImage.records`), topics in name order. */
  *records(options: ImageWriterOptions): Generator<ApiMessageAndVersion> {
    for (const name of sortedKeys(this.topicsByName.keys())) {
      yield* (this.topicsByName.get(name) as TopicImage).records(options);
    }
  }
}
