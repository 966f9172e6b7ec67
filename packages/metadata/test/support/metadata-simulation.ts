/**
 * The metadata layer in the raft simulator: every node of a `@kraft/raft/testing` cluster runs a
 * MetadataLoader with a SnapshotGenerator and SnapshotEmitter (a small snapshot threshold, so
 * snapshots are written, fetched by lagging followers and loaded), on a seeded workload of topic
 * creations and deletions, partition changes, broker registrations and configs, under partitions,
 * crashes and lossy links. After every event:
 *
 * - no loader holds an image at or above its node's high watermark;
 * - each loader's image equals the replay, on the empty image, of the committed log up to the
 *   image's offset (committed prefixes are equal on every node, which the cluster itself checks,
 *   so one replay of the cluster's committed log serves every node);
 * - every snapshot on every node holds exactly the replay of the committed log up to its id.
 */
import {
  type BatchReader,
  type LeaderAndEpoch,
  type Listener,
  type OffsetAndEpoch,
  SeededRandom,
  type SnapshotReader,
} from '@kraft/raft';
import { SimulatedCluster, type SimulatedNodeContext, SimulationViolationError } from '@kraft/raft/testing';
import type { Batch } from '@kraft/records';
import { MetadataFaultError } from '../../src/errors/metadata-fault-error.js';
import type { FaultHandler } from '../../src/fault/fault-handler.js';
import { SnapshotsDisabled } from '../../src/fault/snapshots-disabled.js';
import { MetadataDelta } from '../../src/image/metadata-delta.js';
import { MetadataImage } from '../../src/image/metadata-image.js';
import { MetadataProvenance } from '../../src/image/metadata-provenance.js';
import type { MetadataEventQueue } from '../../src/loader/metadata-event-queue.js';
import { MetadataLoader } from '../../src/loader/metadata-loader.js';
import type { MetadataTime } from '../../src/loader/metadata-time.js';
import { MetadataRecordType } from '../../src/records/metadata-record-type.js';
import type { ApiMessageAndVersion } from '../../src/serde/api-message-and-version.js';
import { MetadataRecordSerde } from '../../src/serde/metadata-record-serde.js';
import { SnapshotEmitter } from '../../src/snapshot/snapshot-emitter.js';
import { SnapshotGenerator } from '../../src/snapshot/snapshot-generator.js';
import { dataBatch } from './loader-fixtures.js';
import { latest, uuidOf } from './random-metadata-records.js';
import { imageRecordValues } from './snapshot-reading.js';

const serde = MetadataRecordSerde.INSTANCE;

/** A bug planted in every node's loader, to prove the invariants catch it. */
export type MetadataSabotage = 'apply-past-high-watermark';

export interface MetadataSimulationOptions {
  readonly sabotage?: MetadataSabotage;
  /** Simulated time the workload and the faults run before the cluster is healed (default 6 s). */
  readonly workloadMs?: number;
}

export interface MetadataSimulationResult {
  readonly seed: number;
  readonly voters: number;
  readonly violations: readonly string[];
  /** One past the last committed offset the replay read. */
  readonly committedEnd: number;
  readonly imagesChecked: number;
  readonly snapshotsChecked: number;
  /** Snapshots handed to a loader (a follower behind its leader's log start, or a restart). */
  readonly snapshotLoads: number;
  readonly crashes: number;
}

/** The loader's work queue on simulated time: each event runs as its own cluster event. */
class SimulatedEventQueue implements MetadataEventQueue {
  private closed = false;

  constructor(private readonly node: SimulatedNodeContext) {}

  append(event: () => void): void {
    if (!this.closed) this.node.schedule(0, () => (this.closed ? undefined : event()));
  }

  scheduleDeferred(delayMs: number, event: () => void): void {
    if (!this.closed) this.node.schedule(delayMs, () => (this.closed ? undefined : event()));
  }

  close(): void {
    this.closed = true;
  }
}

/**
 * The planted bug: a reader that, after the committed batches raft handed over, yields one more
 * batch at the high watermark (a record that is not committed), as a loader reading past its
 * slice would see it.
 */
