import { describe, expect, it } from 'vitest';
import {
  controlBatch,
  dataBatch,
  FakeBatchReader,
  FakeSnapshotReader,
  ManualEventQueue,
  ManualTime,
  RecordingFaultHandler,
  RecordingPublisher,
} from '../../test/support/loader-fixtures.js';
import {
  latest,
  partitionRecord,
  registerBrokerRecord,
  uuidOf,
} from '../../test/support/random-metadata-records.js';
import { RecordAboveHighWatermarkError } from '../errors/record-above-high-watermark-error.js';
import { MetadataFaultCounts, metadataLoadingFaultHandler } from '../fault/metadata-fault-handlers.js';
import { SnapshotsDisabled } from '../fault/snapshots-disabled.js';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import { INITIALIZE_NEW_PUBLISHERS_RETRY_MS, MetadataLoader } from './metadata-loader.js';

const topic = (index: number): ApiMessageAndVersion =>
  latest(MetadataRecordType.TOPIC_RECORD, { name: `topic-${index}`, topicId: uuidOf(index) });
const begin = latest(MetadataRecordType.BEGIN_TRANSACTION_RECORD, { name: null });
const end = latest(MetadataRecordType.END_TRANSACTION_RECORD, {});
const abort = latest(MetadataRecordType.ABORT_TRANSACTION_RECORD, { reason: null });
const acl = latest(MetadataRecordType.ACCESS_CONTROL_ENTRY_RECORD, {
  id: uuidOf(77),
  resourceType: 2,
  resourceName: 'topic-0',
  patternType: 3,
  principal: 'User:alice',
  host: '*',
  operation: 3,
  permissionType: 3,
});

function harness(highWatermark: number | undefined) {
  const queue = new ManualEventQueue();
  const faults = new RecordingFaultHandler();
  const time = new ManualTime();
  const state = { highWatermark };
  const loader = new MetadataLoader({
    highWatermark: () => state.highWatermark,
    faultHandler: faults,
    eventQueue: queue,
    time,
  });
  const publisher = new RecordingPublisher();
  return { queue, faults, time, state, loader, publisher };
}

const topicNames = (image: { topics: { topicsByName: { keys(): Iterable<string> } } } | undefined) =>
  image === undefined ? [] : [...image.topics.topicsByName.keys()].sort();

