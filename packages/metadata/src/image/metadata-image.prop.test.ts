import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { latest, operationArbitrary, recordsOf } from '../../test/support/random-metadata-records.js';
import { UnwritableMetadataError } from '../errors/unwritable-metadata-error.js';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import { MetadataRecordSerde } from '../serde/metadata-record-serde.js';
import { DIRECTORY_MIGRATING } from './directory-id.js';
import { ImageWriterOptions } from './image-writer-options.js';
import { MetadataDelta } from './metadata-delta.js';
import { MetadataImage } from './metadata-image.js';
import { MetadataProvenance } from './metadata-provenance.js';

const serde = MetadataRecordSerde.INSTANCE;

function replayInChunks(
  records: readonly ApiMessageAndVersion[],
  chunkSizes: readonly number[],
): MetadataImage {
  let image = MetadataImage.EMPTY;
  let position = 0;
  let chunk = 0;
  while (position < records.length) {
    const size = Math.max(1, chunkSizes[chunk % chunkSizes.length] ?? 1);
    const delta = new MetadataDelta(image);
    for (const record of records.slice(position, position + size)) delta.replay(record);
    position += size;
    chunk += 1;
    image = delta.apply(new MetadataProvenance(position - 1, 1, position, true));
  }
  return image;
}

// The highest record versions, so the round trip loses nothing whatever metadata.version the
// random records finalized (version selection has its own tests in image-writer-options.test.ts).
function writtenValues(image: MetadataImage): Buffer[] {
  const values: Buffer[] = [];
  for (const record of image.records(ImageWriterOptions.LATEST)) values.push(serde.write(record));
  return values;
}

function writtenRecords(image: MetadataImage): ApiMessageAndVersion[] {
  const records: ApiMessageAndVersion[] = [];
  for (const record of image.records(ImageWriterOptions.LATEST)) {
    records.push(serde.read(serde.write(record)));
  }
  return records;
}

/** The "dumb alternative": what a few parts of the image must be, replayed with native maps. */
function referenceOf(records: readonly ApiMessageAndVersion[]) {
  const topics = new Map<string, string>();
  const partitions = new Map<
    string,
    { leader: number; leaderEpoch: number; partitionEpoch: number; isr: number[] }
  >();
  const fenced = new Map<number, boolean>();
  const configs = new Map<string, string>();
  const acls = new Set<string>();
  /** Partitions whose ELR or last known ELR is not empty: a ClearElrRecord bumps their epoch. */
  const withElr = new Set<string>();
  const controllers = new Set<number>();
  const features = new Map<string, number>();
  const tokens = new Set<string>();
  const scram = new Set<string>();
  const quotas = new Map<string, number>();
  let nextProducerId = -1n;
  for (const record of records) {
    switch (record.recordType) {
      case MetadataRecordType.TOPIC_RECORD:
        topics.set(record.data.topicId.toString(), record.data.name);
        break;
      case MetadataRecordType.REMOVE_TOPIC_RECORD: {
        const id = record.data.topicId.toString();
        for (const key of [...partitions.keys()]) if (key.startsWith(`${id}/`)) partitions.delete(key);
        for (const key of [...configs.keys()])
          if (key.startsWith(`2:${topics.get(id)}/`)) configs.delete(key);
        topics.delete(id);
        break;
      }
      case MetadataRecordType.PARTITION_RECORD: {
        const { leader, leaderEpoch, partitionEpoch, isr } = record.data;
        const key = `${record.data.topicId}/${record.data.partitionId}`;
        partitions.set(key, { leader, leaderEpoch, partitionEpoch, isr });
        const elrs = [...(record.data.eligibleLeaderReplicas ?? []), ...(record.data.lastKnownElr ?? [])];
        if (elrs.length > 0) withElr.add(key);
        else withElr.delete(key);
        break;
      }
      case MetadataRecordType.PARTITION_CHANGE_RECORD: {
        const key = `${record.data.topicId}/${record.data.partitionId}`;
        const current = partitions.get(key)!;
        const leaderChanged = record.data.leader !== -2;
        partitions.set(key, {
          leader: leaderChanged ? record.data.leader : current.leader,
          leaderEpoch: current.leaderEpoch + (leaderChanged ? 1 : 0),
          partitionEpoch: current.partitionEpoch + 1,
          isr: record.data.isr ?? current.isr,
        });
        if (
          (record.data.eligibleLeaderReplicas?.length ?? 0) > 0 ||
          (record.data.lastKnownElr?.length ?? 0) > 0
        ) {
          withElr.add(key);
        }
        break;
      }
      case MetadataRecordType.CLEAR_ELR_RECORD: {
        const name = record.data.topicName;
        for (const key of [...withElr]) {
          const topicId = key.slice(0, key.indexOf('/'));
          if (name !== '' && topics.get(topicId) !== name) continue;
          const current = partitions.get(key);
          if (current !== undefined)
            partitions.set(key, { ...current, partitionEpoch: current.partitionEpoch + 1 });
          withElr.delete(key);
        }
        break;
      }
      case MetadataRecordType.REGISTER_BROKER_RECORD:
        fenced.set(record.data.brokerId, record.data.fenced);
        break;
      case MetadataRecordType.FENCE_BROKER_RECORD:
        fenced.set(record.data.id, true);
        break;
      case MetadataRecordType.UNFENCE_BROKER_RECORD:
        fenced.set(record.data.id, false);
        break;
      case MetadataRecordType.BROKER_REGISTRATION_CHANGE_RECORD:
        if (record.data.fenced !== 0) fenced.set(record.data.brokerId, record.data.fenced === 1);
        break;
      case MetadataRecordType.UNREGISTER_BROKER_RECORD:
        fenced.delete(record.data.brokerId);
        break;
      case MetadataRecordType.CONFIG_RECORD: {
        const key = `${record.data.resourceType}:${record.data.resourceName}/${record.data.name}`;
        if (record.data.value === null) configs.delete(key);
        else configs.set(key, record.data.value);
        break;
      }
      case MetadataRecordType.ACCESS_CONTROL_ENTRY_RECORD:
        acls.add(record.data.id.toString());
        break;
      case MetadataRecordType.REMOVE_ACCESS_CONTROL_ENTRY_RECORD:
        acls.delete(record.data.id.toString());
        break;
      case MetadataRecordType.REGISTER_CONTROLLER_RECORD:
        controllers.add(record.data.controllerId);
        break;
      case MetadataRecordType.UNREGISTER_CONTROLLER_RECORD:
        controllers.delete(record.data.controllerId);
        break;
      case MetadataRecordType.FEATURE_LEVEL_RECORD:
        if (record.data.featureLevel === 0) features.delete(record.data.name);
        else features.set(record.data.name, record.data.featureLevel);
        break;
      case MetadataRecordType.DELEGATION_TOKEN_RECORD:
        tokens.add(record.data.tokenId);
        break;
      case MetadataRecordType.REMOVE_DELEGATION_TOKEN_RECORD:
        tokens.delete(record.data.tokenId);
        break;
      case MetadataRecordType.USER_SCRAM_CREDENTIAL_RECORD:
        scram.add(`${record.data.mechanism}:${record.data.name}`);
        break;
      case MetadataRecordType.REMOVE_USER_SCRAM_CREDENTIAL_RECORD:
        scram.delete(`${record.data.mechanism}:${record.data.name}`);
        break;
      case MetadataRecordType.CLIENT_QUOTA_RECORD: {
        const key = `${record.data.entity[0]?.entityName ?? '<default>'}/${record.data.key}`;
        if (record.data.remove) quotas.delete(key);
        else quotas.set(key, record.data.value);
        break;
      }
      case MetadataRecordType.PRODUCER_IDS_RECORD:
        nextProducerId = record.data.nextProducerId;
        break;
      default:
        break;
    }
  }
  return {
    topics,
    partitions,
    fenced,
    configs,
    acls,
    controllers,
    features,
    tokens,
    scram,
    quotas,
    nextProducerId,
  };
}