class ReaderPastHighWatermark implements BatchReader {
  readonly baseOffset: number;

  constructor(private readonly reader: BatchReader) {
    this.baseOffset = reader.baseOffset;
  }

  *[Symbol.iterator](): Iterator<Batch> {
    let last: Batch | undefined;
    for (const batch of this.reader) {
      last = batch;
      yield batch;
    }
    if (last === undefined) return;
    const uncommitted = latest(MetadataRecordType.NO_OP_RECORD, {});
    yield dataBatch(last.lastOffset + 1, [uncommitted], { epoch: last.epoch });
  }

  lastOffset(): number | undefined {
    return this.reader.lastOffset();
  }

  close(): void {
    this.reader.close();
  }
}

/** One node's metadata layer: the loader, and the snapshot generator publishing from it. */
export class MetadataNode implements Listener {
  readonly loader: MetadataLoader;
  private readonly queue: SimulatedEventQueue;

  constructor(
    node: SimulatedNodeContext,
    snapshotEveryBytes: number,
    private readonly sabotage: MetadataSabotage | undefined,
    private readonly onSnapshotLoad: () => void,
  ) {
    this.queue = new SimulatedEventQueue(node);
    const time: MetadataTime = {
      nanoseconds: () => node.nowMs() * 1_000_000,
      milliseconds: () => node.nowMs(),
    };
    const faults: FaultHandler = {
      handleFault: (message, cause) => {
        const detail = cause instanceof Error ? `: ${cause.message}` : '';
        node.violation(`node ${node.nodeId} metadata fault: ${message}${detail}`);
        return new MetadataFaultError(message, { cause });
      },
    };
    const highWatermark = node.highWatermark;
    this.loader = new MetadataLoader({
      // The planted loader trusts a high watermark one past raft's, so its own guard lets the
      // extra record through: only the simulation's invariants stand in the way.
      highWatermark:
        sabotage === 'apply-past-high-watermark'
          ? () => {
              const known = highWatermark();
              return known === undefined ? undefined : known + 1;
            }
          : highWatermark,
      faultHandler: faults,
      eventQueue: this.queue,
      time,
    });
    const emitter = new SnapshotEmitter({
      raftClient: { createSnapshot: node.createSnapshot },
      time,
      batchRecords: 16,
      // Yield after every batch, so raft runs while a snapshot is being written.
      maxStepMs: 0,
      yieldToEventLoop: () => new Promise((resolve) => node.schedule(0, resolve)),
    });
    const generator = new SnapshotGenerator({
      emitter,
      faultHandler: faults,
      snapshotsDisabled: new SnapshotsDisabled(),
      maxBytesSinceLastSnapshot: snapshotEveryBytes,
      time,
    });
    this.loader.installPublishers([generator]);
  }

  handleCommit(reader: BatchReader): void {
    this.loader.handleCommit(
      this.sabotage === 'apply-past-high-watermark' ? new ReaderPastHighWatermark(reader) : reader,
    );
  }

  handleLoadSnapshot(reader: SnapshotReader): void {
    this.onSnapshotLoad();
    this.loader.handleLoadSnapshot(reader);
  }

  handleLeaderChange(leader: LeaderAndEpoch): void {
    this.loader.handleLeaderChange(leader);
  }

  beginShutdown(): void {
    this.loader.beginShutdown();
    this.queue.close();
  }

  /** One past the offset of the loader's image. */
  appliedOffset(): number {
    return this.loader.currentImage().provenance.lastContainedOffset + 1;
  }
}

/** An image's records, serialized in `records()` order, as one buffer: equal iff the images are. */
function imageBytes(image: MetadataImage): Buffer {
  return Buffer.concat(imageRecordValues(image));
}

/**
 * The replay of the cluster's committed log on the empty image, read from whichever node holds
 * the next committed batches, with the image at every batch end.
 */
class CommittedReplay {
  private image = MetadataImage.EMPTY;
  private nextOffset = 0;
  private readonly imagesByEnd = new Map<number, MetadataImage>([[0, MetadataImage.EMPTY]]);
  private readonly bytesByEnd = new Map<number, Buffer>();

