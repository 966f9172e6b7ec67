// A program outside the workspace, installed from a registry, using each package's public API
// the way its README shows: a Kafka message round trip, a record batch built and decoded, a log
// opened on disk, a metadata record framed, read back and applied to an image, and a single-node
// quorum over TCP that commits a record and describes itself.
// It prints one JSON line that the registry test checks.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RaftLog } from '@kraft/log';
import {
  apiMessageAndVersion,
  MetadataDelta,
  MetadataImage,
  MetadataProvenance,
  MetadataRecordSerde,
  MetadataRecordType,
} from '@kraft/metadata';
import { Uuid, VoteRequest } from '@kraft/protocol';
import {
  type BatchReader,
  createSystemRandom,
  FileQuorumStateStore,
  KafkaRaftClient,
  type Listener,
  openKafkaRaftLog,
  RaftDriver,
  type SnapshotReader,
  SystemTime,
  VoterSet,
} from '@kraft/raft';
import { MemoryRecords, MemoryRecordsBuilder, NodeFileSystem } from '@kraft/records';
import { TcpNetworkChannel } from '@kraft/transport-tcp';

const COMMIT_TIMEOUT_MS = 30_000;

function voteRoundTrip(): string | null {
  const body = VoteRequest.write(VoteRequest.defaults({ clusterId: 'consumer-cluster', topics: [] }), 2);
  return VoteRequest.read(body, 2).clusterId;
}

function batchRoundTrip(): string[] {
  const builder = new MemoryRecordsBuilder({ baseOffset: 0 });
  for (const value of ['first', 'second'])
    builder.append({ timestamp: Date.now(), value: Buffer.from(value) });
  const bytes = Buffer.from(builder.build().buffer());
  const values: string[] = [];
  for (const batch of MemoryRecords.readableRecords(bytes).batches()) {
    batch.ensureValid();
    for (const record of batch.records()) values.push(record.value?.toString('utf8') ?? '');
  }
  return values;
}

function openAndCloseLog(directory: string): number {
  const log = RaftLog.open({ dir: join(directory, 'plain-log') });
  try {
    return log.endOffset();
  } finally {
    log.close();
  }
}

function topicIntoImage(): string | undefined {
  const serde = MetadataRecordSerde.INSTANCE;
  const topicId = Uuid.randomUuid();
  const value = serde.serialize(
    apiMessageAndVersion(MetadataRecordType.TOPIC_RECORD, 0, { name: 'events', topicId }),
  );
  const delta = new MetadataDelta(MetadataImage.EMPTY);
  delta.replay(serde.read(value));
  const image = delta.apply(new MetadataProvenance(0, 1, Date.now(), true));
  return image.topics.getTopic(topicId)?.name;
}

class CommittedValues implements Listener {
  readonly values: string[] = [];
  handleCommit(reader: BatchReader): void {
    try {
      for (const batch of reader) {
        for (const record of batch.records) this.values.push(record.value?.toString('utf8') ?? '');
      }
    } finally {
      reader.close();
    }
  }
  handleLoadSnapshot(reader: SnapshotReader): void {
    reader.close();
  }
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + COMMIT_TIMEOUT_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Today's API for a single-node quorum; a RaftNode (open, propose, status, close) replaces this
// wiring once the raft package has one.
async function commitOnSingleNodeQuorum(directory: string) {
  const time = new SystemTime();
  const { random } = createSystemRandom();
  const fileSystem = new NodeFileSystem();
  const channel = new TcpNetworkChannel({
    nodeId: 1,
    listeners: [{ name: 'CONTROLLER', host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' }],
  });
  const [bound] = await channel.start();
  const log = openKafkaRaftLog({ dir: directory, fileSystem });
  const quorumStateStore = new FileQuorumStateStore({
    fileSystem,
    path: join(directory, '__cluster_metadata-0', 'quorum-state'),
  });
  const client = new KafkaRaftClient({
    nodeId: 1,
    voters: VoterSet.fromQuorumVotersConfig(`1@127.0.0.1:${bound?.port}`, 'CONTROLLER'),
    log,
    network: channel,
    quorumStateStore,
    random,
    listenerName: 'CONTROLLER',
    config: { appendLingerMs: 0 },
  });
  const listener = new CommittedValues();
  client.register(listener);
  client.initialize(time.milliseconds());
  const driver = new RaftDriver({ client, log, network: channel, quorumStateStore, time });
  const stopped = driver.start();
  channel.attach(driver);
  try {
    await waitFor(() => driver.state().role === 'leader', 'leadership');
    driver.scheduleAppend(driver.state().epoch, [Buffer.from('hello from a consumer')]);
    await waitFor(() => listener.values.includes('hello from a consumer'), 'the commit');
    const { role, epoch, highWatermark } = driver.state();
    return { role, epoch, highWatermark, committed: listener.values };
  } finally {
    channel.beginShutdown();
    await driver.shutdown(5_000);
    await stopped;
    await channel.close();
  }
}

const directory = mkdtempSync(join(tmpdir(), 'kraft-consumer-'));
try {
  const summary = {
    voteClusterId: voteRoundTrip(),
    batchValues: batchRoundTrip(),
    plainLogEndOffset: openAndCloseLog(directory),
    metadataTopicName: topicIntoImage(),
    quorum: await commitOnSingleNodeQuorum(join(directory, 'quorum')),
  };
  process.stdout.write(`${JSON.stringify(summary)}\n`);
} finally {
  rmSync(directory, { recursive: true, force: true });
}
