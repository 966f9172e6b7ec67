/**
 * N real KRaft voters in one process, wired as `apps/test-server/src/compose.ts` wires one node:
 * the on-disk RaftLog (NodeFileSystem under a temp dir) → FileQuorumStateStore → TcpNetworkChannel
 * on 127.0.0.1 → KafkaRaftClient → RaftDriver. Used to move large snapshots over real TCP
 * (FetchSnapshot) and to time a wiped follower's catch-up (TARGETS P8).
 *
 * Every listener binds port 0 first; the voter set is built from the bound ports. A restarted node
 * binds its old port again, so its peers' endpoints stay valid.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  LogConfig,
  type LogConfigOptions,
  snapshotFilePath as logSnapshotFilePath,
  METADATA_TOPIC_PARTITION,
} from '@kraft/log';
import { type Logger, silentLogger } from '@kraft/protocol';
import {
  BatchAccumulatorFullError,
  type BatchReader,
  FileQuorumStateStore,
  KafkaRaftClient,
  type LeaderAndEpoch,
  type Listener,
  type OffsetAndEpoch,
  openKafkaRaftLog,
  type QuorumConfig,
  quorumStateStorePath,
  RaftDriver,
  type RaftLog,
  SeededRandom,
  type SnapshotReader,
  SystemTime,
  VoterSet,
} from '@kraft/raft';
import { MemoryRecords, NodeFileSystem, recordsToBuffer } from '@kraft/records';
import { TcpNetworkChannel } from '@kraft/transport-tcp';
import { pollUntil } from './poll-until.js';

const LISTENER_NAME = 'CONTROLLER';
const HOST = '127.0.0.1';
const MEBIBYTE = 1024 * 1024;
/** Graceful shutdown bound per node: a follower stops at once, a leader resigns first. */
const SHUTDOWN_TIMEOUT_MS = 2_000;
/** Appended-but-uncommitted bytes the workload allows itself before waiting for the HWM. */
const MAX_OUTSTANDING_WORKLOAD_BYTES = 16 * MEBIBYTE;
/** How often the `waitFor` helpers look again. */
const POLL_INTERVAL_MS = 2;

export interface SnapshotClusterOptions {
  readonly voterCount: number;
  /** Quorum settings of every node (Kafka's defaults otherwise). */
  readonly quorum?: Partial<QuorumConfig>;
  /** Log settings of every node (retention, segment size). */
  readonly log?: LogConfigOptions;
  /** Listeners hash every value they see (the integration test); otherwise they only count. */
  readonly digestValues?: boolean;
  /** Where the node directories go (default `os.tmpdir()`). */
  readonly baseDirectory?: string;
  readonly logger?: Logger;
}

/** One `handleLoadSnapshot` as the application saw it. */
export interface SnapshotLoad {
  readonly snapshotId: OffsetAndEpoch;
  readonly recordCount: number;
  readonly valueBytes: number;
  /** SHA-256 over the values in order; undefined unless the cluster digests values. */
  readonly digest: string | undefined;
  /** `performance.now()` when the callback started and when it had read the whole snapshot. */
  readonly startedMs: number;
  readonly finishedMs: number;
}

/** Records what the application layer of a node sees: snapshot loads, commits, leader changes. */
export class RecordingListener implements Listener {
  readonly snapshotLoads: SnapshotLoad[] = [];
  /** The last offset handed to `handleCommit` (control batches included); -1 before any. */
  lastCommittedOffset = -1;
  /** When `lastCommittedOffset` last moved (`performance.now()`). */
  lastCommitMs = 0;
  committedRecordCount = 0;
  committedValueBytes = 0;
  /** When this node first learned a leader (`performance.now()`). */
  leaderKnownMs: number | undefined;

  constructor(private readonly digestValues: boolean) {}

  handleCommit(reader: BatchReader): void {
    try {
      for (const batch of reader) {
        if (!batch.isControl) {
          this.committedRecordCount += batch.records.length;
          for (const record of batch.records) this.committedValueBytes += record.value?.length ?? 0;
        }
        this.lastCommittedOffset = batch.lastOffset;
      }
      this.lastCommitMs = performance.now();
    } finally {
      reader.close();
    }
  }

