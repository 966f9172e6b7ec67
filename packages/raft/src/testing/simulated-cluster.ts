import { KRaftError } from '@kraft/protocol';
import { type Batch, type CrashMode, RecordsIterator } from '@kraft/records';
import type { OffsetAndEpoch } from '../ports/raft-log.js';
import { DEFAULT_QUORUM_CONFIG, type QuorumConfig } from '../quorum-config.js';
import type {
  BatchReader,
  LeaderAndEpoch,
  Listener,
  SnapshotReader,
  SnapshotWriter,
} from '../raft-client.js';
import { Cluster, type NodeStateMachine, type StateMachineHost } from './cluster.js';
import { HEALTHY_LINKS, type LinkConditions } from './network-filters.js';
import type { SimulationRaftConfig } from './node-factory.js';
import { SimulationRandom } from './simulation-random.js';
import type { TraceRecorder } from './trace-recorder.js';

/**
 * The simulated run broke a safety invariant (two leaders in an epoch, a committed prefix that
 * differs between nodes, a lost flush), a node threw, or a state machine reported a violation.
 * `violations` lists each, with the simulated time it was seen.
 */
export class SimulationViolationError extends KRaftError {
  readonly violations: readonly string[];

  constructor(violations: readonly string[]) {
    super('SIMULATION_VIOLATION', `the simulated cluster broke an invariant:\n${violations.join('\n')}`);
    this.violations = [...violations];
  }
}

/** What a node's state machine gets from the simulated cluster, for one process incarnation. */
export interface SimulatedNodeContext {
  readonly nodeId: number;
  /** 1 for the first start, one more at every restart; the state machine is new each time. */
  readonly incarnation: number;
  /** Whether this node leads its current epoch. */
  isLeader(): boolean;
  /** This node's high watermark (undefined until it knows one). */
  highWatermark(): number | undefined;
  /** `RaftClient.createSnapshot` on this node's client; undefined once this incarnation stopped. */
  createSnapshot(snapshotId: OffsetAndEpoch, lastContainedLogTimestamp: number): SnapshotWriter | undefined;
  /** The simulated time in milliseconds. */
  nowMs(): number;
  /**
   * Runs `work` as a cluster event `delayMs` of simulated time from now (a state machine's own
   * work queue goes here, never on Node timers). Dropped if this incarnation stops first.
   */
  schedule(delayMs: number, work: () => void | Promise<void>): void;
  /** Reports a broken contract of the state machine: the run fails with it. */
  violation(message: string): void;
}

/** The log settings of every simulated node. */
export interface SimulatedLogOptions {
  /** Bytes per segment (default 65,536). */
  readonly segmentBytes?: number;
  /** Size retention: segments below the latest snapshot are deleted past it (-1, the default: none). */
  readonly retentionMaxBytes?: number;
}

/** How to build a `SimulatedCluster`. */
export interface SimulatedClusterOptions<S extends Listener> {
  /** Everything the run does follows from the seed: one seed, one run. */
  readonly seed: number;
  /** Voters, node ids 0..voters-1 (default 3). */
  readonly voters?: number;
  /** Observers after the voters (default 0). */
  readonly observers?: number;
  /** Builds the state machine of a node incarnation; it is registered with that node's client. */
  readonly stateMachine: (node: SimulatedNodeContext) => S;
  /** Raft settings over the simulator's defaults (a 500 ms election timeout, 100 ms fetch wait). */
  readonly quorum?: Partial<QuorumConfig>;
  readonly log?: SimulatedLogOptions;
  /** Listener reads refill a buffer of this size (default Kafka's 8 MiB). */
  readonly listenerReadBufferBytes?: number;
  /** A log flush or quorum-state write completes within [0, this] ms of simulated time (default 2). */
  readonly flushDelayMaxMs?: number;
  /** The run fails when it takes more events than this (default 1,000,000). */
  readonly maxEvents?: number;
  /** Receives every trace line (default: none kept). */
  readonly trace?: TraceRecorder;
}

/** A batch appended through the leader: its last offset and the leader's epoch. */
export interface Proposal {
  readonly leaderId: number;
  readonly epoch: number;
  readonly lastOffset: number;
}

