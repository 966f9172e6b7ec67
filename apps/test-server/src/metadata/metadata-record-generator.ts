import {
  type ApiMessageAndVersion,
  apiMessageAndVersion,
  type BrokerRegistration,
  METADATA_RECORD_CODECS,
  METADATA_VERSION_FEATURE,
  type MetadataImage,
  type MetadataRecordCodecs,
  MetadataRecordType,
  type MetadataRecordTypeId,
  PartitionChangeRecord,
  type PartitionRegistration,
  type TopicImage,
} from '@kraft/metadata';
import { type MessageData, Uuid } from '@kraft/protocol';

/** The part of raft's `Random` the generator draws from (a seeded PRNG). */
export interface RecordRandom {
  nextInt(bound: number): number;
}

/**
 * Kafka 3.9's metadata.version (3.9-IV0): every record the generator writes exists at it, and the
 * first leader writes it before anything else, as a formatted cluster's bootstrap does.
 */
export const BOOTSTRAP_METADATA_VERSION = 21;
/** Broker ids are drawn from [1, this]: enough for replica sets of 3 with fencing going on. */
export const MAX_BROKERS = 12;
/** Live topics at most; at the bound the generator deletes before it creates, so the image stays bounded. */
export const MAX_TOPICS = 200;
/** Partitions per created topic at most (a topic's records go in one append, one batch). */
export const MAX_PARTITIONS_PER_TOPIC = 8;
const REPLICATION_FACTOR = 3;
/** Below this many brokers only registrations are drawn: topics need somewhere to put replicas. */
const MIN_BROKERS_FOR_TOPICS = REPLICATION_FACTOR;

/** The kinds of change the workload makes, with their weights (partition changes dominate, as in a real cluster). */
const OPERATION_WEIGHTS = [
  ['create-topic', 20],
  ['delete-topic', 10],
  ['partition-change', 40],
  ['register-broker', 10],
  ['fence-or-unfence', 10],
  ['registration-change', 10],
] as const;
type OperationKind = (typeof OPERATION_WEIGHTS)[number][0];
const TOTAL_WEIGHT = OPERATION_WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);

function latest<K extends MetadataRecordTypeId>(
  recordType: K,
  data: MessageData<MetadataRecordCodecs[K]>,
): ApiMessageAndVersion {
  return apiMessageAndVersion(recordType, METADATA_RECORD_CODECS[recordType].highestVersion, data);
}

/**
 * Draws metadata changes that are valid against an image: topics created (TopicRecord and its
 * PartitionRecords) and deleted, leader and ISR changes, broker registrations, fencing and
 * registration changes. Each call returns one operation's records (a topic's records belong
 * together in one batch); the caller replays them on its image before it draws again.
 *
 * Ids are unique per leader epoch: uuids and broker epochs carry the epoch, so a new leader never
 * reuses what a previous one created.
 */
export class MetadataRecordGenerator {
  private counter = 0;

  constructor(
    private readonly random: RecordRandom,
    private readonly epoch: number,
  ) {}

  /** One operation's records, valid against `image`. */
  nextOperation(image: MetadataImage): ApiMessageAndVersion[] {
    if (image.features.metadataVersion() === undefined) {
      return [
        latest(MetadataRecordType.FEATURE_LEVEL_RECORD, {
          name: METADATA_VERSION_FEATURE,
          featureLevel: BOOTSTRAP_METADATA_VERSION,
        }),
      ];
    }
    const brokerIds = sortedBrokerIds(image);
    if (brokerIds.length < MIN_BROKERS_FOR_TOPICS) return [this.registerBroker(image, brokerIds)];
    const records = this.operation(this.drawKind(image), image, brokerIds);
    // A drawn change with nothing to change (no topic to delete yet) becomes a registration.
    return records.length > 0 ? records : [this.registerBroker(image, brokerIds)];
  }

  private drawKind(image: MetadataImage): OperationKind {
    if (image.topics.topicsById.size >= MAX_TOPICS) return 'delete-topic';
    let draw = this.random.nextInt(TOTAL_WEIGHT);
    for (const [kind, weight] of OPERATION_WEIGHTS) {
      if (draw < weight) return kind;
      draw -= weight;
    }
    return 'partition-change';
  }

  private operation(kind: OperationKind, image: MetadataImage, brokerIds: number[]): ApiMessageAndVersion[] {
    switch (kind) {
      case 'create-topic':
        return this.createTopic(image, brokerIds);
      case 'delete-topic':
        return this.deleteTopic(image);
      case 'partition-change':
        return this.partitionChange(image);
      case 'register-broker':
        return [this.registerBroker(image, brokerIds)];
      case 'fence-or-unfence':
        return [this.fenceOrUnfence(this.pickBroker(image, brokerIds))];
      case 'registration-change':
        return [this.registrationChange(this.pickBroker(image, brokerIds))];
    }
  }

  private nextUuid(): Uuid {
    this.counter += 1;
    // 'K' in the top byte keeps clear of Kafka's reserved small uuids (ZERO, ONE, METADATA_TOPIC_ID).
    return Uuid.fromLongs((0x4bn << 56n) | BigInt(this.epoch), BigInt(this.counter));
  }

