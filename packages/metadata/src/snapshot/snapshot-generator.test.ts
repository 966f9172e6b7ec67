import { describe, expect, it } from 'vitest';
import {
  dataBatch,
  FakeBatchReader,
  ManualEventQueue,
  ManualTime,
  RecordingFaultHandler,
} from '../../test/support/loader-fixtures.js';
import { latest, uuidOf } from '../../test/support/random-metadata-records.js';
import { SnapshotsDisabled } from '../fault/snapshots-disabled.js';
import { MetadataDelta } from '../image/metadata-delta.js';
import { MetadataImage } from '../image/metadata-image.js';
import { MetadataProvenance } from '../image/metadata-provenance.js';
import type { LogDeltaManifest } from '../loader/loader-manifest.js';
import { MetadataLoader } from '../loader/metadata-loader.js';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import { DEFAULT_MAX_BYTES_SINCE_LAST_SNAPSHOT, SnapshotGenerator } from './snapshot-generator.js';

class RecordingEmitter {
  readonly emitted: MetadataImage[] = [];
  private release: (() => void) | undefined;
  hold = false;
  failure: Error | undefined;

  maybeEmit(image: MetadataImage): Promise<undefined> {
    this.emitted.push(image);
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (!this.hold) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.release = () => resolve(undefined);
    });
  }

  finish(): void {
    this.release?.();
  }
}

function harness(options: { maxBytes?: number; maxTimeMs?: number } = {}) {
  const emitter = new RecordingEmitter();
  const time = new ManualTime();
  const faults = new RecordingFaultHandler();
  const snapshotsDisabled = new SnapshotsDisabled();
  const generator = new SnapshotGenerator({
    emitter,
    faultHandler: faults,
    snapshotsDisabled,
    time,
    ...(options.maxBytes === undefined ? {} : { maxBytesSinceLastSnapshot: options.maxBytes }),
    ...(options.maxTimeMs === undefined ? {} : { maxTimeSinceLastSnapshotMs: options.maxTimeMs }),
  });
  let offset = 0;
  const publish = (
    numBytes: number,
    options: { aligned?: boolean; delta?: MetadataDelta } = {},
  ): MetadataImage => {
    offset += 10;
    const provenance = new MetadataProvenance(offset, 1, offset, options.aligned ?? true);
    const delta = options.delta ?? new MetadataDelta(MetadataImage.EMPTY);
    const image = delta.apply(provenance);
    const manifest: LogDeltaManifest = {
      type: 'log-delta',
      provenance,
      leaderAndEpoch: { leaderId: 0, epoch: 1 },
      numBatches: 1,
      elapsedNs: 0,
      numBytes,
    };
    generator.onMetadataUpdate(delta, image, manifest);
    return image;
  };
  return { emitter, time, faults, snapshotsDisabled, generator, publish };
}

describe('SnapshotGenerator', () => {
  it('snapshots once 20 MiB of batches were replayed, at the image that crossed the line', async () => {
    const { emitter, generator, publish } = harness();
    publish(DEFAULT_MAX_BYTES_SINCE_LAST_SNAPSHOT - 1);
    expect(emitter.emitted).toHaveLength(0);
    const image = publish(1);
    await generator.idle();
    expect(emitter.emitted).toEqual([image]);
    expect(generator.bytesSinceSnapshot()).toBe(0);
  });

  it('snapshots after the interval, and not with the interval at 0', async () => {
    const timed = harness({ maxTimeMs: 1000 });
    timed.publish(1);
    timed.time.nowMs += 1000;
    timed.publish(1);
    await timed.generator.idle();
    expect(timed.emitter.emitted).toHaveLength(1);
    const untimed = harness({ maxTimeMs: 0 });
    untimed.time.nowMs += 10_000_000;
    untimed.publish(1);
    expect(untimed.emitter.emitted).toHaveLength(0);
  });

  it('snapshots when the metadata.version changes', async () => {
    const { emitter, generator, publish } = harness();
    const delta = new MetadataDelta(MetadataImage.EMPTY);
    delta.replay(
      latest(MetadataRecordType.FEATURE_LEVEL_RECORD, { name: 'metadata.version', featureLevel: 22 }),
    );
    publish(1, { delta });
    await generator.idle();
    expect(emitter.emitted).toHaveLength(1);
  });

  it('writes at most one snapshot at a time', async () => {
    const { emitter, generator, publish } = harness({ maxBytes: 10 });
    emitter.hold = true;
    publish(10);
    publish(10);
    publish(10);
    expect(emitter.emitted).toHaveLength(1);
    emitter.finish();
    await generator.idle();
    // The bytes seen while the first was written still count: the next delta snapshots.
    publish(0);
    expect(emitter.emitted).toHaveLength(2);
  });

  it('waits for a batch-aligned image, counters kept', async () => {
    const { emitter, generator, publish } = harness({ maxBytes: 10 });
    publish(10, { aligned: false });
    expect(emitter.emitted).toHaveLength(0);
    const aligned = publish(0);
    await generator.idle();
    expect(emitter.emitted).toEqual([aligned]);
  });

  it('writes nothing once snapshots are disabled', () => {
    const { emitter, publish, snapshotsDisabled } = harness({ maxBytes: 10 });
    snapshotsDisabled.disable('metadata loading fault');
    publish(100);
    expect(emitter.emitted).toHaveLength(0);
  });

  it('a loaded snapshot resets the counters, a resign does not (KAFKA-14300)', () => {
    const { emitter, generator, publish } = harness({ maxBytes: 100 });
    publish(60);
    generator.onControllerChange();
    publish(60);
    expect(emitter.emitted).toHaveLength(1);
    publish(60);
    generator.onMetadataUpdate(new MetadataDelta(MetadataImage.EMPTY), MetadataImage.EMPTY, {
      type: 'snapshot',
      provenance: MetadataProvenance.EMPTY,
      elapsedNs: 0,
    });
    publish(60);
    expect(emitter.emitted).toHaveLength(1);
  });

  it('reports a failed snapshot to its fault handler', async () => {
    const { emitter, generator, faults, publish } = harness({ maxBytes: 1 });
    emitter.failure = new Error('disk full');
    publish(1);
    await generator.idle();
    expect(faults.faults.map((fault) => fault.message)).toEqual(['KRaft snapshot file generation error']);
  });

  it('sees nothing before the loader has caught up and published (KAFKA-13968)', async () => {
    const queue = new ManualEventQueue();
    const emitter = new RecordingEmitter();
    const loader = new MetadataLoader({
      highWatermark: () => 1000,
      faultHandler: new RecordingFaultHandler(),
      eventQueue: queue,
    });
    const generator = new SnapshotGenerator({
      emitter,
      faultHandler: new RecordingFaultHandler(),
      snapshotsDisabled: new SnapshotsDisabled(),
      maxBytesSinceLastSnapshot: 1,
    });
    loader.installPublishers([generator]);
    for (let offset = 0; offset < 10; offset += 1) {
      loader.handleCommit(
        new FakeBatchReader([
          dataBatch(offset, [
            latest(MetadataRecordType.TOPIC_RECORD, { name: `t${offset}`, topicId: uuidOf(offset) }),
          ]),
        ]),
      );
    }
    queue.runAll();
    await generator.idle();
    expect(loader.currentImage().offset()).toBe(9);
    expect(emitter.emitted).toHaveLength(0);
  });
});
