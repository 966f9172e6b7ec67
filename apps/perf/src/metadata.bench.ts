// Metadata image (issue: `pnpm bench metadata`): replay 1,000,000 PartitionRecords (10,000
// topics × 100 partitions) from their serialized values into a MetadataImage, write that image as
// a snapshot through a real KafkaRaftClient's createSnapshot on the on-disk log, and load the
// snapshot back into a new image. Reported: time, heap growth, snapshot size, and the longest
// stretch the SnapshotEmitter ran without yielding, in wall time and in CPU time (on a loaded
// machine the wall time also counts the process waiting for a core), with the event loop's delay
// percentiles while it wrote, and the young-generation collections (scavenges) that ran while it
// wrote: their number, longest pause and total pause.
//
// With --expose-gc (as `pnpm bench` runs it) the heap is collected before it is measured, and
// again before the write starts: the image's newest objects are then promoted before the
// emitter's steps are timed, as they are in a running node, whose image has aged long before
// its generator runs. Without it the figures also count that promotion.
//
// Env: KRAFT_BENCH_TOPICS (default 10000), KRAFT_BENCH_PARTITIONS (default 100),
// KRAFT_BENCH_DIR (default os.tmpdir()).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks';
import {
  apiMessageAndVersion,
  MetadataDelta,
  MetadataImage,
  MetadataProvenance,
  MetadataRecordSerde,
  MetadataRecordType,
  SnapshotEmitter,
} from '@kraft/metadata';
import { Uuid } from '@kraft/protocol';
import { openKafkaRaftLog } from '@kraft/raft';
import { RaftClientTestContext } from '@kraft/raft/test-kit';
import { NodeFileSystem, RecordsIterator } from '@kraft/records';

function count(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
}

const TOPICS = count('KRAFT_BENCH_TOPICS', 10_000);
const PARTITIONS = count('KRAFT_BENCH_PARTITIONS', 100);
const MEBIBYTE = 1024 * 1024;
const serde = MetadataRecordSerde.INSTANCE;

function serializedRecords(): Buffer[] {
  const values: Buffer[] = [];
  const directories = [Uuid.fromLongs(1n, 101n), Uuid.fromLongs(1n, 102n), Uuid.fromLongs(1n, 103n)];
  for (let topic = 0; topic < TOPICS; topic += 1) {
    const topicId = Uuid.fromLongs(7n, BigInt(topic + 1));
    values.push(
      serde.serialize(
        apiMessageAndVersion(MetadataRecordType.TOPIC_RECORD, 0, { name: `topic-${topic}`, topicId }),
      ),
    );
    for (let partitionId = 0; partitionId < PARTITIONS; partitionId += 1) {
      const replicas = [partitionId % 5, (partitionId + 1) % 5, (partitionId + 2) % 5];
      values.push(
        serde.serialize(
          apiMessageAndVersion(MetadataRecordType.PARTITION_RECORD, 2, {
            partitionId,
            topicId,
            replicas,
            isr: replicas,
            removingReplicas: [],
            addingReplicas: [],
            leader: replicas[0] as number,
            leaderRecoveryState: 0,
            leaderEpoch: 3,
            partitionEpoch: 5,
            directories,
            eligibleLeaderReplicas: [],
            lastKnownElr: [],
          }),
        ),
      );
    }
  }
  return values;
}

function replay(values: readonly Buffer[], provenance: MetadataProvenance): MetadataImage {
  const delta = new MetadataDelta(MetadataImage.EMPTY);
  for (const value of values) delta.replay(serde.read(value));
  return delta.apply(provenance);
}

const collectGarbage = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

function heapMiB(): number {
  return process.memoryUsage().heapUsed / MEBIBYTE;
}

function line(label: string, value: string): void {
  process.stdout.write(`  ${label.padEnd(44)} ${value}\n`);
}