function observedOf(image: MetadataImage) {
  const topics = new Map<string, string>();
  const partitions = new Map<
    string,
    { leader: number; leaderEpoch: number; partitionEpoch: number; isr: number[] }
  >();
  for (const [id, topic] of image.topics.topicsById) {
    topics.set(id, topic.name);
    expect(image.topics.getTopicByName(topic.name)).toBe(topic);
    for (const [partitionId, partition] of topic.partitions) {
      const { leader, leaderEpoch, partitionEpoch, isr } = partition;
      partitions.set(`${id}/${partitionId}`, { leader, leaderEpoch, partitionEpoch, isr: [...isr] });
    }
  }
  const fenced = new Map([...image.cluster.brokers].map(([id, broker]) => [id, broker.fenced]));
  const configs = new Map<string, string>();
  for (const [key, resource] of image.configs.resources) {
    for (const [name, value] of resource.data) configs.set(`${key}/${name}`, value);
  }
  const acls = new Set(image.acls.acls.keys());
  const controllers = new Set(image.cluster.controllers.keys());
  const features = new Map(image.features.finalizedLevels);
  const tokens = new Set(image.delegationTokens.tokens.keys());
  const scram = new Set(image.scram.credentials.keys());
  const quotas = new Map<string, number>();
  for (const entity of image.clientQuotas.entities.values()) {
    for (const [key, value] of entity.quotas)
      quotas.set(`${entity.entity[0]?.entityName ?? '<default>'}/${key}`, value);
  }
  const nextProducerId = image.producerIds.nextProducerId;
  return {
    topics,
    partitions,
    fenced,
    configs,
    acls,
    controllers,
    features,
    tokens,
    scram,
    quotas,
    nextProducerId,
  };
}

const MIGRATING = DIRECTORY_MIGRATING.toString();
const operationsArbitrary = fc.array(operationArbitrary, { maxLength: 150, size: 'large' });
/** How the records are cut into deltas. */
const chunkSizesArbitrary = fc.array(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 5 });