  endOffset(): number {
    return this.nextOffset;
  }

  /** Appends committed batches; returns a problem when they do not follow or do not replay. */
  append(batches: readonly Batch[]): string | undefined {
    for (const batch of batches) {
      if (batch.lastOffset < this.nextOffset) continue;
      if (batch.baseOffset !== this.nextOffset) {
        return `committed batch ${batch.baseOffset}..${batch.lastOffset} does not follow the replay at ${this.nextOffset}`;
      }
      if (!batch.isControl) {
        const delta = new MetadataDelta(this.image);
        try {
          for (const record of batch.records) delta.replay(serde.read(record.value as Buffer));
        } catch (error) {
          return `the committed batch at ${batch.baseOffset} does not replay: ${String(error)}`;
        }
        this.image = delta.apply(
          new MetadataProvenance(batch.lastOffset, batch.epoch, batch.appendTimestamp, true),
        );
      }
      this.nextOffset = batch.lastOffset + 1;
      this.imagesByEnd.set(this.nextOffset, this.image);
    }
    return undefined;
  }

  /** The replay's records up to `endOffset` (exclusive), or undefined if no batch ends there. */
  bytesAt(endOffset: number): Buffer | undefined {
    const cached = this.bytesByEnd.get(endOffset);
    if (cached !== undefined) return cached;
    const image = this.imagesByEnd.get(endOffset);
    if (image === undefined) return undefined;
    const bytes = imageBytes(image);
    this.bytesByEnd.set(endOffset, bytes);
    return bytes;
  }

  /** The replayed image up to `endOffset`, if a batch ends there. */
  imageAt(endOffset: number): MetadataImage | undefined {
    return this.imagesByEnd.get(endOffset);
  }
}

/** The metadata records a snapshot holds, replayed on the empty image. */
function snapshotImage(batches: readonly Batch[], snapshotId: OffsetAndEpoch): MetadataImage {
  const delta = new MetadataDelta(MetadataImage.EMPTY);
  for (const batch of batches) {
    if (batch.isControl) continue;
    for (const record of batch.records) delta.replay(serde.read(record.value as Buffer));
  }
  return delta.apply(new MetadataProvenance(snapshotId.offset - 1, snapshotId.epoch, -1, true));
}

/** The invariants above, checked after every event. */
class MetadataInvariants {
  readonly violations: string[] = [];
  readonly replay = new CommittedReplay();
  imagesChecked = 0;
  snapshotsChecked = 0;
  private readonly checkedImages = new Map<number, MetadataImage>();
  private readonly checkedSnapshots = new Set<string>();
  private readonly highWatermarks = new Map<
    number,
    { node: MetadataNode; highWatermark: number | undefined }
  >();

  constructor(private readonly cluster: SimulatedCluster<MetadataNode>) {}

  check(): void {
    this.extendReplay();
    for (const nodeId of this.cluster.nodeIds()) {
      const node = this.cluster.stateMachine(nodeId);
      if (node === undefined) continue;
      this.checkImage(nodeId, node);
      this.checkSnapshot(nodeId);
    }
  }

  private report(message: string): void {
    if (this.violations.length < 20) this.violations.push(`t=${this.cluster.nowMs()} ${message}`);
  }

  private extendReplay(): void {
    for (let progressed = true; progressed; ) {
      progressed = false;
      for (const nodeId of this.cluster.nodeIds()) {
        const highWatermark = this.cluster.highWatermark(nodeId);
        if (highWatermark === undefined || highWatermark <= this.replay.endOffset()) continue;
        const batches = this.cluster.readCommitted(nodeId, this.replay.endOffset());
        if (batches === undefined || batches.length === 0) continue;
        const problem = this.replay.append(batches);
        if (problem !== undefined) this.report(`node ${nodeId}: ${problem}`);
        progressed = problem === undefined;
      }
    }
  }

