import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseSnapshotFileName } from '@kraft/log';
import {
  type FaultHandler,
  imageDigest,
  MetadataDelta,
  type MetadataEventQueue,
  MetadataFaultError,
  MetadataImage,
  MetadataLoader,
  MetadataProvenance,
  MetadataRecordSerde,
} from '@kraft/metadata';
import { Uuid } from '@kraft/protocol';
import { type OffsetAndEpoch, openKafkaRaftLog, type RaftLog, type SnapshotReader } from '@kraft/raft';
import { type Batch, NodeFileSystem, RecordsIterator } from '@kraft/records';
import { PARTITION_DIRECTORY } from './local-quorum.js';

/** The test server's topic id for its partition (Kafka's TestRaftServer: `Uuid(0, 2)`). */
const PERFORMANCE_TEST_TOPIC_ID = Uuid.fromLongs(0n, 2n);

/** One snapshot of a node, checked against the image its own log replays to at that offset. */
export interface SnapshotCheck {
  readonly offset: number;
  readonly epoch: number;
  readonly snapshotDigest: string;
  readonly snapshotRecordCount: number;
  /** The log's image digest at `offset`, or undefined when the log no longer reaches that far back. */
  readonly logDigest: string | undefined;
  readonly matches: boolean;
}

/** What one node's log and snapshots hold, replayed and decoded after the node stopped. */
export interface NodeLogCheck {
  readonly nodeId: number;
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  /** The last offset replayed (the node's reported image offset, or the log's end). */
  readonly replayedThroughOffset: number;
  readonly replayedBatches: number;
  readonly replayedRecords: number;
  readonly replayedDigest: string;
  readonly snapshots: readonly SnapshotCheck[];
}

/** Runs the loader's events at once: the check reads one snapshot at a time, synchronously. */
const immediateQueue: MetadataEventQueue = {
  append: (event) => event(),
  scheduleDeferred: () => {},
  close: () => {},
};

/** A fault while decoding is the check failing, never a thing to count and carry on from. */
const throwingFaultHandler: FaultHandler = {
  handleFault(message, cause) {
    throw new MetadataFaultError(message, { cause });
  },
};

/** The snapshot's image as `MetadataLoader.handleLoadSnapshot` builds it (on the empty image). */
function loadSnapshotImage(log: RaftLog, snapshotId: OffsetAndEpoch): MetadataImage {
  const raw = log.readSnapshot(snapshotId);
  if (raw === undefined) throw new Error(`snapshot ${snapshotId.offset}-${snapshotId.epoch} is not readable`);
  const reader: SnapshotReader = {
    snapshotId,
    lastContainedLogOffset: snapshotId.offset - 1,
    lastContainedLogEpoch: snapshotId.epoch,
    lastContainedLogTimestamp: () => -1,
    [Symbol.iterator]: () => new RecordsIterator(raw.records())[Symbol.iterator](),
    // The log owns the raw reader (shared and cached, closed when the snapshot goes): closing it
    // here would close it for the next look at the same snapshot.
    close: () => {},
  };
  const loader = new MetadataLoader({
    highWatermark: () => snapshotId.offset,
    faultHandler: throwingFaultHandler,
    eventQueue: immediateQueue,
  });
  try {
    loader.handleLoadSnapshot(reader);
    const stopped = loader.stopped();
    if (stopped !== undefined)
      throw new Error(`snapshot ${snapshotId.offset}-${snapshotId.epoch}: ${stopped}`);
    return loader.currentImage();
  } finally {
    loader.close();
  }
}

function snapshotIds(logDirectory: string): OffsetAndEpoch[] {
  const ids = readdirSync(join(logDirectory, PARTITION_DIRECTORY)).flatMap((name) => {
    const path = parseSnapshotFileName(name);
    return path === undefined || path.partial || path.deleted ? [] : [path.snapshotId];
  });
  return ids.sort((left, right) => left.offset - right.offset);
}

/** Replays one batch on `image`; control batches move nothing in the image. */
function replayBatch(image: MetadataImage, batch: Batch): MetadataImage {
  if (batch.isControl) return image;
  const delta = new MetadataDelta(image);
  for (const record of batch.records) {
    if (record.value === null) throw new Error(`record at offset ${record.offset} has no value`);
    delta.replay(MetadataRecordSerde.INSTANCE.read(record.value));
  }
  return delta.apply(new MetadataProvenance(batch.lastOffset, batch.epoch, batch.appendTimestamp, true));
}

/**
 * Opens a stopped node's log, replays it from its start (from the snapshot there when the start
 * moved) up to `throughOffset`, and on the way compares each snapshot, decoded by the loader,
 * with the replayed image at its offset (snapshots end on batch boundaries).
 */
export function checkNodeLog(nodeId: number, logDirectory: string, throughOffset?: number): NodeLogCheck {
  const log = openKafkaRaftLog({
    dir: logDirectory,
    fileSystem: new NodeFileSystem(),
    topicPartition: PARTITION_DIRECTORY,
    topicId: PERFORMANCE_TEST_TOPIC_ID,
  });
  try {
    const ids = snapshotIds(logDirectory);
    const startOffset = log.startOffset();
    const lastOffset = Math.min(throughOffset ?? Number.MAX_SAFE_INTEGER, log.endOffset() - 1);
    const base = ids.find((id) => id.offset === startOffset);
    let image = startOffset === 0 || base === undefined ? MetadataImage.EMPTY : loadSnapshotImage(log, base);
    let nextOffset = startOffset;
    const logDigests = new Map<number, string>();
    const recordDigest = () => {
      if (ids.some((id) => id.offset === nextOffset)) logDigests.set(nextOffset, imageDigest(image).digest);
    };
    let batches = 0;
    let records = 0;
    recordDigest();
    while (nextOffset <= lastOffset) {
      const before = nextOffset;
      for (const batch of new RecordsIterator(log.read(nextOffset, 'uncommitted').records)) {
        if (batch.lastOffset > lastOffset) {
          nextOffset = lastOffset + 1;
          break;
        }
        image = replayBatch(image, batch);
        batches += 1;
        records += batch.isControl ? 0 : batch.records.length;
        nextOffset = batch.lastOffset + 1;
        recordDigest();
      }
      if (nextOffset === before) throw new Error(`node ${nodeId}: the log reads nothing at offset ${before}`);
    }
    const snapshots = ids.map((id) => {
      const snapshot = imageDigest(loadSnapshotImage(log, id));
      const logDigest = logDigests.get(id.offset);
      return {
        offset: id.offset,
        epoch: id.epoch,
        snapshotDigest: snapshot.digest,
        snapshotRecordCount: snapshot.recordCount,
        logDigest,
        matches: logDigest === snapshot.digest,
      };
    });
    return {
      nodeId,
      logStartOffset: startOffset,
      logEndOffset: log.endOffset(),
      replayedThroughOffset: nextOffset - 1,
      replayedBatches: batches,
      replayedRecords: records,
      replayedDigest: imageDigest(image).digest,
      snapshots,
    };
  } finally {
    log.close();
  }
}