  handleLoadSnapshot(reader: SnapshotReader): void {
    const startedMs = performance.now();
    const hash = this.digestValues ? createHash('sha256') : undefined;
    let recordCount = 0;
    let valueBytes = 0;
    try {
      for (const batch of reader) {
        if (batch.isControl) continue;
        for (const record of batch.records) {
          recordCount += 1;
          valueBytes += record.value?.length ?? 0;
          if (hash !== undefined && record.value !== null) hash.update(record.value);
        }
      }
    } finally {
      reader.close();
    }
    // A snapshot load resets the application's state: what it committed before is replaced.
    this.lastCommittedOffset = reader.snapshotId.offset - 1;
    this.snapshotLoads.push({
      snapshotId: reader.snapshotId,
      recordCount,
      valueBytes,
      digest: hash?.digest('hex'),
      startedMs,
      finishedMs: performance.now(),
    });
  }

  handleLeaderChange(leader: LeaderAndEpoch): void {
    if (leader.leaderId !== undefined && this.leaderKnownMs === undefined)
      this.leaderKnownMs = performance.now();
  }
}

/** A running node: its parts are exposed for assertions. */
export interface ClusterNode {
  readonly nodeId: number;
  readonly directory: string;
  readonly port: number;
  readonly log: RaftLog;
  readonly client: KafkaRaftClient;
  readonly driver: RaftDriver;
  readonly channel: TcpNetworkChannel;
  readonly listener: RecordingListener;
  /** Settles when the driver stops; a rejection is a node failure. */
  readonly stopped: Promise<void>;
  /** `performance.now()` just before the driver started. */
  readonly startedMs: number;
}

/** What the application wrote into a snapshot (to compare with what a follower loads). */
export interface WrittenSnapshot {
  readonly snapshotId: OffsetAndEpoch;
  readonly sizeInBytes: number;
  readonly recordCount: number;
  readonly valueBytes: number;
  /** SHA-256 over the values in order. */
  readonly digest: string;
}

export class SnapshotCluster {
  private readonly nodes = new Map<number, ClusterNode>();
  private readonly failures: unknown[] = [];
  private voters: string | undefined;
  private closed = false;

  private constructor(
    private readonly options: SnapshotClusterOptions,
    readonly rootDirectory: string,
    private readonly ports: Map<number, number>,
  ) {}

  /** Binds every node's listener, then starts the nodes; on failure everything is torn down. */
  static async start(options: SnapshotClusterOptions): Promise<SnapshotCluster> {
    const rootDirectory = mkdtempSync(join(options.baseDirectory ?? tmpdir(), 'kraft-snapshot-cluster-'));
    const cluster = new SnapshotCluster(options, rootDirectory, new Map());
    const channels = new Map<number, TcpNetworkChannel>();
    try {
      for (let nodeId = 1; nodeId <= options.voterCount; nodeId += 1) {
        const channel = cluster.createChannel(nodeId, 0);
        channels.set(nodeId, channel);
        const [bound] = await channel.start();
        if (bound === undefined) throw new Error(`node ${nodeId} bound no listener`);
        cluster.ports.set(nodeId, bound.port);
      }
      cluster.voters = [...cluster.ports].map(([nodeId, port]) => `${nodeId}@${HOST}:${port}`).join(',');
      for (const [nodeId, channel] of channels) cluster.startNode(nodeId, channel);
      return cluster;
    } catch (error) {
      // Channels of nodes that never started are not the nodes' to close.
      const started = new Set(cluster.nodes.keys());
      await Promise.allSettled(
        [...channels].filter(([nodeId]) => !started.has(nodeId)).map(([, channel]) => channel.close()),
      );
      await cluster.close();
      throw error;
    }
  }

  node(nodeId: number): ClusterNode {
    const node = this.nodes.get(nodeId);
    if (node === undefined) throw new Error(`node ${nodeId} is not running`);
    return node;
  }

  runningNodes(): ClusterNode[] {
    return [...this.nodes.values()];
  }

  /** The node that is leader, if exactly one running node says so. */
  leader(): ClusterNode | undefined {
    const leaders = this.runningNodes().filter((node) => node.driver.state().role === 'leader');
    return leaders.length === 1 ? leaders[0] : undefined;
  }

  async waitForLeader(timeoutMs: number): Promise<ClusterNode> {
    let found: ClusterNode | undefined;
    await this.waitFor('a leader', timeoutMs, () => {
      found = this.leader();
      return found !== undefined;
    });
    return found as ClusterNode;
  }