/** A node's newest snapshot, decoded: its id and every batch (header and footer included). */
export interface SimulatedSnapshot {
  readonly snapshotId: OffsetAndEpoch;
  readonly batches: readonly Batch[];
}

/** The simulator's timeouts: Kafka's defaults scaled down, their ratios kept. */
const SIMULATION_QUORUM_DEFAULTS: Partial<QuorumConfig> = {
  electionTimeoutMs: 500,
  electionBackoffMaxMs: 250,
  fetchTimeoutMs: 1_000,
  appendLingerMs: 0,
  requestTimeoutMs: 600,
  fetchMaxWaitMs: 100,
  logCleanIntervalMs: 200,
};

const DEFAULT_MAX_EVENTS = 1_000_000;
const KAFKA_LISTENER_READ_BUFFER_BYTES = 8 * 1024 * 1024;

/** Tracks how far a state machine applied, unless it says so itself. */
class TrackedStateMachine<S extends Listener> implements NodeStateMachine {
  private applied = 0;

  constructor(readonly inner: S) {}

  appliedOffset(): number {
    const own = (this.inner as { appliedOffset?: () => number }).appliedOffset;
    return typeof own === 'function' ? own.call(this.inner) : this.applied;
  }

  handleCommit(reader: BatchReader): void {
    this.inner.handleCommit(reader);
    const lastOffset = reader.lastOffset();
    if (lastOffset !== undefined) this.applied = Math.max(this.applied, lastOffset + 1);
  }

  handleLoadSnapshot(reader: SnapshotReader): void {
    this.inner.handleLoadSnapshot(reader);
    this.applied = reader.snapshotId.offset;
  }

  handleLeaderChange(leader: LeaderAndEpoch): void {
    this.inner.handleLeaderChange?.(leader);
  }

  beginShutdown(): void {
    this.inner.beginShutdown?.();
  }
}

/**
 * A whole KRaft cluster in one process on simulated time, for testing a state machine under
 * faults: real `KafkaRaftClient`s over the real segmented log on an in-memory disk, connected by
 * an in-memory network, every message round-tripped through the Kafka wire codecs. Raft's safety
 * invariants are checked after every event. One seed determines the run, so a failing seed
 * replays exactly.
 *
 * Nothing runs until `runUntil` or `runFor` is awaited; faults (`partition`, `crash`,
 * `setLinkConditions`) take effect at the current simulated instant.
 */
export class SimulatedCluster<S extends Listener> {
  private readonly cluster: Cluster;
  private readonly machines = new Map<number, TrackedStateMachine<S>>();

  constructor(private readonly options: SimulatedClusterOptions<S>) {
    const random = new SimulationRandom(options.seed);
    const raftConfig: SimulationRaftConfig = {
      quorum: { ...DEFAULT_QUORUM_CONFIG, ...SIMULATION_QUORUM_DEFAULTS, ...options.quorum },
      log: {
        segmentBytes: options.log?.segmentBytes ?? 65_536,
        retentionMaxBytes: options.log?.retentionMaxBytes ?? -1,
        preallocateSegments: false,
      },
      listenerReadBufferBytes: options.listenerReadBufferBytes ?? KAFKA_LISTENER_READ_BUFFER_BYTES,
    };
    this.cluster = new Cluster({
      voters: options.voters ?? 3,
      observers: options.observers ?? 0,
      random,
      raftConfig,
      roundTripMessages: true,
      snapshotEveryRecords: Number.MAX_SAFE_INTEGER,
      flushDelayMaxMs: options.flushDelayMaxMs ?? 2,
      maxEvents: options.maxEvents ?? DEFAULT_MAX_EVENTS,
      createStateMachine: (host) => this.createStateMachine(host),
      ...(options.trace === undefined ? {} : { trace: options.trace }),
    });
  }

