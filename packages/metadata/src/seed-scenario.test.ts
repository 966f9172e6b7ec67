/**
 * The scenario the project started from (KAFKA-20841), end to end: a real KafkaRaftClient over the
 * real file-backed log hands the MetadataLoader one committed read larger than 8 MiB while the same
 * segment holds uncommitted batches after the high watermark, and the SnapshotGenerator snapshots
 * before the high watermark moves. The snapshot must hold exactly the records below the high
 * watermark, whatever the listener's read buffer.
 *
 * The planted bugs put Kafka's old read back: a committed read comes back in whole buffer fills,
 * the last one running past the high watermark (what `readInto` without the slice bound gave the
 * iterator), first under raft's guarded reader, then through an unguarded reader as Kafka's was.
 * Both make `expectExactlyTheCommittedRecords` fail, which is what the scenario is for.
 */
import { type BatchReader, type LogFetchInfo, openKafkaRaftLog, RaftApiKey, type RaftLog } from '@kraft/raft';
import { RaftClientTestContext, readInWholeBufferFills } from '@kraft/raft/test-kit';
import { type Batch, MemoryFileSystem, RecordsIterator } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import {
  ManualEventQueue,
  RecordingFaultHandler,
  RecordingPublisher,
} from '../test/support/loader-fixtures.js';
import { latest } from '../test/support/random-metadata-records.js';
import { imageRecordValues, snapshotRecordValues } from '../test/support/snapshot-reading.js';
import { RecordAboveHighWatermarkError } from './errors/record-above-high-watermark-error.js';
import { MetadataFaultCounts, metadataLoadingFaultHandler } from './fault/metadata-fault-handlers.js';
import { SnapshotsDisabled } from './fault/snapshots-disabled.js';
import { MetadataDelta } from './image/metadata-delta.js';
import { MetadataImage } from './image/metadata-image.js';
import { MetadataProvenance } from './image/metadata-provenance.js';
import { MetadataLoader } from './loader/metadata-loader.js';
import { MetadataRecordType } from './records/metadata-record-type.js';
import type { ApiMessageAndVersion } from './serde/api-message-and-version.js';
import { MetadataRecordSerde } from './serde/metadata-record-serde.js';
import { SnapshotEmitter } from './snapshot/snapshot-emitter.js';
import { SnapshotGenerator } from './snapshot/snapshot-generator.js';

const MEBIBYTE = 1024 * 1024;
/** Kafka refuses strings over 32767 bytes: three config values of 32,000 make a batch of about 96 KB. */
const VALUE_BYTES = 32_000;
const RECORDS_PER_BATCH = 3;
/** About 20 MiB committed in one read: more than each buffer below, so each refills. */
const COMMITTED_BATCHES = 200;
const UNCOMMITTED_BATCHES = 30;
const BUFFERS = [
  ['smaller than', 1 * MEBIBYTE],
  ['equal to', 8 * MEBIBYTE],
  ['larger than', 16 * MEBIBYTE],
] as const;

const serde = MetadataRecordSerde.INSTANCE;
const metadataVersion = latest(MetadataRecordType.FEATURE_LEVEL_RECORD, {
  name: 'metadata.version',
  featureLevel: 21,
});

function configRecords(prefix: string): ApiMessageAndVersion[] {
  return Array.from({ length: RECORDS_PER_BATCH }, (_, index) =>
    latest(MetadataRecordType.CONFIG_RECORD, {
      resourceType: 4,
      resourceName: '0',
      name: `${prefix}.${index}`,
      value: `${prefix}.${index}`.padEnd(VALUE_BYTES, '.'),
    }),
  );
}