  /**
   * The highest high watermark this node incarnation has shown: a node in a new epoch may not know
   * one for a while (undefined), but what it applied was below one it knew.
   */
  private highestHighWatermark(nodeId: number, node: MetadataNode): number | undefined {
    const known = this.highWatermarks.get(nodeId);
    const current = this.cluster.highWatermark(nodeId);
    const highest =
      known === undefined || known.node !== node
        ? current
        : current === undefined
          ? known.highWatermark
          : Math.max(current, known.highWatermark ?? current);
    this.highWatermarks.set(nodeId, { node, highWatermark: highest });
    return highest;
  }

  private checkImage(nodeId: number, node: MetadataNode): void {
    const image = node.loader.currentImage();
    const lastContained = image.provenance.lastContainedOffset;
    const highWatermark = this.highestHighWatermark(nodeId, node);
    if (lastContained >= 0 && (highWatermark === undefined || lastContained >= highWatermark)) {
      this.report(
        `node ${nodeId}: the loader applied offset ${lastContained}, at or above its high watermark ${highWatermark}`,
      );
    }
    if (this.checkedImages.get(nodeId) === image) return;
    this.checkedImages.set(nodeId, image);
    this.imagesChecked += 1;
    const expected = this.replay.bytesAt(lastContained + 1);
    if (expected === undefined) {
      this.report(
        `node ${nodeId}: the loader's image ends at ${lastContained + 1}, where no committed batch ends`,
      );
    } else if (!imageBytes(image).equals(expected)) {
      this.report(
        `node ${nodeId}: the loader's image at ${lastContained + 1} differs from the replay of the committed log`,
      );
    }
  }

  private checkSnapshot(nodeId: number): void {
    const snapshotId = this.cluster.latestSnapshotId(nodeId);
    if (snapshotId === undefined) return;
    const key = `${nodeId}/${snapshotId.offset}/${snapshotId.epoch}`;
    if (this.checkedSnapshots.has(key)) return;
    this.checkedSnapshots.add(key);
    const snapshot = this.cluster.latestSnapshot(nodeId);
    if (snapshot === undefined) return;
    this.snapshotsChecked += 1;
    const expected = this.replay.bytesAt(snapshotId.offset);
    const what = `node ${nodeId}: snapshot ${snapshotId.offset}-${snapshotId.epoch}`;
    if (expected === undefined) {
      this.report(`${what} ends where no committed batch ends (replay at ${this.replay.endOffset()})`);
      return;
    }
    let content: Buffer;
    try {
      content = imageBytes(snapshotImage(snapshot.batches, snapshotId));
    } catch (error) {
      this.report(`${what} does not replay: ${String(error)}`);
      return;
    }
    if (!content.equals(expected)) this.report(`${what} differs from the replay of the log up to its id`);
  }
}

/** What the workload has asked for: topics it created, and those it asked to remove. */
class WorkloadModel {
  nextTopic = 0;
  nextBrokerEpoch = 10n;
  /** Once a removal is proposed, nothing else names the topic (it may commit before them). */
  readonly removing = new Set<string>();
}

function pick<T>(random: SeededRandom, items: readonly T[]): T | undefined {
  return items.length === 0 ? undefined : items[random.nextInt(items.length)];
}

function distinctReplicas(random: SeededRandom): number[] {
  const replicas: number[] = [];
  const count = 1 + random.nextInt(3);
  while (replicas.length < count) {
    const replica = random.nextInt(6);
    if (!replicas.includes(replica)) replicas.push(replica);
  }
  return replicas;
}

/**
 * The next batch: valid on top of any subset of the batches proposed before it that commits, so a
 * proposal lost in a leader change never makes a later one fail. Topics are new in the batch that
 * creates them with their partitions; changes and removals name only topics in the leader's
 * committed image that no removal was proposed for.
 */