  private createStateMachine(host: StateMachineHost): NodeStateMachine {
    const { nodeId, incarnation } = host;
    const isCurrent = (): boolean => this.cluster.node(nodeId).current?.incarnation === incarnation;
    const context: SimulatedNodeContext = {
      nodeId,
      incarnation,
      isLeader: host.isLeader,
      highWatermark: host.highWatermark,
      createSnapshot: (snapshotId, lastContainedLogTimestamp) =>
        isCurrent()
          ? this.cluster.node(nodeId).current?.client.createSnapshot(snapshotId, lastContainedLogTimestamp)
          : undefined,
      nowMs: host.nowMs,
      schedule: (delayMs, work) => {
        this.cluster.scheduler.schedule(delayMs, `state machine ${nodeId}`, () =>
          isCurrent() ? work() : undefined,
        );
      },
      violation: host.violation,
    };
    const machine = new TrackedStateMachine(this.options.stateMachine(context));
    this.machines.set(nodeId, machine);
    return machine;
  }

  /** Starts every node that is not running. */
  start(): void {
    for (const nodeId of this.cluster.nodeIds()) this.cluster.start(nodeId);
  }

  /** Starts one node again after a crash, from what its disk kept. */
  restart(nodeId: number): void {
    this.cluster.start(nodeId);
  }

  /**
   * Power loss: the node's process dies at once and its disk loses every byte not yet synced
   * (`drop-unsynced`), or keeps a torn or garbled tail of them.
   */
  crash(nodeId: number, mode: CrashMode = 'drop-unsynced'): void {
    this.cluster.crash(nodeId, mode);
  }

  /** Whether the node's process is up (not crashed, or restarted since). */
  isRunning(nodeId: number): boolean {
    return this.cluster.isRunning(nodeId);
  }

  /** Every node id: voters first, then observers. */
  nodeIds(): number[] {
    return this.cluster.nodeIds();
  }

  /** The simulated time in milliseconds. */
  nowMs(): number {
    return this.cluster.nowMs();
  }

  /** The running leader with the highest epoch, if any. */
  leaderId(): number | undefined {
    return this.cluster.leader()?.nodeId;
  }

  /** The running node's high watermark (undefined while unknown or stopped). */
  highWatermark(nodeId: number): number | undefined {
    return this.cluster.node(nodeId).current?.highWatermark();
  }

  /** The state machine of the node's running incarnation (undefined while it is down). */
  stateMachine(nodeId: number): S | undefined {
    if (!this.cluster.isRunning(nodeId)) return undefined;
    return this.machines.get(nodeId)?.inner;
  }

  /**
   * One past the last offset the node's state machine applied: its own `appliedOffset()` if it has
   * one, else the end of the last batch reader it closed or exhausted during `handleCommit`.
   */
  appliedOffset(nodeId: number): number | undefined {
    if (!this.cluster.isRunning(nodeId)) return undefined;
    return this.machines.get(nodeId)?.appliedOffset();
  }

  /**
   * Appends `records` as one batch through the current leader. Undefined when there is no leader
   * or it refuses for now (its accumulator is full): retry after running a while. A proposal is not
   * committed until the high watermark passes `lastOffset`, and may be lost if leadership changes.
   */
  proposeThroughLeader(records: readonly Buffer[]): Proposal | undefined {
    const leader = this.cluster.leader();
    if (leader === undefined) return undefined;
    const epoch = leader.epoch();
    let lastOffset: number;
    try {
      lastOffset = leader.client.scheduleAppend(epoch, records);
    } catch (error) {
      const code = KRaftError.isInstance(error) ? error.code : undefined;
      if (code === 'NOT_LEADER' || code === 'BATCH_ACCUMULATOR_FULL') return undefined;
      throw error;
    }
    this.cluster.requestPoll(leader, this.cluster.nowMs());
    return { leaderId: leader.nodeId, epoch, lastOffset };
  }

  /** Cuts every link between nodes of different groups (nodes in no group keep their links). */
  partition(...groups: (readonly number[])[]): void {
    this.cluster.router.partitions.partition(groups);
    this.cluster.trace.record(this.cluster.nowMs(), `partition ${this.cluster.router.partitions.describe()}`);
  }

