import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { latest, partitionRecord, uuidOf } from '../../test/support/random-metadata-records.js';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import { MetadataRecordSerde } from '../serde/metadata-record-serde.js';
import { imageDigest } from './image-digest.js';
import { ImageWriterOptions } from './image-writer-options.js';
import { MetadataDelta } from './metadata-delta.js';
import { MetadataImage } from './metadata-image.js';
import { MetadataProvenance } from './metadata-provenance.js';
import { partitionChange } from './partition-registration.js';

function replay(records: readonly ApiMessageAndVersion[], offset: number): MetadataImage {
  const delta = new MetadataDelta(MetadataImage.EMPTY);
  for (const record of records) delta.replay(record);
  return delta.apply(new MetadataProvenance(offset, 1, offset * 10, true));
}

function broker(brokerId: number): ApiMessageAndVersion {
  return latest(MetadataRecordType.REGISTER_BROKER_RECORD, {
    brokerId,
    isMigratingZkBroker: false,
    incarnationId: uuidOf(brokerId + 100),
    brokerEpoch: 10n + BigInt(brokerId),
    endPoints: [{ name: 'PLAINTEXT', host: 'localhost', port: 9092 + brokerId, securityProtocol: 0 }],
    features: [{ name: 'metadata.version', minSupportedVersion: 7, maxSupportedVersion: 27 }],
    rack: null,
    fenced: false,
    inControlledShutdown: false,
    logDirs: [uuidOf(brokerId + 200)],
    cordonedLogDirs: null,
  });
}

function config(name: string, value: string): ApiMessageAndVersion {
  return latest(MetadataRecordType.CONFIG_RECORD, { resourceType: 2, resourceName: 'topic-1', name, value });
}

/** A topic and its partitions, in the order a controller writes them. */
function topic(index: number, partitions: number, leaderEpoch = 0): ApiMessageAndVersion[] {
  const topicId = uuidOf(index);
  return [
    latest(MetadataRecordType.TOPIC_RECORD, { name: `topic-${index}`, topicId }),
    ...Array.from({ length: partitions }, (_, partitionId) =>
      partitionRecord(topicId, partitionId, { leaderEpoch }),
    ),
  ];
}

const metadataVersion = latest(MetadataRecordType.FEATURE_LEVEL_RECORD, {
  name: 'metadata.version',
  featureLevel: 27,
});

describe('imageDigest', () => {
  const entities = [[broker(1)], [broker(2)], topic(1, 3), topic(2, 2), [config('retention.ms', '1')]];
  const inOrder = [metadataVersion, ...entities.flat()];
  const image = replay(inOrder, inOrder.length - 1);

  it('is equal for equal images whatever order their records were applied in, and at any offset', () => {
    const reversed = [metadataVersion, ...[...entities].reverse().flat()];
    const changedThenRestored = [
      ...inOrder,
      config('retention.ms', '2'),
      latest(MetadataRecordType.PARTITION_CHANGE_RECORD, partitionChange(uuidOf(2), 0, { leader: 2 })),
      config('retention.ms', '1'),
    ];
    const restored = replay(changedThenRestored, 500);
    // A snapshot load: the image rebuilt from its own records on the empty image.
    const rebuiltFromItsOwnRecords = replay([...restored.records()], 900);

    expect(imageDigest(replay(reversed, 77))).toEqual(imageDigest(image));
    expect(imageDigest(rebuiltFromItsOwnRecords)).toEqual(imageDigest(restored));
    expect(imageDigest(restored).digest).not.toBe(imageDigest(image).digest);
    expect(imageDigest(image).recordCount).toBe(inOrder.length);
  });

  it('changes when one field of one record changes, or a record goes', () => {
    const digest = imageDigest(image).digest;
    const otherLeaderEpoch = [
      metadataVersion,
      ...entities.slice(0, 3).flat(),
      ...topic(2, 2, 1),
      config('retention.ms', '1'),
    ];
    const otherConfigValue = [...inOrder.slice(0, -1), config('retention.ms', '10')];
    const withoutBroker = inOrder.filter((record) => record !== entities[1]?.[0]);
    for (const records of [otherLeaderEpoch, otherConfigValue, withoutBroker]) {
      expect(imageDigest(replay(records, inOrder.length - 1)).digest).not.toBe(digest);
    }
  });

  it('is SHA-256 over the serialised records sorted bytewise, each after its 4-byte big-endian length', () => {
    const values = [...image.records()].map((record) => MetadataRecordSerde.INSTANCE.serialize(record));
    const sorted = [...values].sort(Buffer.compare);
    // The image lists its records by part (features, brokers, topics, configs), not bytewise.
    expect(sorted).not.toEqual(values);
    const hash = createHash('sha256');
    for (const value of sorted) {
      const length = Buffer.alloc(4);
      length.writeUInt32BE(value.length);
      hash.update(length).update(value);
    }
    expect(imageDigest(image)).toEqual({
      digest: hash.digest('hex'),
      recordCount: values.length,
      sizeInBytes: values.reduce((sum, value) => sum + value.length, 0),
    });
  });

  it('writes the records at the versions the options select', () => {
    const older = imageDigest(image, new ImageWriterOptions(17, () => {}));
    expect(older.digest).not.toBe(imageDigest(image).digest);
    expect(older.recordCount).toBe(imageDigest(image).recordCount);
  });
});