function nextBatch(random: SeededRandom, model: WorkloadModel, image: MetadataImage): ApiMessageAndVersion[] {
  const topics = [...image.topics.topicsById.values()].filter(
    (topic) => !model.removing.has(topic.topicId.toString()),
  );
  const roll = random.nextInt(11);
  const topic = pick(random, topics);
  if (roll < 3 || topic === undefined) {
    const number = model.nextTopic++;
    const topicId = uuidOf(number);
    const records: ApiMessageAndVersion[] = [
      latest(MetadataRecordType.TOPIC_RECORD, { name: `topic-${number}`, topicId }),
    ];
    const partitions = 1 + random.nextInt(3);
    for (let partitionId = 0; partitionId < partitions; partitionId += 1) {
      const replicas = distinctReplicas(random);
      records.push(
        latest(MetadataRecordType.PARTITION_RECORD, {
          partitionId,
          topicId,
          replicas,
          isr: replicas,
          removingReplicas: [],
          addingReplicas: [],
          leader: replicas[0] ?? -1,
          leaderRecoveryState: 0,
          leaderEpoch: 0,
          partitionEpoch: 0,
          directories: replicas.map((replica) => uuidOf(replica + 200)),
          eligibleLeaderReplicas: [],
          lastKnownElr: [],
        }),
      );
    }
    return records;
  }
  if (roll < 7) {
    const partitionIds = [...topic.partitions.keys()];
    const partitionId = pick(random, partitionIds) ?? 0;
    const replicas = topic.partitions.get(partitionId)?.replicas ?? [];
    const isr = replicas.filter(() => random.nextInt(3) > 0);
    return [
      latest(MetadataRecordType.PARTITION_CHANGE_RECORD, {
        partitionId,
        topicId: topic.topicId,
        isr: isr.length === 0 ? null : isr,
        leader: pick(random, isr) ?? -1,
        replicas: null,
        removingReplicas: null,
        addingReplicas: null,
        leaderRecoveryState: -1,
        directories: null,
        eligibleLeaderReplicas: null,
        lastKnownElr: null,
      }),
    ];
  }
  if (roll < 8) {
    model.removing.add(topic.topicId.toString());
    return [latest(MetadataRecordType.REMOVE_TOPIC_RECORD, { topicId: topic.topicId })];
  }
  if (roll < 10) {
    const brokerId = random.nextInt(6);
    return [
      latest(MetadataRecordType.REGISTER_BROKER_RECORD, {
        brokerId,
        isMigratingZkBroker: false,
        incarnationId: uuidOf(brokerId + 100),
        brokerEpoch: model.nextBrokerEpoch++,
        endPoints: [{ name: 'PLAINTEXT', host: 'localhost', port: 9092 + brokerId, securityProtocol: 0 }],
        features: [{ name: 'metadata.version', minSupportedVersion: 7, maxSupportedVersion: 27 }],
        rack: random.nextInt(2) === 0 ? null : 'rack-1',
        fenced: random.nextInt(2) === 0,
        inControlledShutdown: false,
        logDirs: [uuidOf(brokerId + 200)],
        cordonedLogDirs: null,
      }),
    ];
  }
  return [
    latest(MetadataRecordType.CONFIG_RECORD, {
      resourceType: 2,
      resourceName: topic.name,
      name: 'retention.ms',
      value: String(1_000 * (1 + random.nextInt(100))),
    }),
  ];
}

const METADATA_VERSION = latest(MetadataRecordType.FEATURE_LEVEL_RECORD, {
  name: 'metadata.version',
  featureLevel: 21,
});