  /** Resolves when `condition` holds; rejects after `timeoutMs` or as soon as a node fails. */
  async waitFor(what: string, timeoutMs: number, condition: () => boolean): Promise<void> {
    await pollUntil(what, timeoutMs, condition, {
      intervalMs: POLL_INTERVAL_MS,
      check: () => this.throwIfFailed(),
    });
  }

  /**
   * Appends `totalBytes` of `recordBytes`-sized random values through the leader, `recordsPerBatch`
   * per batch, keeping at most 16 MiB uncommitted, and resolves when all of it is committed.
   * Returns the offset after the last record (the high watermark it waited for).
   */
  async commitWorkload(
    totalBytes: number,
    recordBytes: number,
    recordsPerBatch: number,
    timeoutMs: number,
  ): Promise<number> {
    const leader = this.requireLeader();
    const epoch = leader.driver.state().epoch;
    const pool = randomBytes(MEBIBYTE + recordBytes);
    const deadlineMs = performance.now() + timeoutMs;
    const batchBytes = recordBytes * recordsPerBatch;
    let appendedBytes = 0;
    let lastOffset = -1;
    const outstanding: Array<{ lastOffset: number; bytes: number }> = [];
    let outstandingBytes = 0;
    while (appendedBytes < totalBytes) {
      this.throwIfFailed();
      if (performance.now() >= deadlineMs) throw new Error(`workload did not commit within ${timeoutMs} ms`);
      const highWatermark = leader.driver.state().highWatermark ?? 0;
      while (outstanding.length > 0 && (outstanding[0]?.lastOffset ?? 0) < highWatermark) {
        outstandingBytes -= outstanding.shift()?.bytes ?? 0;
      }
      if (outstandingBytes + batchBytes > MAX_OUTSTANDING_WORKLOAD_BYTES) {
        await sleep(POLL_INTERVAL_MS);
        continue;
      }
      const count = Math.max(
        1,
        Math.min(recordsPerBatch, Math.ceil((totalBytes - appendedBytes) / recordBytes)),
      );
      const records: Buffer[] = [];
      for (let index = 0; index < count; index += 1) {
        const start = (lastOffset + 1 + index) % MEBIBYTE;
        records.push(pool.subarray(start, start + recordBytes));
      }
      try {
        lastOffset = leader.driver.scheduleAppend(epoch, records);
      } catch (error) {
        if (!(error instanceof BatchAccumulatorFullError)) throw error;
        await sleep(POLL_INTERVAL_MS);
        continue;
      }
      appendedBytes += count * recordBytes;
      outstanding.push({ lastOffset, bytes: count * recordBytes });
      outstandingBytes += count * recordBytes;
      // Let the drivers run between appends: everything shares this event loop.
      await new Promise((resolve) => setImmediate(resolve));
    }
    const target = lastOffset + 1;
    await this.waitFor(
      `the high watermark to reach ${target}`,
      Math.max(1, deadlineMs - performance.now()),
      () => (leader.driver.state().highWatermark ?? 0) >= target,
    );
    return target;
  }

  /**
   * The application snapshots the leader's state at its high watermark through
   * `RaftClient.createSnapshot`: `totalBytes` of `recordBytes`-sized random values, `recordsPerAppend`
   * per `append` (one batch each). Yields to the event loop between appends so the other nodes keep
   * fetching.
   */
  async writeLeaderSnapshot(
    totalBytes: number,
    recordBytes: number,
    recordsPerAppend: number,
  ): Promise<WrittenSnapshot> {
    const leader = this.requireLeader();
    const offset = leader.client.highWatermark();
    if (offset === undefined || offset !== leader.log.endOffset()) {
      throw new Error(`the leader is not idle: high watermark ${offset}, log end ${leader.log.endOffset()}`);
    }
    const snapshotId = { offset, epoch: leader.log.lastFetchedEpoch() };
    const writer = leader.client.createSnapshot(snapshotId, Date.now());
    if (writer === undefined) throw new Error(`snapshot ${offset}-${snapshotId.epoch} exists already`);
    const hash = createHash('sha256');
    const pool = randomBytes(MEBIBYTE + recordBytes);
    let recordCount = 0;
    let valueBytes = 0;
    try {
      while (valueBytes < totalBytes) {
        const count = Math.max(
          1,
          Math.min(recordsPerAppend, Math.ceil((totalBytes - valueBytes) / recordBytes)),
        );
        const records: Buffer[] = [];
        for (let index = 0; index < count; index += 1) {
          const start = (recordCount * 7919) % MEBIBYTE;
          const value = pool.subarray(start, start + recordBytes);
          hash.update(value);
          records.push(value);
          recordCount += 1;
          valueBytes += recordBytes;
        }
        writer.append(records);
        await new Promise((resolve) => setImmediate(resolve));
      }
      const sizeInBytes = writer.freeze();
      return { snapshotId, sizeInBytes, recordCount, valueBytes, digest: hash.digest('hex') };
    } finally {
      writer.close();
    }
  }

