import { describe, expect, it } from 'vitest';
import {
  latest,
  partitionRecord,
  registerBrokerRecord,
  uuidOf,
} from '../../test/support/random-metadata-records.js';
import { UnwritableMetadataError } from '../errors/unwritable-metadata-error.js';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { RegisterBrokerRecordData } from '../records/register-broker-record.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import { MetadataRecordSerde } from '../serde/metadata-record-serde.js';
import { DIRECTORY_MIGRATING } from './directory-id.js';
import { ImageWriterOptions } from './image-writer-options.js';
import { MetadataDelta } from './metadata-delta.js';
import { MetadataImage } from './metadata-image.js';
import { MetadataProvenance } from './metadata-provenance.js';

const serde = MetadataRecordSerde.INSTANCE;

function imageAt(
  metadataVersion: number,
  partition: { directories: ReturnType<typeof uuidOf>[]; elr: number[] | null },
): MetadataImage {
  const delta = new MetadataDelta(MetadataImage.EMPTY);
  delta.replay(
    latest(MetadataRecordType.FEATURE_LEVEL_RECORD, {
      name: 'metadata.version',
      featureLevel: metadataVersion,
    }),
  );
  delta.replay(latest(MetadataRecordType.TOPIC_RECORD, { name: 'orders', topicId: uuidOf(1) }));
  delta.replay(
    partitionRecord(uuidOf(1), 0, {
      leaderEpoch: 4,
      partitionEpoch: 6,
      directories: partition.directories,
      eligibleLeaderReplicas: partition.elr,
    }),
  );
  return delta.apply(new MetadataProvenance(2, 1, 0, true));
}

function partitionRecords(image: MetadataImage, options?: ImageWriterOptions): ApiMessageAndVersion[] {
  return [...image.records(options)].filter(
    (record) => record.recordType === MetadataRecordType.PARTITION_RECORD,
  );
}

function replayed(records: Iterable<ApiMessageAndVersion>): MetadataImage {
  const delta = new MetadataDelta(MetadataImage.EMPTY);
  for (const record of records) delta.replay(serde.read(serde.serialize(record)));
  return delta.apply(new MetadataProvenance(2, 1, 0, true));
}