  /** Cuts `nodeId` off from every other node. */
  isolate(nodeId: number): void {
    this.cluster.router.partitions.isolate(nodeId, this.cluster.nodeIds());
    this.cluster.trace.record(this.cluster.nowMs(), `isolate ${nodeId}`);
  }

  /** Drops every message from `fromNodeId` to `toNodeId` (the other direction still works). */
  cutLink(fromNodeId: number, toNodeId: number): void {
    this.cluster.router.partitions.blockOneWay(fromNodeId, toNodeId);
    this.cluster.trace.record(this.cluster.nowMs(), `cut ${fromNodeId}>${toNodeId}`);
  }

  /** Restores every cut link (link conditions stay as set). */
  heal(): void {
    this.cluster.router.partitions.heal();
    this.cluster.trace.record(this.cluster.nowMs(), 'heal partitions');
  }

  /**
   * Random loss, duplication and delay for every message the partitions let through, over
   * healthy links (no loss, 1-3 ms delay); `setLinkConditions({})` restores healthy links.
   */
  setLinkConditions(conditions: Partial<LinkConditions>): void {
    this.cluster.router.conditions = { ...HEALTHY_LINKS, ...conditions };
    this.cluster.trace.record(
      this.cluster.nowMs(),
      `links ${JSON.stringify(this.cluster.router.conditions)}`,
    );
  }

  /**
   * Runs events until `condition` holds (true) or `timeoutMs` of simulated time pass (false).
   * Throws SimulationViolationError as soon as an invariant breaks.
   */
  async runUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
    // Time moves only when an event is taken: one at the deadline makes a quiet cluster's clock
    // reach it too, so a timeout always means that much simulated time.
    const deadline = this.cluster.scheduler.schedule(timeoutMs, 'deadline', () => {});
    const reached = await this.cluster.runUntil(condition, timeoutMs);
    deadline.cancelled = true;
    this.throwIfViolated();
    return reached;
  }

  /** Runs every event of the next `durationMs` of simulated time. */
  async runFor(durationMs: number): Promise<void> {
    await this.runUntil(() => false, durationMs);
  }

  /** What went wrong so far (empty on a clean run). */
  violations(): readonly string[] {
    return this.cluster.violations;
  }

  /**
   * Committed batches of the node's log from `startOffset` (at least its log start), decoded,
   * control batches included. One call reads one log segment, so it may stop below the high
   * watermark: call again from the last batch's `lastOffset + 1` until that reaches
   * `highWatermark`. An empty array means `startOffset` is the high watermark; undefined when the
   * node is down, knows no high watermark, or its log no longer holds `startOffset`.
   */
  readCommitted(nodeId: number, startOffset: number): Batch[] | undefined {
    const running = this.cluster.node(nodeId).current;
    const highWatermark = running?.highWatermark();
    if (running === undefined || highWatermark === undefined) return undefined;
    if (startOffset < running.log.startOffset() || startOffset > highWatermark) return undefined;
    if (startOffset === highWatermark) return [];
    const records = running.log.read(startOffset, 'committed').records;
    const batches: Batch[] = [];
    for (const batch of new RecordsIterator(records))
      if (batch.lastOffset >= startOffset) batches.push(batch);
    return batches;
  }

  /** The id of the node's newest snapshot (cheap: nothing is read); undefined when none or down. */
  latestSnapshotId(nodeId: number): OffsetAndEpoch | undefined {
    return this.cluster.node(nodeId).current?.log.latestSnapshotId();
  }

  /** The node's newest snapshot, decoded; undefined when it has none or is down. */
  latestSnapshot(nodeId: number): SimulatedSnapshot | undefined {
    const log = this.cluster.node(nodeId).current?.log;
    const snapshotId = log?.latestSnapshotId();
    if (log === undefined || snapshotId === undefined) return undefined;
    const raw = log.readSnapshot(snapshotId);
    if (raw === undefined) return undefined;
    return { snapshotId, batches: [...new RecordsIterator(raw.records())] };
  }

  private throwIfViolated(): void {
    if (this.cluster.violations.length > 0) throw new SimulationViolationError(this.cluster.violations);
  }
}