describe('MetadataLoader', () => {
  it('applies committed batches in order and closes each reader', () => {
    const { queue, loader, state } = harness(3);
    const reader = new FakeBatchReader([
      dataBatch(0, [topic(0), topic(1)]),
      dataBatch(2, [topic(2)], { epoch: 2 }),
    ]);
    loader.handleCommit(reader);
    queue.runAll();
    expect(reader.closed).toBe(true);
    expect(topicNames(loader.currentImage())).toEqual(['topic-0', 'topic-1', 'topic-2']);
    expect(loader.currentImage().provenance).toMatchObject({ lastContainedOffset: 2, lastContainedEpoch: 2 });
    expect(loader.metrics.lastAppliedRecordOffset).toBe(2);
    expect(loader.metrics.batchProcessingTime.count).toBe(2);
    expect(state.highWatermark).toBe(3);
  });

  it('publishes nothing until it reaches the first high watermark it saw, then installs publishers with the whole image', () => {
    const { queue, loader, publisher, state } = harness(4);
    loader.installPublishers([publisher]);
    queue.runAll();
    loader.handleCommit(new FakeBatchReader([dataBatch(0, [topic(0), topic(1)])]));
    queue.runAll();
    expect(publisher.installed).toBe(0);
    expect(publisher.updates).toHaveLength(0);
    // The high watermark moving on does not move the target the loader must reach first.
    state.highWatermark = 50;
    loader.handleCommit(new FakeBatchReader([dataBatch(2, [topic(2), topic(3)])]));
    queue.runAll();
    expect(publisher.installed).toBe(1);
    expect(publisher.updates).toHaveLength(1);
    const first = publisher.updates[0]!;
    expect(first.manifest.type).toBe('snapshot');
    expect(first.delta.image.isEmpty()).toBe(true);
    expect(first.delta.topicsDelta()?.createdTopicIds().size).toBe(4);
    expect(topicNames(first.image)).toEqual(['topic-0', 'topic-1', 'topic-2', 'topic-3']);
    loader.handleCommit(new FakeBatchReader([dataBatch(4, [topic(4)])]));
    queue.runAll();
    expect(publisher.updates.at(-1)?.manifest).toMatchObject({ type: 'log-delta', numBatches: 1 });
    expect([...publisher.updates.at(-1)!.delta.topicsDelta()!.createdTopicIds()]).toEqual([
      uuidOf(4).toString(),
    ]);
  });

  it('retries installing a publisher registered before anything was loaded, and installs it once', () => {
    const { queue, loader, publisher, state } = harness(undefined);
    loader.installPublishers([publisher]);
    queue.runAll();
    expect(publisher.installed).toBe(0);
    expect(queue.deferred.map((event) => event.delayMs)).toEqual([INITIALIZE_NEW_PUBLISHERS_RETRY_MS]);
    state.highWatermark = 1;
    loader.handleCommit(new FakeBatchReader([dataBatch(0, [topic(0)])]));
    queue.runAll();
    expect(publisher.installed).toBe(1);
    queue.runDeferred();
    expect(publisher.installed).toBe(1);
    expect(publisher.updates).toHaveLength(1);
    expect(topicNames(publisher.lastImage())).toEqual(['topic-0']);
  });

  it('on an idle log, installs a publisher added after the loader caught up at once', () => {
    const { queue, loader, publisher } = harness(1);
    loader.handleCommit(new FakeBatchReader([dataBatch(0, [topic(0)])]));
    queue.runAll();
    loader.installPublishers([publisher]);
    queue.runAll();
    expect(publisher.installed).toBe(1);
    expect(queue.deferred).toHaveLength(0);
  });

  it('a publisher added later gets a delta from the empty image to the current one', () => {
    const { queue, loader, publisher } = harness(2);
    loader.installPublishers([publisher]);
    loader.handleCommit(new FakeBatchReader([dataBatch(0, [topic(0), topic(1)])]));
    queue.runAll();
    const late = new RecordingPublisher('late');
    loader.installPublishers([late]);
    queue.runAll();
    expect(late.updates).toHaveLength(1);
    expect(late.updates[0]!.delta.image.isEmpty()).toBe(true);
    expect(late.updates[0]!.image).toBe(loader.currentImage());
    expect(late.updates[0]!.delta.topicsDelta()?.createdTopicIds().size).toBe(2);
  });

  it('a publisher added later gets what the metadata.version could not write: directories and ELRs', () => {
    for (const metadataVersion of [16, 22]) {
      const { queue, loader, faults } = harness(4);
      const held = [
        latest(MetadataRecordType.FEATURE_LEVEL_RECORD, {
          name: 'metadata.version',
          featureLevel: metadataVersion,
        }),
        registerBrokerRecord(1, { logDirs: [uuidOf(9)] }),
        topic(0),
        partitionRecord(uuidOf(0), 0, { eligibleLeaderReplicas: [2], lastKnownElr: [3] }),
      ];
      loader.handleCommit(new FakeBatchReader([dataBatch(0, held)]));
      queue.runAll();
      const late = new RecordingPublisher('late');
      loader.installPublishers([late]);
      queue.runAll();
      expect(faults.faults).toEqual([]);
      const delta = late.updates[0]!.delta;
      expect(delta.clusterDelta()?.broker(1)?.logDirs).toEqual([uuidOf(9)]);
      expect(delta.topicsDelta()?.getPartition(uuidOf(0), 0)).toMatchObject({
        eligibleLeaderReplicas: [2],
        lastKnownElr: [3],
      });
    }
  });

  it('skips control batches but counts their offsets', () => {
    const { queue, loader } = harness(10);
    loader.handleCommit(
      new FakeBatchReader([
        dataBatch(0, [topic(0)]),
        controlBatch(1, 2),
        dataBatch(3, [topic(1)]),
        controlBatch(4, 1),
      ]),
    );
    queue.runAll();
    expect(topicNames(loader.currentImage())).toEqual(['topic-0', 'topic-1']);
    expect(loader.currentImage().offset()).toBe(4);
  });

  it('holds a transaction until its end and publishes the records before it separately', () => {
    const { queue, loader, publisher, state } = harness(1);
    loader.installPublishers([publisher]);
    loader.handleCommit(new FakeBatchReader([dataBatch(0, [topic(0)])]));
    queue.runAll();
    expect(publisher.updates).toHaveLength(1);
    state.highWatermark = 100;
    // A batch whose transaction starts after its first record, then ends in a later batch.
    loader.handleCommit(new FakeBatchReader([dataBatch(1, [topic(1), begin, topic(2)])]));
    queue.runAll();
    expect(publisher.updates).toHaveLength(2);
    expect(publisher.updates[1]!.manifest.provenance).toMatchObject({
      lastContainedOffset: 1,
      isOffsetBatchAligned: false,
    });
    expect(topicNames(publisher.lastImage())).toEqual(['topic-0', 'topic-1']);
    loader.handleCommit(new FakeBatchReader([dataBatch(4, [topic(3), end])]));
    queue.runAll();
    expect(publisher.updates).toHaveLength(3);
    expect(topicNames(publisher.lastImage())).toEqual(['topic-0', 'topic-1', 'topic-2', 'topic-3']);
    expect(publisher.lastImage()?.provenance).toMatchObject({
      lastContainedOffset: 5,
      isOffsetBatchAligned: true,
    });
  });

  it('drops an aborted transaction but keeps what follows it', () => {
    const { queue, loader, publisher, faults, state } = harness(1);
    loader.installPublishers([publisher]);
    loader.handleCommit(new FakeBatchReader([dataBatch(0, [topic(0)])]));
    queue.runAll();
    state.highWatermark = 100;
    loader.handleCommit(
      new FakeBatchReader([dataBatch(1, [begin, topic(1)]), dataBatch(3, [topic(2), abort, topic(3)])]),
    );
    queue.runAll();
    expect(topicNames(publisher.lastImage())).toEqual(['topic-0', 'topic-3']);
    expect(publisher.lastImage()?.offset()).toBe(5);
    expect(faults.faults).toHaveLength(0);
  });

  it('reports an end outside a transaction and carries on', () => {
    const { queue, loader, faults } = harness(3);
    loader.handleCommit(new FakeBatchReader([dataBatch(0, [end, topic(0)])]));
    queue.runAll();
    expect(faults.faults.map((fault) => fault.message)).toEqual([
      'EndTransactionRecord at offset 0 outside a transaction',
    ]);
    expect(topicNames(loader.currentImage())).toEqual(['topic-0']);
  });

  it('reports a record that does not replay, with its offset, and loads the rest', () => {
    const { queue, loader, faults } = harness(3);
    const orphan = latest(MetadataRecordType.REMOVE_TOPIC_RECORD, { topicId: uuidOf(9) });
    loader.handleCommit(new FakeBatchReader([dataBatch(0, [topic(0), orphan, topic(1)])]));
    queue.runAll();
    expect(faults.faults.map((fault) => fault.message)).toEqual([
      'Error loading metadata log record from offset 1',
    ]);
    expect(topicNames(loader.currentImage())).toEqual(['topic-0', 'topic-1']);
  });

  it.each([
    ['at the high watermark', 4],
    ['straddling it', 3],
  ])('never applies a batch %s: a fatal fault, the loader stops', (_name, baseOffset) => {
    const { queue, loader, faults, publisher } = harness(4);
    loader.installPublishers([publisher]);
    loader.handleCommit(new FakeBatchReader([dataBatch(0, [topic(0), topic(1)])]));
    queue.runAll();
    const reader = new FakeBatchReader([dataBatch(baseOffset, [topic(2), topic(3)])]);
    loader.handleCommit(reader);
    queue.runAll();
    expect(faults.faults).toHaveLength(1);
    expect(faults.faults[0]!.cause).toBeInstanceOf(RecordAboveHighWatermarkError);
    expect(topicNames(loader.currentImage())).toEqual(['topic-0', 'topic-1']);
    expect(loader.stopped()).toMatch(/at or above the high watermark 4/);
    expect(reader.closed).toBe(false);
    // Stopped: later commits are not loaded either.
    loader.handleCommit(new FakeBatchReader([dataBatch(2, [topic(5)])]));
    queue.runAll();
    expect(topicNames(loader.currentImage())).toEqual(['topic-0', 'topic-1']);
  });

  it('guards a batch with the high watermark read when raft handed its reader over', () => {
    const { queue, loader, faults, state } = harness(4);
    const reader = new FakeBatchReader([dataBatch(3, [topic(0), topic(1)])]);
    loader.handleCommit(reader);
    // Moving on before the queued load runs does not let the batch through.
    state.highWatermark = 100;
    queue.runAll();
    expect(faults.faults[0]?.cause).toBeInstanceOf(RecordAboveHighWatermarkError);
    expect(loader.currentImage().isEmpty()).toBe(true);
    expect(reader.closed).toBe(false);
  });

  it('never applies a batch while the high watermark is unknown', () => {
    const { queue, loader, faults } = harness(undefined);
    loader.handleCommit(new FakeBatchReader([dataBatch(0, [topic(0)])]));
    queue.runAll();
    expect(faults.faults[0]?.cause).toBeInstanceOf(RecordAboveHighWatermarkError);
    expect(loader.currentImage().isEmpty()).toBe(true);
  });

  it('loads a snapshot ending exactly at the high watermark', () => {
    const { queue, loader, faults } = harness(5);
    loader.handleLoadSnapshot(new FakeSnapshotReader({ offset: 5, epoch: 1 }, 0, [dataBatch(0, [topic(0)])]));
    queue.runAll();
    expect(faults.faults).toEqual([]);
    expect(topicNames(loader.currentImage())).toEqual(['topic-0']);
  });

  it('refuses a snapshot ending above the high watermark', () => {
    const { queue, loader, faults } = harness(5);
    loader.handleLoadSnapshot(new FakeSnapshotReader({ offset: 6, epoch: 1 }, 0, [dataBatch(0, [topic(0)])]));
    queue.runAll();
    expect(faults.faults[0]?.cause).toBeInstanceOf(RecordAboveHighWatermarkError);
    expect(loader.currentImage().isEmpty()).toBe(true);
  });

  it('loads a snapshot on the empty image, with the provenance of its header', () => {
    const { queue, loader, publisher, state } = harness(3);
    loader.installPublishers([publisher]);
    loader.handleCommit(new FakeBatchReader([dataBatch(0, [topic(0), topic(1), acl])]));
    queue.runAll();
    state.highWatermark = 100;
    expect(publisher.lastImage()?.acls.isEmpty()).toBe(false);
    // The snapshot lacks topic-0 and holds no ACL at all: both must be gone after it.
    const snapshot = new FakeSnapshotReader({ offset: 40, epoch: 3 }, 1234, [
      controlBatch(0, 1),
      dataBatch(0, [topic(1), topic(2)], { epoch: 9, appendTimestamp: 5 }),
      controlBatch(2, 1),
    ]);
    loader.handleLoadSnapshot(snapshot);
    queue.runAll();
    expect(snapshot.closed).toBe(true);
    const image = publisher.lastImage()!;
    expect(publisher.updates.at(-1)?.manifest.type).toBe('snapshot');
    expect(topicNames(image)).toEqual(['topic-1', 'topic-2']);
    expect(image.acls.isEmpty()).toBe(true);
    expect(image.provenance).toMatchObject({
      lastContainedOffset: 39,
      lastContainedEpoch: 3,
      lastContainedLogTimeMs: 1234,
    });
    expect(loader.metrics.handleLoadSnapshotCount).toBe(1);
    // Commits continue from the snapshot's image.
    loader.handleCommit(new FakeBatchReader([dataBatch(40, [topic(3)])]));
    queue.runAll();
    expect(topicNames(publisher.lastImage())).toEqual(['topic-1', 'topic-2', 'topic-3']);
  });

  it('tells publishers about leader changes and closes them on shutdown', () => {
    const { queue, loader, publisher, state } = harness(1);
    loader.installPublishers([publisher]);
    loader.handleCommit(new FakeBatchReader([dataBatch(0, [topic(0)])]));
    queue.runAll();
    state.highWatermark = 100;
    loader.handleLeaderChange({ leaderId: 2, epoch: 5 });
    loader.beginShutdown();
    queue.runAll();
    expect(publisher.controllerChanges.at(-1)).toEqual({ leaderId: 2, epoch: 5 });
    expect(publisher.closed).toBe(1);
    loader.handleCommit(new FakeBatchReader([dataBatch(1, [topic(1)])]));
    queue.runAll();
    expect(topicNames(loader.currentImage())).toEqual(['topic-0']);
  });
});

describe('metadata loading fault handler', () => {
  it('on a broker: counted, snapshots disabled for good, the node carries on', () => {
    const counts = new MetadataFaultCounts();
    const snapshotsDisabled = new SnapshotsDisabled();
    const terminated: unknown[] = [];
    const handler = metadataLoadingFaultHandler({
      isController: false,
      terminate: (error) => terminated.push(error),
      snapshotsDisabled,
      counts,
    });
    handler.handleFault('bad record');
    expect(counts.loadErrorCount).toBe(1);
    expect(snapshotsDisabled.disabledReason()).toBe('metadata loading fault');
    expect(terminated).toHaveLength(0);
  });

  it('on a controller: fatal', () => {
    const terminated: unknown[] = [];
    const handler = metadataLoadingFaultHandler({
      isController: true,
      terminate: (error) => terminated.push(error),
      snapshotsDisabled: new SnapshotsDisabled(),
      counts: new MetadataFaultCounts(),
    });
    handler.handleFault('bad record', new Error('cause'));
    expect(terminated).toHaveLength(1);
  });
});