  private registerBroker(image: MetadataImage, brokerIds: number[]): ApiMessageAndVersion {
    // A new id while there is room, else an existing broker registers again (a restart: new epoch).
    const brokerId =
      brokerIds.length < MAX_BROKERS
        ? firstFreeBrokerId(brokerIds)
        : (brokerIds[this.random.nextInt(brokerIds.length)] as number);
    const previous = image.cluster.broker(brokerId);
    this.counter += 1;
    return latest(MetadataRecordType.REGISTER_BROKER_RECORD, {
      brokerId,
      isMigratingZkBroker: false,
      incarnationId: this.nextUuid(),
      brokerEpoch: (BigInt(this.epoch) << 32n) | BigInt(this.counter),
      endPoints: [{ name: 'PLAINTEXT', host: `broker-${brokerId}`, port: 9092, securityProtocol: 0 }],
      features: [{ name: METADATA_VERSION_FEATURE, minSupportedVersion: 7, maxSupportedVersion: 27 }],
      rack: `rack-${brokerId % 3}`,
      fenced: true,
      inControlledShutdown: false,
      logDirs: previous?.logDirs.length ? [...previous.logDirs] : [this.nextUuid()],
      cordonedLogDirs: null,
    });
  }

  private pickBroker(image: MetadataImage, brokerIds: number[]): BrokerRegistration {
    return image.cluster.broker(
      brokerIds[this.random.nextInt(brokerIds.length)] as number,
    ) as BrokerRegistration;
  }

  private fenceOrUnfence(broker: BrokerRegistration): ApiMessageAndVersion {
    const data = { id: broker.brokerId, epoch: broker.brokerEpoch };
    return broker.fenced
      ? latest(MetadataRecordType.UNFENCE_BROKER_RECORD, data)
      : latest(MetadataRecordType.FENCE_BROKER_RECORD, data);
  }

  private registrationChange(broker: BrokerRegistration): ApiMessageAndVersion {
    // Fencing through the change record, and now and then a controlled shutdown (undone by re-registering).
    return latest(MetadataRecordType.BROKER_REGISTRATION_CHANGE_RECORD, {
      brokerId: broker.brokerId,
      brokerEpoch: broker.brokerEpoch,
      fenced: broker.fenced ? -1 : 1,
      inControlledShutdown: this.random.nextInt(4) === 0 ? 1 : 0,
      logDirs: [],
      cordonedLogDirs: null,
    });
  }

  private createTopic(image: MetadataImage, brokerIds: number[]): ApiMessageAndVersion[] {
    const topicId = this.nextUuid();
    const name = `topic-${this.epoch}-${this.counter}`;
    const partitionCount = 1 + this.random.nextInt(MAX_PARTITIONS_PER_TOPIC);
    const records = [latest(MetadataRecordType.TOPIC_RECORD, { name, topicId })];
    for (let partitionId = 0; partitionId < partitionCount; partitionId += 1) {
      const replicas = this.drawReplicas(brokerIds);
      records.push(
        latest(MetadataRecordType.PARTITION_RECORD, {
          partitionId,
          topicId,
          replicas,
          isr: replicas,
          removingReplicas: [],
          addingReplicas: [],
          leader: replicas[0] as number,
          leaderRecoveryState: 0,
          leaderEpoch: 0,
          partitionEpoch: 0,
          directories: replicas.map((brokerId) => image.cluster.broker(brokerId)?.logDirs[0] ?? Uuid.ZERO),
          eligibleLeaderReplicas: [],
          lastKnownElr: [],
        }),
      );
    }
    return records;
  }

  /** `REPLICATION_FACTOR` distinct brokers, in a random order (the first leads). */
  private drawReplicas(brokerIds: readonly number[]): number[] {
    const pool = [...brokerIds];
    const replicas: number[] = [];
    while (replicas.length < REPLICATION_FACTOR && pool.length > 0) {
      replicas.push(pool.splice(this.random.nextInt(pool.length), 1)[0] as number);
    }
    return replicas;
  }

  /**
   * By position in the persistent map, not in sorted ids: no copy and no sort per record, and as
   * reproducible, since one seed and one history give one map.
   */
  private pickTopic(image: MetadataImage): TopicImage | undefined {
    const topics = image.topics.topicsById;
    if (topics.size === 0) return undefined;
    return topics.valueSeq().get(this.random.nextInt(topics.size));
  }

  private deleteTopic(image: MetadataImage): ApiMessageAndVersion[] {
    const topic = this.pickTopic(image);
    return topic === undefined
      ? []
      : [latest(MetadataRecordType.REMOVE_TOPIC_RECORD, { topicId: topic.topicId })];
  }

  /** A new leader from the ISR, or a shrunk or regrown ISR that keeps the leader. */
  private partitionChange(image: MetadataImage): ApiMessageAndVersion[] {
    const topic = this.pickTopic(image);
    if (topic === undefined || topic.partitions.size === 0) return [];
    const partitionId = this.random.nextInt(topic.partitions.size);
    const partition = topic.partitions.get(partitionId) as PartitionRegistration | undefined;
    if (partition === undefined) return [];
    // Every other field at its schema default, which means "unchanged".
    const change = (fields: { leader: number; isr?: number[] }) =>
      latest(
        MetadataRecordType.PARTITION_CHANGE_RECORD,
        PartitionChangeRecord.defaults({ topicId: topic.topicId, partitionId, ...fields }),
      );
    const others = partition.isr.filter((brokerId) => brokerId !== partition.leader);
    if (others.length > 0 && this.random.nextInt(2) === 0) {
      const leader = others[this.random.nextInt(others.length)] as number;
      return [change({ leader })];
    }
    // The ISR shrinks to the leader alone when it is full, else grows back to every replica.
    const isr =
      partition.isr.length === partition.replicas.length && partition.leader >= 0
        ? [partition.leader]
        : [...partition.replicas];
    const leader = partition.leader >= 0 ? partition.leader : (isr[0] as number);
    return [change({ isr, leader })];
  }
}

function sortedBrokerIds(image: MetadataImage): number[] {
  return [...image.cluster.brokers.keys()].sort((left, right) => left - right);
}

function firstFreeBrokerId(sortedIds: readonly number[]): number {
  let candidate = 1;
  for (const id of sortedIds) {
    if (id !== candidate) break;
    candidate += 1;
  }
  return candidate;
}