function withOldCommittedRead(log: RaftLog, bufferBytes: number): RaftLog {
  return new Proxy(log, {
    get: (target, property) => {
      if (property === 'read') {
        return (startOffset: number, isolation: 'committed' | 'uncommitted', maxSizeBytes?: number) =>
          isolation === 'committed'
            ? readInWholeBufferFills(target, startOffset, bufferBytes)
            : target.read(startOffset, isolation, maxSizeBytes);
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Kafka's listener reader before the guard: every batch the iterator finds, unchecked. */
class UnguardedBatchReader implements BatchReader {
  readonly baseOffset: number;
  private last: number | undefined;

  constructor(
    private readonly info: LogFetchInfo,
    private readonly bufferBytes: number,
  ) {
    this.baseOffset = info.startOffsetMetadata.offset;
  }

  *[Symbol.iterator](): Iterator<Batch> {
    for (const batch of new RecordsIterator(this.info.records, { maxBatchSizeBytes: this.bufferBytes })) {
      this.last = batch.lastOffset;
      yield batch;
    }
  }

  lastOffset(): number | undefined {
    return this.last;
  }

  close(): void {}
}

interface ScenarioOptions {
  readonly bufferBytes: number;
  readonly plantedBug?: 'old-read-in-raft' | 'old-read-unguarded';
}

async function runSeedScenario(options: ScenarioOptions) {
  const fileSystem = new MemoryFileSystem();
  const openLog = (): RaftLog => {
    const log = openKafkaRaftLog({ dir: '/metadata', fileSystem, time: () => 0 });
    return options.plantedBug === 'old-read-in-raft' ? withOldCommittedRead(log, options.bufferBytes) : log;
  };
  const context = await RaftClientTestContext.builder(0, [0, 1, 2])
    .withLogFactory(openLog)
    .withListenerReadBufferBytes(options.bufferBytes)
    .build();
  const epoch = await context.becomeLeader();

  const queue = new ManualEventQueue();
  const snapshotsDisabled = new SnapshotsDisabled();
  const terminated: unknown[] = [];
  const faultCounts = new MetadataFaultCounts();
  const loadingFaults = metadataLoadingFaultHandler({
    isController: true,
    terminate: (error) => terminated.push(error),
    snapshotsDisabled,
    counts: faultCounts,
  });
  const loader = new MetadataLoader({
    highWatermark: () => context.client.highWatermark(),
    faultHandler: loadingFaults,
    eventQueue: queue,
  });
  const generator = new SnapshotGenerator({
    emitter: new SnapshotEmitter({ raftClient: context.client }),
    faultHandler: new RecordingFaultHandler(),
    snapshotsDisabled,
    maxBytesSinceLastSnapshot: 8 * MEBIBYTE,
  });
  const observer = new RecordingPublisher();
  loader.installPublishers([generator, observer]);
  const unguarded = options.plantedBug === 'old-read-unguarded';
  if (!unguarded) context.client.register(loader);

  // The bootstrap record commits first, so the loader has caught up and installed the generator.
  const committed: ApiMessageAndVersion[] = [metadataVersion];
  context.client.scheduleAppend(epoch, [serde.serialize(metadataVersion)]);
  await context.advanceHighWatermarkAsLeader();
  await context.poll();
  if (unguarded)
    loader.handleCommit(new UnguardedBatchReader(context.log.read(0, 'committed'), options.bufferBytes));
  queue.runAll();
  const loadedBeforeBigRead = loader.currentImage().offset() + 1;
  expect(observer.installed).toBe(1);

  for (let index = 0; index < COMMITTED_BATCHES; index += 1) {
    const records = configRecords(`committed-${index}`);
    committed.push(...records);
    context.client.scheduleAppend(
      epoch,
      records.map((record) => serde.serialize(record)),
    );
    await context.poll();
  }
  const highWatermark = context.log.endOffset();
  for (let index = 0; index < UNCOMMITTED_BATCHES; index += 1) {
    context.client.scheduleAppend(
      epoch,
      configRecords(`uncommitted-${index}`).map((record) => serde.serialize(record)),
    );
    await context.poll();
  }
  for (const voterId of [1, 2]) {
    context.deliverRequest(
      RaftApiKey.FETCH,
      context.fetchRequest({
        epoch,
        replicaId: voterId,
        fetchOffset: highWatermark,
        lastFetchedEpoch: epoch,
      }),
      voterId,
    );
  }
  // Raft's own reader guard stops the node (an invariant thrown out of poll) on a bad read.
  let raftError: unknown;
  try {
    await context.poll();
    await context.poll();
  } catch (error) {
    raftError = error;
  }
  expect(context.client.highWatermark()).toBe(highWatermark);
  expect(context.log.endOffset()).toBe(highWatermark + UNCOMMITTED_BATCHES * RECORDS_PER_BATCH);
  const committedRead = context.log.read(loadedBeforeBigRead, 'committed').records.sizeInBytes();
  expect(committedRead).toBeGreaterThan(Math.max(8 * MEBIBYTE, options.bufferBytes));

  if (unguarded) {
    const oldRead = withOldCommittedRead(context.log, options.bufferBytes).read(
      loadedBeforeBigRead,
      'committed',
    );
    loader.handleCommit(new UnguardedBatchReader(oldRead, options.bufferBytes));
  }
  queue.runAll();
  await generator.idle();
  return {
    highWatermark,
    highWatermarkAfter: context.client.highWatermark(),
    epoch,
    log: context.log,
    latestSnapshotId: context.client.latestSnapshotId(),
    committed,
    loader,
    raftError,
    terminated,
    faultCounts,
  };
}

type Outcome = Awaited<ReturnType<typeof runSeedScenario>>;

function imageOf(records: readonly ApiMessageAndVersion[], provenance: MetadataProvenance): MetadataImage {
  const delta = new MetadataDelta(MetadataImage.EMPTY);
  for (const record of records) delta.replay(record);
  return delta.apply(provenance);
}

/** The snapshot was written before the high watermark moved and holds the committed records only. */
function expectExactlyTheCommittedRecords(outcome: Outcome): void {
  expect(outcome.raftError).toBeUndefined();
  expect(outcome.faultCounts.loadErrorCount).toBe(0);
  expect(outcome.highWatermarkAfter).toBe(outcome.highWatermark);
  expect(outcome.latestSnapshotId).toEqual({ offset: outcome.highWatermark, epoch: outcome.epoch });
  const expected = imageOf(outcome.committed, MetadataProvenance.EMPTY);
  const values = snapshotRecordValues(outcome.log, { offset: outcome.highWatermark, epoch: outcome.epoch });
  // Buffer.equals: a deep equality over 20 MiB of bytes one element at a time takes minutes.
  expect(Buffer.concat(values).equals(Buffer.concat(imageRecordValues(expected)))).toBe(true);
  expect(values).toHaveLength(outcome.committed.length);
  expect(values.some((value) => value.includes('uncommitted-'))).toBe(false);
  expect(outcome.loader.currentImage().offset()).toBe(outcome.highWatermark - 1);
}

describe('the seed scenario: a committed read over 8 MiB with uncommitted batches after the high watermark', () => {
  it.each(BUFFERS)(
    'with a listener buffer %s 8 MiB, the snapshot holds exactly the records below the high watermark',
    async (_name, bufferBytes) => {
      expectExactlyTheCommittedRecords(await runSeedScenario({ bufferBytes }));
    },
  );

  it.each(BUFFERS)(
    "planted bug: with Kafka's old committed read and a buffer %s 8 MiB, raft's reader stops the node and the scenario fails",
    async (_name, bufferBytes) => {
      const outcome = await runSeedScenario({ bufferBytes, plantedBug: 'old-read-in-raft' });
      expect(() => expectExactlyTheCommittedRecords(outcome)).toThrow();
      expect(String(outcome.raftError)).toMatch(/at or above the high watermark/);
      expect(outcome.latestSnapshotId).toBeUndefined();
      expect(outcome.loader.currentImage().offset()).toBeLessThan(outcome.highWatermark);
    },
  );

  it("planted bug: Kafka's old read through an unguarded reader trips the loader's own guard, and nothing above the high watermark is applied", async () => {
    const outcome = await runSeedScenario({ bufferBytes: 1 * MEBIBYTE, plantedBug: 'old-read-unguarded' });
    expect(() => expectExactlyTheCommittedRecords(outcome)).toThrow();
    expect(outcome.terminated).toHaveLength(1);
    expect((outcome.terminated[0] as Error).cause).toBeInstanceOf(RecordAboveHighWatermarkError);
    expect(outcome.loader.stopped()).toMatch(/at or above the high watermark/);
    expect(outcome.loader.currentImage().offset()).toBeLessThan(outcome.highWatermark);
    const applied = [...outcome.loader.currentImage().records()].map((record) => serde.serialize(record));
    expect(applied.some((value) => value.includes('uncommitted-'))).toBe(false);
  });
});