/** Runs one seed: workload and faults, then healing, convergence and the final comparison. */
export async function runMetadataSimulation(
  seed: number,
  options: MetadataSimulationOptions = {},
): Promise<MetadataSimulationResult> {
  const random = new SeededRandom(seed * 7919 + 17);
  const voters = pick(random, [3, 3, 5]) ?? 3;
  const snapshotEveryBytes = pick(random, [1_000, 4_000, 16_000]) ?? 4_000;
  let snapshotLoads = 0;
  const cluster = new SimulatedCluster<MetadataNode>({
    seed,
    voters,
    stateMachine: (node) =>
      new MetadataNode(node, snapshotEveryBytes, options.sabotage, () => {
        snapshotLoads += 1;
      }),
    log: { segmentBytes: pick(random, [1_024, 4_096]) ?? 1_024, retentionMaxBytes: 4_096 },
    listenerReadBufferBytes: pick(random, [8 * 1024 * 1024, 512]) ?? 512,
    flushDelayMaxMs: pick(random, [2, 5, 20]) ?? 2,
  });
  const invariants = new MetadataInvariants(cluster);
  const failed = (): boolean => invariants.violations.length > 0 || cluster.violations().length > 0;
  /** Runs `durationMs` (or until `condition`), checking the invariants after every event. */
  const run = async (durationMs: number, condition: () => boolean = () => false): Promise<boolean> => {
    try {
      return await cluster.runUntil(() => {
        invariants.check();
        return failed() || condition();
      }, durationMs);
    } catch (error) {
      // The cluster's own violations are read below; anything else is a harness bug.
      if (error instanceof SimulationViolationError) return false;
      throw error;
    }
  };

  cluster.start();
  const model = new WorkloadModel();
  const down = new Map<number, number>();
  let crashes = 0;
  let healAtMs = 0;
  const workloadEndMs = options.workloadMs ?? 6_000;
  while (cluster.nowMs() < workloadEndMs && !failed()) {
    const leaderId = cluster.leaderId();
    const image = leaderId === undefined ? undefined : cluster.stateMachine(leaderId)?.loader.currentImage();
    if (image !== undefined) {
      const hasVersion = image.features.metadataVersion() !== undefined;
      cluster.proposeThroughLeader(
        (hasVersion ? nextBatch(random, model, image) : [METADATA_VERSION]).map((record) =>
          serde.write(record),
        ),
      );
    }
    if (random.nextInt(40) === 0) {
      const nodeIds = cluster.nodeIds();
      const target = pick(random, nodeIds) ?? 0;
      const fault = random.nextInt(5);
      if (fault === 0) cluster.isolate(target);
      else if (fault === 1 && leaderId !== undefined) {
        cluster.partition(
          [leaderId],
          nodeIds.filter((nodeId) => nodeId !== leaderId),
        );
      } else if (fault === 2 && down.size < Math.floor((voters - 1) / 2) && cluster.isRunning(target)) {
        cluster.crash(target);
        crashes += 1;
        down.set(target, cluster.nowMs() + 200 + random.nextInt(1_500));
      } else if (fault === 3) {
        cluster.setLinkConditions({ dropProbability: 0.05, duplicateProbability: 0.02, maxDelayMs: 20 });
      }
      healAtMs = cluster.nowMs() + 300 + random.nextInt(1_500);
    }
    if (healAtMs > 0 && cluster.nowMs() >= healAtMs) {
      cluster.heal();
      cluster.setLinkConditions({});
      healAtMs = 0;
    }
    for (const [nodeId, restartAtMs] of down) {
      if (cluster.nowMs() >= restartAtMs) {
        cluster.restart(nodeId);
        down.delete(nodeId);
      }
    }
    await run(5 + random.nextInt(40));
  }

  cluster.heal();
  cluster.setLinkConditions({});
  for (const nodeId of down.keys()) cluster.restart(nodeId);
  // Converged: every node at the leader's high watermark, every loader holding the replay there.
  const converged = (): boolean => {
    const leaderId = cluster.leaderId();
    const highWatermark = leaderId === undefined ? undefined : cluster.highWatermark(leaderId);
    const expected = highWatermark === undefined ? undefined : invariants.replay.bytesAt(highWatermark);
    if (highWatermark === undefined || expected === undefined) return false;
    const nodeIds = cluster.nodeIds();
    if (nodeIds.some((nodeId) => cluster.highWatermark(nodeId) !== highWatermark)) return false;
    return nodeIds.every((nodeId) => {
      const image = cluster.stateMachine(nodeId)?.loader.currentImage();
      return image !== undefined && imageBytes(image).equals(expected);
    });
  };
  if (!failed() && !(await run(30_000, converged)) && !failed()) {
    invariants.violations.push(`t=${cluster.nowMs()} the cluster did not converge within 30 s after healing`);
  }
  return {
    seed,
    voters,
    violations: [...cluster.violations(), ...invariants.violations],
    committedEnd: invariants.replay.endOffset(),
    imagesChecked: invariants.imagesChecked,
    snapshotsChecked: invariants.snapshotsChecked,
    snapshotLoads,
    crashes,
  };
}
