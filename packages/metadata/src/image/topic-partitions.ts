import { invariant, type Uuid } from '@kraft/protocol';
import { List } from 'immutable';
import { MetadataReplayError } from '../errors/metadata-replay-error.js';
import type { PartitionRegistration } from './topics-image.js';

/**
 * The highest partition id a topic may have. Kafka numbers a topic's partitions 0..n-1, and the
 * list below is as long as the highest id, so an id is bounded to keep one bad record from
 * making every walk over the topic (a snapshot, a publisher) take billions of steps. Exported
 * on purpose: a PartitionRecord above it is refused with `MetadataReplayError`, where Kafka takes
 * any id up to int32 max (ADR 0026).
 */
export const MAX_PARTITION_ID = 0xfffff;

/**
 * One topic's partitions by id (Kafka's `TopicImage.partitions()`), a read-only map. Ids are
 * dense, so the partitions sit in a persistent vector (Immutable.js `List`, a 32-way trie)
 * indexed by id: a slot per partition, where a hashed map spends a node and an entry pair on each
 * (about 200 bytes more per partition). Setting one partition copies one path: O(log32 n).
 * Iteration is in id order.
 */
export class TopicPartitions implements ReadonlyMap<number, PartitionRegistration> {
  static readonly EMPTY = new TopicPartitions(List(), 0);

  /** Slot `id` holds partition `id`; a gap (an id never created) holds undefined. */
  readonly byId: List<PartitionRegistration | undefined>;
  readonly size: number;

  constructor(byId: List<PartitionRegistration | undefined>, size: number) {
    this.byId = byId;
    this.size = size;
  }

  /** The partition with this id; undefined for an id never created (or negative). */
  get(partitionId: number): PartitionRegistration | undefined {
    // List.get counts a negative index from the end.
    return partitionId >= 0 ? this.byId.get(partitionId) : undefined;
  }

  /** Whether the topic has a partition with this id. */
  has(partitionId: number): boolean {
    return this.get(partitionId) !== undefined;
  }

  /** `[id, registration]` pairs in id order. */
  *entries(): MapIterator<[number, PartitionRegistration]> {
    let partitionId = 0;
    for (const partition of this.byId) {
      if (partition !== undefined) yield [partitionId, partition];
      partitionId += 1;
    }
  }

  /** Partition ids in order. */
  *keys(): MapIterator<number> {
    for (const [partitionId] of this.entries()) yield partitionId;
  }

  /** Registrations in id order. */
  *values(): MapIterator<PartitionRegistration> {
    for (const partition of this.byId) if (partition !== undefined) yield partition;
  }

  /** The same as `entries()`. */
  [Symbol.iterator](): MapIterator<[number, PartitionRegistration]> {
    return this.entries();
  }

  /** Calls `callback` for each partition in id order, as `Map.prototype.forEach`. */
  forEach(
    callback: (
      value: PartitionRegistration,
      key: number,
      map: ReadonlyMap<number, PartitionRegistration>,
    ) => void,
    thisArg?: unknown,
  ): void {
    for (const [partitionId, partition] of this.entries())
      callback.call(thisArg, partition, partitionId, this);
  }
}

/**
 * One topic's partition changes in a delta, on a transient copy of the vector (`asMutable`) taken
 * at the first change; the base, held by the previous image, is never touched. Carries the topic's
 * own id object, which its registrations share.
 */
export class TopicPartitionsDelta {
  readonly topicId: Uuid;
  private readonly base: TopicPartitions;
  private transient: List<PartitionRegistration | undefined> | undefined;
  private sealed: TopicPartitions | undefined;
  private size: number;

  constructor(topicId: Uuid, base: TopicPartitions) {
    this.topicId = topicId;
    this.base = base;
    this.size = base.size;
  }

  get(partitionId: number): PartitionRegistration | undefined {
    if (this.transient === undefined) return this.base.get(partitionId);
    return partitionId >= 0 ? this.transient.get(partitionId) : undefined;
  }

  set(partitionId: number, partition: PartitionRegistration): void {
    if (!Number.isInteger(partitionId) || partitionId < 0 || partitionId > MAX_PARTITION_ID) {
      throw new MetadataReplayError(
        `partition id ${partitionId} of topic ${this.topicId} is outside 0..${MAX_PARTITION_ID}`,
      );
    }
    invariant(this.sealed === undefined, () => 'a sealed partitions delta was changed after apply()');
    this.transient ??= this.base.byId.asMutable();
    if (this.transient.get(partitionId) === undefined) this.size += 1;
    this.transient.set(partitionId, partition);
  }

  /**
   * The partitions as this delta sees them, in id order, copied out: the transient map under
   * them changes with the next `set()`, the array does not.
   */
  currentEntries(): [number, PartitionRegistration][] {
    const partitions =
      this.sealed ??
      (this.transient === undefined ? this.base : new TopicPartitions(this.transient, this.size));
    return [...partitions.entries()];
  }

  hasChanges(): boolean {
    return this.transient !== undefined;
  }

  /** The next image's partitions. Once sealed the delta takes no more changes. */
  seal(): TopicPartitions {
    if (this.sealed === undefined) {
      this.sealed =
        this.transient === undefined
          ? this.base
          : new TopicPartitions(this.transient.asImmutable(), this.size);
      this.transient = undefined;
    }
    return this.sealed;
  }
}