  /** Graceful stop: the driver shuts down (the log is flushed and closed), then the channel. */
  async stopNode(nodeId: number): Promise<void> {
    const node = this.node(nodeId);
    this.nodes.delete(nodeId);
    try {
      await node.driver.shutdown(SHUTDOWN_TIMEOUT_MS);
    } finally {
      await node.channel.close();
    }
  }

  /** Deletes everything the node stored: its log, snapshots and quorum state. */
  wipeNode(nodeId: number): void {
    if (this.nodes.has(nodeId)) throw new Error(`node ${nodeId} is running`);
    const directory = this.nodeDirectory(nodeId);
    rmSync(directory, { recursive: true, force: true });
    mkdirSync(directory, { recursive: true });
  }

  /** Starts a stopped node again on its old port. */
  async restartNode(nodeId: number): Promise<ClusterNode> {
    if (this.nodes.has(nodeId)) throw new Error(`node ${nodeId} is running`);
    const port = this.ports.get(nodeId);
    if (port === undefined) throw new Error(`node ${nodeId} is not part of the cluster`);
    const channel = this.createChannel(nodeId, port);
    try {
      await channel.start();
    } catch (error) {
      await channel.close();
      throw error;
    }
    return this.startNode(nodeId, channel);
  }

  /** Stops every node and removes the directories; safe to call twice and after a failure. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      // All at once: a leader's graceful shutdown waits for a successor (or its timeout), which
      // stopping the others one by one would only lengthen.
      await Promise.allSettled([...this.nodes.keys()].map((nodeId) => this.stopNode(nodeId)));
    } finally {
      rmSync(this.rootDirectory, { recursive: true, force: true });
    }
  }

  /** `controller.quorum.voters` of the cluster (known once every listener is bound). */
  votersConfig(): string {
    if (this.voters === undefined) throw new Error('the voter set is not known yet');
    return this.voters;
  }

  /** The port `nodeId` listens on (kept across restarts). */
  portOf(nodeId: number): number {
    const port = this.ports.get(nodeId);
    if (port === undefined) throw new Error(`node ${nodeId} is not part of the cluster`);
    return port;
  }

  nodeDirectory(nodeId: number): string {
    return join(this.rootDirectory, `node-${nodeId}`);
  }

  /** The frozen snapshot file's bytes on `nodeId`'s disk. */
  readSnapshotFile(nodeId: number, snapshotId: OffsetAndEpoch): Buffer {
    return readFileSync(snapshotFilePath(this.nodeDirectory(nodeId), snapshotId));
  }

  /** Names of the snapshot files (frozen or partial) in `nodeId`'s partition directory. */
  snapshotFileNames(nodeId: number): string[] {
    return readdirSync(join(this.nodeDirectory(nodeId), METADATA_TOPIC_PARTITION)).filter((name) =>
      name.includes('.checkpoint'),
    );
  }

  private requireLeader(): ClusterNode {
    const leader = this.leader();
    if (leader === undefined) throw new Error('no leader');
    return leader;
  }

  private throwIfFailed(): void {
    if (this.failures.length > 0) throw new Error('a node failed', { cause: this.failures[0] });
  }

  private createChannel(nodeId: number, port: number): TcpNetworkChannel {
    return createClusterChannel(nodeId, port, this.options.logger ?? silentLogger);
  }

  private startNode(nodeId: number, channel: TcpNetworkChannel): ClusterNode {
    const node = startClusterNode(
      {
        nodeId,
        directory: this.nodeDirectory(nodeId),
        port: this.ports.get(nodeId) ?? 0,
        votersConfig: this.votersConfig(),
        ...(this.options.quorum === undefined ? {} : { quorum: this.options.quorum }),
        ...(this.options.log === undefined ? {} : { log: this.options.log }),
        ...(this.options.digestValues === undefined ? {} : { digestValues: this.options.digestValues }),
      },
      channel,
      this.options.logger ?? silentLogger,
    );
    node.stopped.catch((error: unknown) => this.failures.push(error));
    this.nodes.set(nodeId, node);
    return node;
  }
}

