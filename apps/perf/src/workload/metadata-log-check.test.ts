import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ApiMessageAndVersion,
  apiMessageAndVersion,
  MetadataDelta,
  MetadataImage,
  MetadataProvenance,
  MetadataRecordSerde,
  MetadataRecordType,
} from '@kraft/metadata';
import { Uuid } from '@kraft/protocol';
import { openKafkaRaftLog } from '@kraft/raft';
import { RaftClientTestContext } from '@kraft/raft/test-kit';
import { NodeFileSystem } from '@kraft/records';
import { afterEach, describe, expect, it } from 'vitest';
import { imageDigest } from './image-digest.js';
import { PARTITION_DIRECTORY } from './local-quorum.js';
import { checkNodeLog } from './metadata-log-check.js';

const serde = MetadataRecordSerde.INSTANCE;
const metadataVersion = apiMessageAndVersion(MetadataRecordType.FEATURE_LEVEL_RECORD, 0, {
  name: 'metadata.version',
  featureLevel: 21,
});
const topic = (name: string, id: bigint) =>
  apiMessageAndVersion(MetadataRecordType.TOPIC_RECORD, 0, { name, topicId: Uuid.fromLongs(7n, id) });

function imageOf(records: readonly ApiMessageAndVersion[]): MetadataImage {
  const delta = new MetadataDelta(MetadataImage.EMPTY);
  for (const record of records) delta.replay(record);
  return delta.apply(MetadataProvenance.EMPTY);
}

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/**
 * A real on-disk log written through a KafkaRaftClient: two committed appends, a snapshot after
 * each; the second snapshot leaves out a record (`plantedBug`) or not.
 */
async function writeLog(plantedBug: boolean): Promise<{ directory: string; all: ApiMessageAndVersion[] }> {
  const directory = mkdtempSync(join(tmpdir(), 'kraft-log-check-'));
  directories.push(directory);
  const context = await RaftClientTestContext.builder(0, [0, 1, 2])
    .withLogFactory(() =>
      openKafkaRaftLog({
        dir: directory,
        fileSystem: new NodeFileSystem(),
        topicPartition: PARTITION_DIRECTORY,
        topicId: Uuid.fromLongs(0n, 2n),
      }),
    )
    .build();
  const epoch = await context.becomeLeader();
  const committed: ApiMessageAndVersion[] = [];
  const appendAndSnapshot = async (records: ApiMessageAndVersion[], dropLast: boolean) => {
    context.client.scheduleAppend(
      epoch,
      records.map((record) => serde.write(record)),
    );
    await context.advanceHighWatermarkAsLeader();
    await context.poll();
    committed.push(...records);
    const snapshotRecords = [...imageOf(committed).records()].slice(0, dropLast ? -1 : undefined);
    const writer = context.client.createSnapshot(
      { offset: context.client.highWatermark() as number, epoch },
      0,
    );
    writer?.append(snapshotRecords.map((record) => serde.write(record)));
    writer?.freeze();
    writer?.close();
  };
  await appendAndSnapshot([metadataVersion, topic('a', 1n)], false);
  await appendAndSnapshot([topic('b', 2n), topic('c', 3n)], plantedBug);
  context.log.close();
  return { directory, all: committed };
}

describe('checkNodeLog', () => {
  it('replays a real log to its image and finds each snapshot equal to the replay at its offset', async () => {
    const { directory, all } = await writeLog(false);
    const check = checkNodeLog(1, directory);
    expect(check.replayedDigest).toBe(imageDigest(imageOf(all)).digest);
    expect(check.snapshots).toHaveLength(2);
    expect(check.snapshots.every((snapshot) => snapshot.matches)).toBe(true);
    expect(check.replayedRecords).toBe(all.length);
  });

  it('planted bug: a snapshot that lost a record does not match the log', async () => {
    const { directory } = await writeLog(true);
    const [first, second] = checkNodeLog(1, directory).snapshots;
    expect(first?.matches).toBe(true);
    expect(second?.matches).toBe(false);
    expect(second?.logDigest).toBeDefined();
  });

  it('replays only up to the offset it is given', async () => {
    const { directory } = await writeLog(false);
    const check = checkNodeLog(1, directory, 2);
    expect(check.replayedThroughOffset).toBe(2);
    expect(check.replayedDigest).toBe(imageDigest(imageOf([metadataVersion, topic('a', 1n)])).digest);
  });
});
