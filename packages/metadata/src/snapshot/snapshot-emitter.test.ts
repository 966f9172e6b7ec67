import { RaftClientTestContext } from '@kraft/raft/test-kit';
import { describe, expect, it } from 'vitest';
import { ManualTime } from '../../test/support/loader-fixtures.js';
import { latest, partitionRecord, uuidOf } from '../../test/support/random-metadata-records.js';
import {
  imageRecordValues,
  snapshotBatches,
  snapshotRecordValues,
} from '../../test/support/snapshot-reading.js';
import { UnwritableMetadataError } from '../errors/unwritable-metadata-error.js';
import { MetadataDelta } from '../image/metadata-delta.js';
import { MetadataImage } from '../image/metadata-image.js';
import { MetadataProvenance } from '../image/metadata-provenance.js';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import { SnapshotEmitter } from './snapshot-emitter.js';

function imageWithTopics(topicCount: number, provenance: MetadataProvenance): MetadataImage {
  const delta = new MetadataDelta(MetadataImage.EMPTY);
  delta.replay(
    latest(MetadataRecordType.FEATURE_LEVEL_RECORD, { name: 'metadata.version', featureLevel: 21 }),
  );
  for (let index = 0; index < topicCount; index += 1) {
    delta.replay(latest(MetadataRecordType.TOPIC_RECORD, { name: `topic-${index}`, topicId: uuidOf(index) }));
  }
  return delta.apply(provenance);
}

async function committedLeader(values: number) {
  const context = await RaftClientTestContext.builder(0, [0]).build();
  await context.poll();
  const epoch = context.client.leaderAndEpoch().epoch;
  for (let index = 0; index < values; index += 1) {
    context.client.scheduleAppend(epoch, [Buffer.from(`v${index}`)]);
    await context.poll();
  }
  await context.poll();
  return { context, epoch };
}

describe('SnapshotEmitter', () => {
  it('writes the image at its provenance, in batches of at most 1024 records, and it reads back the same', async () => {
    const { context, epoch } = await committedLeader(3);
    const highWatermark = context.client.highWatermark()!;
    const image = imageWithTopics(2500, new MetadataProvenance(highWatermark - 1, epoch, 77, true));
    const emitter = new SnapshotEmitter({ raftClient: context.client });
    const result = await emitter.maybeEmit(image);
    expect(result?.snapshotId).toEqual({ offset: highWatermark, epoch });
    expect(result?.recordCount).toBe(2501);
    expect(context.client.latestSnapshotId()).toEqual({ offset: highWatermark, epoch });
    const dataBatches = snapshotBatches(context.log, result!.snapshotId).filter((batch) => !batch.isControl);
    expect(dataBatches.map((batch) => batch.records.length)).toEqual([1024, 1024, 453]);
    expect(snapshotRecordValues(context.log, result!.snapshotId)).toEqual(imageRecordValues(image));
    expect(emitter.metrics).toMatchObject({ snapshotsGenerated: 1, latestSnapshotGeneratedLogTimeMs: 77 });
    expect(emitter.metrics.latestSnapshotGeneratedBytes).toBe(result!.sizeInBytes);
  });

  it('keeps batches below the maximum batch size', async () => {
    const { context, epoch } = await committedLeader(1);
    const image = imageWithTopics(
      300,
      new MetadataProvenance(context.client.highWatermark()! - 1, epoch, 0, true),
    );
    const emitter = new SnapshotEmitter({ raftClient: context.client, maxBatchSizeBytes: 2048 });
    const result = await emitter.maybeEmit(image);
    const dataBatches = snapshotBatches(context.log, result!.snapshotId).filter((batch) => !batch.isControl);
    expect(dataBatches.length).toBeGreaterThan(5);
    expect(Math.max(...dataBatches.map((batch) => batch.sizeInBytes))).toBeLessThanOrEqual(2048);
    expect(snapshotRecordValues(context.log, result!.snapshotId)).toEqual(imageRecordValues(image));
  });

  it('yields to the event loop whenever it has worked for the step budget', async () => {
    const { context, epoch } = await committedLeader(1);
    const image = imageWithTopics(
      1000,
      new MetadataProvenance(context.client.highWatermark()! - 1, epoch, 0, true),
    );
    const time = new ManualTime();
    let yields = 0;
    // Every look at the clock finds a millisecond gone: 32 records per look, 5 looks per step.
    const clock = { nanoseconds: () => time.nanoseconds(), milliseconds: () => time.nowMs++ };
    const emitter = new SnapshotEmitter({
      raftClient: context.client,
      time: clock,
      maxStepMs: 5,
      yieldToEventLoop: async () => {
        yields += 1;
      },
    });
    const result = await emitter.maybeEmit(image);
    expect(yields).toBeGreaterThanOrEqual(Math.floor(1001 / 32 / 6));
    expect(result!.longestStepMs).toBeLessThanOrEqual(6);
  });

  it('writes nothing when the snapshot exists', async () => {
    const { context, epoch } = await committedLeader(1);
    const image = imageWithTopics(
      1,
      new MetadataProvenance(context.client.highWatermark()! - 1, epoch, 0, true),
    );
    const emitter = new SnapshotEmitter({ raftClient: context.client });
    expect(await emitter.maybeEmit(image)).toBeDefined();
    expect(await emitter.maybeEmit(image)).toBeUndefined();
    expect(emitter.metrics.snapshotsGenerated).toBe(1);
  });

  it('never writes past the high watermark: raft refuses the id and nothing is left behind', async () => {
    const { context, epoch } = await committedLeader(1);
    const image = imageWithTopics(1, new MetadataProvenance(context.client.highWatermark()!, epoch, 0, true));
    const emitter = new SnapshotEmitter({ raftClient: context.client });
    await expect(emitter.maybeEmit(image)).rejects.toThrow(/above the high watermark/);
    expect(context.client.latestSnapshotId()).toBeUndefined();
  });

  it('writes no snapshot of an image its metadata.version cannot represent (Kafka: UnwritableMetadataException)', async () => {
    const { context, epoch } = await committedLeader(1);
    const delta = new MetadataDelta(MetadataImage.EMPTY);
    delta.replay(
      latest(MetadataRecordType.FEATURE_LEVEL_RECORD, { name: 'metadata.version', featureLevel: 16 }),
    );
    delta.replay(latest(MetadataRecordType.TOPIC_RECORD, { name: 'orders', topicId: uuidOf(1) }));
    delta.replay(partitionRecord(uuidOf(1), 0, { directories: [uuidOf(100), uuidOf(101)] }));
    const image = delta.apply(new MetadataProvenance(context.client.highWatermark()! - 1, epoch, 0, true));
    const emitter = new SnapshotEmitter({ raftClient: context.client });
    await expect(emitter.maybeEmit(image)).rejects.toThrow(UnwritableMetadataError);
    expect(context.client.latestSnapshotId()).toBeUndefined();
    expect(emitter.metrics.snapshotsGenerated).toBe(0);
  });
});