/** Everything a node needs to start; plain data, so a child process can receive it as JSON. */
export interface ClusterNodeSpec {
  readonly nodeId: number;
  readonly directory: string;
  readonly port: number;
  /** `controller.quorum.voters`, e.g. `1@127.0.0.1:40001,2@127.0.0.1:40002`. */
  readonly votersConfig: string;
  readonly quorum?: Partial<QuorumConfig>;
  readonly log?: LogConfigOptions;
  readonly digestValues?: boolean;
}

/** The channel on the node's listener (port 0 picks one); `start()` it before `startClusterNode`. */
export function createClusterChannel(nodeId: number, port: number, logger: Logger): TcpNetworkChannel {
  return new TcpNetworkChannel({
    nodeId,
    listeners: [{ name: LISTENER_NAME, host: HOST, port, securityProtocol: 'PLAINTEXT' }],
    logger: logger.child({ nodeId, component: 'transport' }),
  });
}

/** Opens the node's log and quorum state under its directory and starts its driver on `channel`. */
export function startClusterNode(
  spec: ClusterNodeSpec,
  channel: TcpNetworkChannel,
  baseLogger: Logger,
): ClusterNode {
  const { nodeId, directory } = spec;
  mkdirSync(directory, { recursive: true });
  const logger = baseLogger.child({ nodeId });
  const fileSystem = new NodeFileSystem();
  const time = new SystemTime();
  const log = openKafkaRaftLog({ dir: directory, fileSystem, logger, config: new LogConfig(spec.log ?? {}) });
  const quorumStateStore = new FileQuorumStateStore({
    fileSystem,
    path: quorumStateStorePath(directory, METADATA_TOPIC_PARTITION),
  });
  const client = new KafkaRaftClient({
    nodeId,
    voters: VoterSet.fromQuorumVotersConfig(spec.votersConfig, LISTENER_NAME),
    log,
    network: channel,
    quorumStateStore,
    random: new SeededRandom(nodeId * 7919 + Date.now()),
    config: spec.quorum ?? {},
    listenerName: LISTENER_NAME,
    logger,
  });
  const listener = new RecordingListener(spec.digestValues ?? false);
  client.register(listener);
  const driver = new RaftDriver({ client, log, network: channel, quorumStateStore, time, logger });
  client.initialize(time.milliseconds());
  const startedMs = performance.now();
  const stopped = driver.start();
  channel.attach(driver);
  return { nodeId, directory, port: spec.port, log, client, driver, channel, listener, stopped, startedMs };
}

/** SHA-256 and length of the committed log from `fromOffset` to the high watermark, read in 1 MiB steps. */
export function committedLogDigest(log: RaftLog, fromOffset: number): { bytes: number; digest: string } {
  const hash = createHash('sha256');
  let offset = fromOffset;
  let bytes = 0;
  const highWatermark = log.highWatermark();
  while (offset < highWatermark) {
    const records = log.read(offset, 'committed', MEBIBYTE).records;
    // A size-bounded read may end inside a batch: only whole batches count, the rest is read again.
    const batches = MemoryRecords.readableRecords(recordsToBuffer(records));
    const whole = batches.buffer().subarray(0, batches.validBytes());
    if (whole.length === 0) break;
    hash.update(whole);
    bytes += whole.length;
    let next = offset;
    for (const batch of batches.batches()) next = batch.lastOffset + 1;
    if (next <= offset) break;
    offset = next;
  }
  return { bytes, digest: hash.digest('hex') };
}

/** A frozen snapshot's file under a node directory (the log's own naming: Kafka's SnapshotPath). */
export function snapshotFilePath(nodeDirectory: string, snapshotId: OffsetAndEpoch): string {
  return logSnapshotFilePath(join(nodeDirectory, METADATA_TOPIC_PARTITION), snapshotId);
}

/** SHA-256 of a file read in 1 MiB steps (a 256 MiB snapshot is never held in memory at once). */
export function fileDigest(path: string): string {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(MEBIBYTE);
  const descriptor = openSync(path, 'r');
  try {
    for (;;) {
      const read = readSync(descriptor, buffer, 0, buffer.length, null);
      if (read === 0) break;
      hash.update(buffer.subarray(0, read));
    }
  } finally {
    closeSync(descriptor);
  }
  return hash.digest('hex');
}