/** Each partition's directories (as text) and ELRs, in topic and partition id order. */
function placementsOf(image: MetadataImage) {
  const placements = [];
  for (const [id, topic] of image.topics.topicsById) {
    for (const [partitionId, partition] of topic.partitions) {
      placements.push({
        key: `${id}/${partitionId}`,
        directories: partition.directories.map((directory) => directory.toString()),
        eligibleLeaderReplicas: [...(partition.eligibleLeaderReplicas ?? [])],
        lastKnownElr: [...(partition.lastKnownElr ?? [])],
      });
    }
  }
  return placements.sort((left, right) => (left.key < right.key ? -1 : left.key > right.key ? 1 : 0));
}

/** The broker states a RegisterBrokerRecord version may lack. */
function brokersOf(image: MetadataImage) {
  return [...image.cluster.brokers.values()]
    .map((broker) => ({
      brokerId: broker.brokerId,
      inControlledShutdown: broker.inControlledShutdown,
      isMigratingZkBroker: broker.isMigratingZkBroker,
      logDirs: broker.logDirs.map((directory) => directory.toString()),
      cordonedLogDirs: (broker.cordonedLogDirs ?? []).map((directory) => directory.toString()),
    }))
    .sort((left, right) => left.brokerId - right.brokerId);
}

/** Kafka's rules: whether this image holds what `options`' metadata.version cannot represent. */
function losesAt(image: MetadataImage, options: ImageWriterOptions): boolean {
  const placed = placementsOf(image).some((partition) =>
    partition.directories.some((id) => id !== MIGRATING),
  );
  return (
    (placed && !options.isDirectoryAssignmentSupported()) ||
    brokersOf(image).some(
      (broker) =>
        (broker.inControlledShutdown && !options.isInControlledShutdownStateSupported()) ||
        (broker.isMigratingZkBroker && !options.isMigrationSupported()) ||
        (broker.logDirs.length > 0 && !options.isDirectoryAssignmentSupported()) ||
        (broker.cordonedLogDirs.length > 0 && !options.isCordonedLogDirsSupported()),
    )
  );
}

describe('MetadataImage round trip', () => {
  it('image → records → image gives the same image, and the image matches a plain replay', () => {
    fc.assert(
      fc.property(operationsArbitrary, chunkSizesArbitrary, (operations, chunkSizes) => {
        const records = recordsOf(operations);
        const image = replayInChunks(records, chunkSizes);
        expect(observedOf(image)).toEqual(referenceOf(records));
        // The snapshot's records, through the serde, replayed on the empty image in one delta.
        const delta = new MetadataDelta(MetadataImage.EMPTY);
        for (const record of writtenRecords(image)) delta.replay(record);
        const reloaded = delta.apply(image.provenance);
        expect(writtenValues(reloaded)).toEqual(writtenValues(image));
        expect(observedOf(reloaded)).toEqual(observedOf(image));
        expect(reloaded.isEmpty()).toBe(image.isEmpty());
      }),
      { numRuns: 200 },
    );
  });

  it('written at its own metadata.version, an image reloads the same but for what that version leaves out, or is refused', () => {
    fc.assert(
      fc.property(operationsArbitrary, chunkSizesArbitrary, (operations, chunkSizes) => {
        const image = replayInChunks(recordsOf(operations), chunkSizes);
        const options = new ImageWriterOptions(image.features.metadataVersion());
        const loses = losesAt(image, options);
        let written: ApiMessageAndVersion[];
        try {
          written = [...image.records(options)].map((record) => serde.read(serde.write(record)));
        } catch (error) {
          expect(error).toBeInstanceOf(UnwritableMetadataError);
          expect(loses).toBe(true);
          return;
        }
        expect(loses).toBe(false);
        const delta = new MetadataDelta(MetadataImage.EMPTY);
        for (const record of written) delta.replay(record);
        const reloaded = delta.apply(image.provenance);
        expect(observedOf(reloaded)).toEqual(observedOf(image));
        const expected = placementsOf(image).map((partition) => ({
          ...partition,
          eligibleLeaderReplicas: options.isElrSupported() ? partition.eligibleLeaderReplicas : [],
          lastKnownElr: options.isElrSupported() ? partition.lastKnownElr : [],
        }));
        expect(placementsOf(reloaded)).toEqual(expected);
        expect(brokersOf(reloaded)).toEqual(brokersOf(image));
      }),
      { numRuns: 150 },
    );
  });

  it('the written records start with metadata.version', () => {
    const delta = new MetadataDelta(MetadataImage.EMPTY);
    delta.replay(latest(MetadataRecordType.FEATURE_LEVEL_RECORD, { name: 'group.version', featureLevel: 1 }));
    delta.replay(
      latest(MetadataRecordType.FEATURE_LEVEL_RECORD, { name: 'metadata.version', featureLevel: 21 }),
    );
    const records = writtenRecords(delta.apply(MetadataProvenance.EMPTY));
    expect(
      records.map(
        (record) => record.recordType === MetadataRecordType.FEATURE_LEVEL_RECORD && record.data.name,
      ),
    ).toEqual(['metadata.version', 'group.version']);
  });
});