async function main(): Promise<void> {
  process.stdout.write(`metadata image: ${TOPICS} topics × ${PARTITIONS} partitions\n`);
  const values = serializedRecords();
  const valueBytes = values.reduce((sum, value) => sum + value.length, 0);
  line('records (serialized)', `${values.length} (${(valueBytes / MEBIBYTE).toFixed(1)} MiB)`);

  collectGarbage();
  const heapBefore = heapMiB();
  let startMs = performance.now();
  const image = replay(values, new MetadataProvenance(0, 1, 0, true));
  const replayMs = performance.now() - startMs;
  collectGarbage();
  line(
    'replay into an image',
    `${replayMs.toFixed(0)} ms (${((values.length / replayMs) * 1000).toFixed(0)} records/s)`,
  );
  line(
    'heap growth holding the image',
    `${(heapMiB() - heapBefore).toFixed(0)} MiB (heap ${heapMiB().toFixed(0)} MiB)`,
  );

  const directory = mkdtempSync(join(process.env['KRAFT_BENCH_DIR'] ?? tmpdir(), 'kraft-metadata-bench-'));
  try {
    const fileSystem = new NodeFileSystem();
    const context = await RaftClientTestContext.builder(0, [0])
      .withLogFactory(() => openKafkaRaftLog({ dir: directory, fileSystem }))
      .build();
    await context.poll();
    const epoch = context.client.leaderAndEpoch().epoch;
    context.client.scheduleAppend(epoch, [values[0] as Buffer]);
    await context.poll();
    await context.poll();
    const highWatermark = context.client.highWatermark() as number;
    const snapshotImage = new MetadataDelta(image).apply(
      new MetadataProvenance(highWatermark - 1, epoch, 0, true),
    );

    collectGarbage();
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    let longestStepCpuMs = 0;
    let stepCpuStart = process.cpuUsage();
    const yieldToEventLoop = async (): Promise<void> => {
      const used = process.cpuUsage(stepCpuStart);
      longestStepCpuMs = Math.max(longestStepCpuMs, (used.user + used.system) / 1000);
      await new Promise<void>((resolve) => setImmediate(resolve));
      stepCpuStart = process.cpuUsage();
    };
    const scavengeMs: number[] = [];
    const gcObserver = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const kind = (entry as { detail?: { kind?: number } }).detail?.kind;
        if (kind === constants.NODE_PERFORMANCE_GC_MINOR) scavengeMs.push(entry.duration);
      }
    });
    gcObserver.observe({ entryTypes: ['gc'] });
    loopDelay.enable();
    startMs = performance.now();
    const result = await new SnapshotEmitter({ raftClient: context.client, yieldToEventLoop }).maybeEmit(
      snapshotImage,
    );
    const writeMs = performance.now() - startMs;
    loopDelay.disable();
    // GC entries are delivered asynchronously: let the last ones in before reading them.
    await new Promise<void>((resolve) => setImmediate(resolve));
    gcObserver.disconnect();
    if (result === undefined) throw new Error('the snapshot was not written');
    line(
      'write the snapshot (createSnapshot, on disk)',
      `${writeMs.toFixed(0)} ms, ${result.batchCount} batches`,
    );
    line('snapshot size', `${(result.sizeInBytes / MEBIBYTE).toFixed(1)} MiB`);
    line(
      'longest step without yielding',
      `${result.longestStepMs.toFixed(1)} ms wall, ${longestStepCpuMs.toFixed(1)} ms CPU`,
    );
    const delayMs = (nanoseconds: number): string => (nanoseconds / 1e6).toFixed(1);
    line(
      'event-loop delay while writing',
      `p50 ${delayMs(loopDelay.percentile(50))} ms, p99 ${delayMs(loopDelay.percentile(99))} ms, max ${delayMs(loopDelay.max)} ms`,
    );

    const scavengeTotalMs = scavengeMs.reduce((sum, duration) => sum + duration, 0);
    line(
      'young-generation GCs while writing',
      `${scavengeMs.length}, longest ${Math.max(0, ...scavengeMs).toFixed(1)} ms, total ${scavengeTotalMs.toFixed(0)} ms`,
    );

    startMs = performance.now();
    const raw = context.log.readSnapshot(result.snapshotId);
    if (raw === undefined) throw new Error('the snapshot cannot be read');
    // Batch by batch, as the loader replays a snapshot: no list of every value is held.
    const loadDelta = new MetadataDelta(MetadataImage.EMPTY);
    for (const batch of new RecordsIterator(raw.records())) {
      if (batch.isControl) continue;
      for (const record of batch.records) loadDelta.replay(serde.read(record.value as Buffer));
    }
    const loaded = loadDelta.apply(snapshotImage.provenance);
    const loadMs = performance.now() - startMs;
    line('load the snapshot back', `${loadMs.toFixed(0)} ms`);
    let partitions = 0;
    for (const topic of loaded.topics.topicsById.values()) partitions += topic.partitions.size;
    if (loaded.topics.topicsById.size !== TOPICS || partitions !== TOPICS * PARTITIONS) {
      throw new Error(`loaded ${loaded.topics.topicsById.size} topics and ${partitions} partitions`);
    }
    line('loaded back', `${loaded.topics.topicsById.size} topics, ${partitions} partitions`);
    line('peak RSS', `${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

await main();