describe('ImageWriterOptions', () => {
  it.each([
    [14, 0],
    [16, 0],
    [17, 1],
    [22, 1],
    [23, 2],
    [27, 2],
  ])('metadata.version %i writes PartitionRecord v%i', (metadataVersion, recordVersion) => {
    const options = new ImageWriterOptions(metadataVersion);
    expect(options.partitionRecordVersion()).toBe(recordVersion);
    const image = imageAt(metadataVersion, {
      directories: [DIRECTORY_MIGRATING, DIRECTORY_MIGRATING],
      elr: null,
    });
    expect(partitionRecords(image).map((record) => record.version)).toEqual([recordVersion]);
  });

  it('writes the highest versions for an image without metadata.version', () => {
    expect(ImageWriterOptions.LATEST.partitionRecordVersion()).toBe(2);
  });

  it('before directory assignment, MIGRATING directories are left out and come back on replay', () => {
    const image = imageAt(16, { directories: [DIRECTORY_MIGRATING, DIRECTORY_MIGRATING], elr: null });
    const [record] = partitionRecords(image);
    expect(record?.data).toMatchObject({ directories: [] });
    expect(replayed(image.records()).topics.getPartition(uuidOf(1), 0)?.directories).toEqual([
      DIRECTORY_MIGRATING,
      DIRECTORY_MIGRATING,
    ]);
  });

  it('before directory assignment, a replica placed in a directory is a loss: an UnwritableMetadataError by default', () => {
    const image = imageAt(16, { directories: [uuidOf(100), DIRECTORY_MIGRATING], elr: null });
    expect(() => [...image.records()]).toThrow(UnwritableMetadataError);
    expect(() => [...image.records()]).toThrow(/directory assignment state.*metadata.version 16/);
    const losses: string[] = [];
    const records = partitionRecords(image, new ImageWriterOptions(16, (loss) => losses.push(loss)));
    expect(losses).toEqual(['the directory assignment state of one or more replicas']);
    expect(records[0]?.data).toMatchObject({ directories: [] });
    // From 3.7-IV2 the same image writes its directories.
    expect(
      partitionRecords(imageAt(17, { directories: [uuidOf(100), DIRECTORY_MIGRATING], elr: null }))[0]?.data,
    ).toMatchObject({ directories: [uuidOf(100), DIRECTORY_MIGRATING] });
  });

  it('writes the ELR only from 4.0-IV1, and never an empty one (as Kafka: the tagged field takes no bytes)', () => {
    const directories = [uuidOf(100), uuidOf(101)];
    expect(partitionRecords(imageAt(23, { directories, elr: [2] }))[0]?.data).toMatchObject({
      eligibleLeaderReplicas: [2],
      lastKnownElr: null,
    });
    expect(partitionRecords(imageAt(22, { directories, elr: [2] }))[0]?.data).toMatchObject({
      eligibleLeaderReplicas: null,
    });
    const empty = partitionRecords(imageAt(23, { directories, elr: [] }))[0]!;
    expect(empty.data).toMatchObject({ eligibleLeaderReplicas: null, lastKnownElr: null });
    const withEmptyLists = serde.serialize({
      ...empty,
      data: { ...empty.data, eligibleLeaderReplicas: [], lastKnownElr: [] },
    } as ApiMessageAndVersion);
    expect(serde.serialize(empty).length).toBe(withEmptyLists.length - 6);
  });

  it.each([
    [6, 0],
    [7, 1],
    [8, 2],
    [17, 3],
    [29, 3],
    [30, 4],
  ])('metadata.version %i writes RegisterBrokerRecord v%i', (metadataVersion, recordVersion) => {
    expect(new ImageWriterOptions(metadataVersion).registerBrokerRecordVersion()).toBe(recordVersion);
  });

  it('a broker state the RegisterBrokerRecord version lacks is a loss, and is written at its default', () => {
    const losses: string[] = [];
    const record = (image: MetadataImage, metadataVersion: number) =>
      registerBrokerRecordAt(image, metadataVersion, losses);
    const shuttingDown = brokerImage({ inControlledShutdown: true, logDirs: [] });
    expect(record(shuttingDown, 6)).toMatchObject({ version: 0, data: { inControlledShutdown: false } });
    expect(losses).toEqual(['the inControlledShutdown state of one or more brokers']);
    expect(record(shuttingDown, 7)).toMatchObject({ version: 1, data: { inControlledShutdown: true } });
    const withDirectories = brokerImage({ inControlledShutdown: false, logDirs: [uuidOf(9)] });
    expect(() => [...withDirectories.records(new ImageWriterOptions(16))]).toThrow(
      /online log directories of one or more brokers cannot be represented at metadata.version 16/,
    );
    expect(record(withDirectories, 17)).toMatchObject({ version: 3, data: { logDirs: [uuidOf(9)] } });
  });

  it('a migrating ZooKeeper broker below metadata.version 8 is a loss, and is written as not migrating', () => {
    const losses: string[] = [];
    const migrating = brokerImage({ isMigratingZkBroker: true });
    expect(registerBrokerRecordAt(migrating, 7, losses)).toMatchObject({
      version: 1,
      data: { isMigratingZkBroker: false },
    });
    expect(losses).toEqual(['the isMigratingZkBroker state of one or more brokers']);
    expect(registerBrokerRecordAt(migrating, 8, losses)).toMatchObject({
      version: 2,
      data: { isMigratingZkBroker: true },
    });
    expect(losses).toHaveLength(1);
  });

  it('cordoned log directories below metadata.version 30 are a loss; an empty list is dropped silently', () => {
    const losses: string[] = [];
    const cordoned = brokerImage({ cordonedLogDirs: [uuidOf(9)] });
    expect(registerBrokerRecordAt(cordoned, 29, losses)).toMatchObject({
      version: 3,
      data: { cordonedLogDirs: null },
    });
    expect(losses).toEqual(['the cordoned log directories of one or more brokers']);
    expect(registerBrokerRecordAt(cordoned, 30, losses)).toMatchObject({
      version: 4,
      data: { cordonedLogDirs: [uuidOf(9)] },
    });
    expect(registerBrokerRecordAt(brokerImage({ cordonedLogDirs: [] }), 29, losses)).toMatchObject({
      version: 3,
      data: { cordonedLogDirs: null },
    });
    expect(losses).toHaveLength(1);
  });
});

/** An image holding broker 1, registered with `fields` over a plain registration. */
function brokerImage(fields: Partial<RegisterBrokerRecordData>): MetadataImage {
  const delta = new MetadataDelta(MetadataImage.EMPTY);
  delta.replay(registerBrokerRecord(1, fields));
  return delta.apply(new MetadataProvenance(0, 1, 0, true));
}

/** The image's RegisterBrokerRecord as written at `metadataVersion`, its losses pushed to `losses`. */
function registerBrokerRecordAt(
  image: MetadataImage,
  metadataVersion: number,
  losses: string[],
): ApiMessageAndVersion | undefined {
  return [...image.records(new ImageWriterOptions(metadataVersion, (loss) => losses.push(loss)))].find(
    (written) => written.recordType === MetadataRecordType.REGISTER_BROKER_RECORD,
  );
}
