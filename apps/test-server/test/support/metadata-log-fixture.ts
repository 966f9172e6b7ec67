import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RaftLog } from '@kraft/log';
import {
  type ApiMessageAndVersion,
  apiMessageAndVersion,
  MetadataRecordSerde,
  MetadataRecordType,
} from '@kraft/metadata';
import { Uuid } from '@kraft/protocol';
import {
  buildLeaderChangeBatch,
  buildSnapshotFooterBatch,
  buildSnapshotHeaderBatch,
  MemoryRecordsBuilder,
} from '@kraft/records';

export const FIXTURE_TIMESTAMP_MS = 1_700_000_000_000;
export const FIXTURE_TOPIC_ID = Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A');

/** The metadata records of the fixture's data batch (offsets 1-3) and of its snapshot. */
export const FIXTURE_RECORDS: readonly ApiMessageAndVersion[] = [
  apiMessageAndVersion(MetadataRecordType.FEATURE_LEVEL_RECORD, 0, {
    name: 'metadata.version',
    featureLevel: 21,
  }),
  apiMessageAndVersion(MetadataRecordType.TOPIC_RECORD, 0, { name: 'events', topicId: FIXTURE_TOPIC_ID }),
  apiMessageAndVersion(MetadataRecordType.PRODUCER_IDS_RECORD, 0, {
    brokerId: 1,
    brokerEpoch: 7n,
    nextProducerId: 2n ** 62n,
  }),
];

export interface MetadataLogFixture {
  readonly directory: string;
  /** `__cluster_metadata-0/00000000000000000000.log`: a LeaderChange batch, then a data batch. */
  readonly segmentPath: string;
  /** `00000000000000000004-0000000001.checkpoint`: header, the same records, footer. */
  readonly snapshotPath: string;
}

function metadataBatch(baseOffset: number, epoch: number, records: readonly ApiMessageAndVersion[]) {
  const builder = new MemoryRecordsBuilder({ baseOffset, partitionLeaderEpoch: epoch });
  for (const record of records) {
    builder.append({
      timestamp: FIXTURE_TIMESTAMP_MS,
      value: MetadataRecordSerde.INSTANCE.serialize(record),
    });
  }
  return builder.build();
}

/** Writes a real metadata log and snapshot with @kraft/log, as a node would, in a fresh temp dir. */
export async function writeMetadataLogFixture(): Promise<MetadataLogFixture> {
  const directory = mkdtempSync(join(tmpdir(), 'kraft-dump-log-'));
  const log = RaftLog.open({ dir: directory, time: () => FIXTURE_TIMESTAMP_MS });
  try {
    const control = { baseOffset: 0, partitionLeaderEpoch: 1, timestamp: FIXTURE_TIMESTAMP_MS };
    log.appendAsLeader(
      buildLeaderChangeBatch(control, {
        version: 0,
        leaderId: 1,
        voters: [{ voterId: 1, voterDirectoryId: Uuid.ZERO }],
        grantingVoters: [{ voterId: 1, voterDirectoryId: Uuid.ZERO }],
      }),
      1,
    );
    log.appendAsLeader(metadataBatch(1, 1, FIXTURE_RECORDS), 1);
    await log.flush();
    log.updateHighWatermark(4);
    const writer = log.createNewSnapshot({ offset: 4, epoch: 1 });
    if (writer === undefined) throw new Error('the fixture snapshot exists already');
    writer.append(
      buildSnapshotHeaderBatch(
        { baseOffset: 0, partitionLeaderEpoch: 1, timestamp: FIXTURE_TIMESTAMP_MS },
        { version: 0, lastContainedLogTimestamp: BigInt(FIXTURE_TIMESTAMP_MS) },
      ),
    );
    writer.append(metadataBatch(1, 1, FIXTURE_RECORDS));
    writer.append(
      buildSnapshotFooterBatch(
        { baseOffset: 4, partitionLeaderEpoch: 1, timestamp: FIXTURE_TIMESTAMP_MS },
        { version: 0 },
      ),
    );
    writer.freeze();
    writer.close();
  } finally {
    log.close();
  }
  const partition = join(directory, '__cluster_metadata-0');
  const files = readdirSync(partition);
  const snapshot = files.find((name) => name.endsWith('.checkpoint'));
  if (snapshot === undefined) throw new Error(`no snapshot among ${files}`);
  return {
    directory,
    segmentPath: join(partition, '00000000000000000000.log'),
    snapshotPath: join(partition, snapshot),
  };
}
