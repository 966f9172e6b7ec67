import { DescribeQuorumRequest, type DescribeQuorumResponseData, KRaftError, Uuid } from '@kraft/protocol';
import { type CrashMode, MemoryFileSystem } from '@kraft/records';
import { FileQuorumStateStore } from '../io/file-quorum-state-store.js';
import { quorumStateStorePath } from '../node/log-directory-layout.js';
import type { InboundRequest, InboundResponse } from '../ports/network-channel.js';
import type {
  QuorumStateData,
  QuorumStateDataVersion,
  QuorumStateStore,
} from '../ports/quorum-state-store.js';
import type { OffsetAndEpoch, RaftLog } from '../ports/raft-log.js';
import type { Listener, SnapshotWriter } from '../raft-client.js';
import type { ElectionStateWrite, SnapshotInstall } from '../raft-outbox.js';
import { FollowerState } from '../states/follower-state.js';
import { CommittedHistory } from './committed-history.js';
import { describeEvent, EventScheduler, type SimulationEvent } from './event-scheduler.js';
import { GatedSyncFileSystem, type SyncGate } from './gated-sync-file-system.js';
import {
  ALL_INVARIANTS,
  type DynamicVotersView,
  InvariantChecker,
  type NodeView,
  type RunningNodeView,
} from './invariants.js';
import {
  ADMIN_CLIENT_ID,
  type MessageCodec,
  MessageRouter,
  type RouterEndpoint,
  type SimulatedNetworkChannel,
} from './message-router.js';
import { HEALTHY_LINKS, type LinkConditions } from './network-filters.js';
import {
  createSimulatedClient,
  openSimulatedLog,
  type SimulatedClient,
  type SimulationRaftConfig,
} from './node-factory.js';
import { protocolCodec } from './protocol-codec.js';
import { encodeValue, ReplicatedCounter } from './replicated-counter.js';
import type { SimulationRandom } from './simulation-random.js';
import { type TraceRecorder, UNRECORDED_TRACE } from './trace-recorder.js';

/** `metadata.log.dir`; the log lives in its `__cluster_metadata-0` directory, as in Kafka. */
export const METADATA_LOG_DIRECTORY = '/kraft';
const PARTITION_DIRECTORY = `${METADATA_LOG_DIRECTORY}/__cluster_metadata-0`;
const QUORUM_STATE_PATH = quorumStateStorePath(METADATA_LOG_DIRECTORY, '__cluster_metadata-0');

export interface ClusterOptions {
  readonly voters: number;
  readonly observers: number;
  readonly random: SimulationRandom;
  readonly raftConfig: SimulationRaftConfig;
  /** Encode and decode every message through @kraft/protocol. */
  readonly roundTripMessages: boolean;
  /**
   * Wraps every node's log as it opens: the seam for bugs planted behind the log port, to prove
   * the invariants catch them (never in the tiers).
   */
  readonly wrapLog?: (log: RaftLog) => RaftLog;
  /** Wraps every node's client as it starts (a planted bug in a client method). */
  readonly wrapClient?: (client: SimulatedClient, log: RaftLog) => SimulatedClient;
  /** Values applied between two snapshots of each node's default state machine (the counter). */
  readonly snapshotEveryRecords: number;
  /**
   * Builds each node incarnation's state machine; by default the harness's replicated counter,
   * which the workload (`startWorkload`) feeds.
   */
  readonly createStateMachine?: (host: StateMachineHost) => NodeStateMachine;
  /** The disk's usual fdatasync time: a flush completes within [0, this] ms when no fault slows it. */
  readonly flushDelayMaxMs: number;
  readonly maxEvents: number;
  /** Receives every trace line (the simulator hashes them); by default nothing is kept. */
  readonly trace?: TraceRecorder;
}

/** A node's state machine: a raft `Listener` that says how far it has applied the log. */
export interface NodeStateMachine extends Listener {
  /** One past the last offset applied (the snapshot id's offset right after loading one). */
  appliedOffset(): number;
}

/** What the cluster gives the state machine of one node incarnation. */
export interface StateMachineHost {
  readonly nodeId: number;
  readonly incarnation: number;
  isLeader(): boolean;
  highWatermark(): number | undefined;
  /** A snapshot writer from this node's client (undefined when that snapshot exists). */
  createSnapshot(snapshotId: OffsetAndEpoch): SnapshotWriter | undefined;
  /** The simulated time, for snapshot timestamps. */
  nowMs(): number;
  /** Reports a broken contract; the run fails with it. */
  violation(message: string): void;
}

/** Faults applied at the edges (disk and timers); the network's live in the router. */
export interface EdgeFaults {
  /** Extra random delay added to every poll wake-up (timer and clock jitter). */
  timerJitterMs: number;
  /** A flush completes after a random delay in [0, flushDelayMaxMs]. */
  flushDelayMaxMs: number;
}

const DESCRIBE_QUORUM = 55;

/** Most uncommitted offsets in the leader's log before the workload holds back. */
const MAX_UNCOMMITTED_OFFSETS = 200;

function hasHealthyLinks(conditions: LinkConditions): boolean {
  return (Object.keys(HEALTHY_LINKS) as (keyof LinkConditions)[]).every(
    (key) => conditions[key] === HEALTHY_LINKS[key],
  );
}

/** The top frames of an error's stack, for failure reports. */
function stackOf(error: unknown): string | undefined {
  if (!(error instanceof Error) || error.stack === undefined) return undefined;
  return error.stack.split('\n').slice(1, 9).join('\n');
}

/** The durable election writes of one node, observed on their way to its disk. */
class ObservedQuorumStateStore implements QuorumStateStore {
  constructor(
    private readonly store: QuorumStateStore,
    private readonly onWrite: (data: QuorumStateData) => void,
  ) {}

  readElectionState(): QuorumStateData | undefined {
    return this.store.readElectionState();
  }

  async writeElectionState(data: QuorumStateData, dataVersion: QuorumStateDataVersion): Promise<void> {
    await this.store.writeElectionState(data, dataVersion);
    this.onWrite(data);
  }

  clear(): void {
    this.store.clear();
  }

  path(): string {
    return this.store.path();
  }
}

/**
 * What a stopped process waits on: it never settles. A new one each time, so the dead log's
 * continuation is garbage with it (one shared promise would keep every crashed log alive).
 */
function never(): Promise<void> {
  return new Promise<void>(() => undefined);
}

/**
 * One log flush in flight, as the driver runs it: it starts after a poll (the log captures the end
 * it covers and issues the fdatasync), and its sync completes when the harness opens the gate,
 * after simulated time. Only then does the log report the covered offset and the driver pass it on.
 */
class FlushInFlight implements SyncGate {
  /** The log's answer; never rejects (a failure is the error). */
  outcome: Promise<{ offset: number } | { error: unknown }> | undefined;
  private readonly completion: Promise<void>;
  private release: () => void = () => {};
  /** Settles when the log issued its first file sync (or finished without one). */
  readonly issued: Promise<void>;
  private markIssued: () => void = () => {};

  constructor() {
    this.completion = new Promise((resolve) => {
      this.release = resolve;
    });
    this.issued = new Promise((resolve) => {
      this.markIssued = resolve;
    });
  }

  awaitCompletion(): Promise<void> {
    this.markIssued();
    return this.completion;
  }

  complete(): void {
    this.release();
  }
}

/** One process incarnation of a node. */
class RunningNode implements RunningNodeView, RouterEndpoint {
  pollEvent: SimulationEvent | undefined;
  flush: FlushInFlight | undefined;
  /** An election write the driver started and the disk has not finished. */
  electionWriteInFlight = false;
  shutdownDeadlineMs: number | undefined;
  readonly dynamicVoters: DynamicVotersView | undefined;

  constructor(
    readonly nodeId: number,
    readonly incarnation: number,
    readonly log: RaftLog,
    readonly client: SimulatedClient,
    readonly counter: NodeStateMachine,
    readonly channel: SimulatedNetworkChannel,
    readonly store: QuorumStateStore,
    private readonly cluster: Cluster,
    kraftVersion: number,
  ) {
    this.dynamicVoters = kraftVersion >= 1 ? new ClientVoterSets(client, log, nodeId) : undefined;
  }

  isLeader(): boolean {
    return this.client.isLeader();
  }

  epoch(): number {
    return this.client.leaderAndEpoch().epoch;
  }

  highWatermark(): number | undefined {
    return this.client.highWatermark();
  }

  receiveRequest(request: InboundRequest): void {
    this.cluster.onNodeCall(this, () => this.client.handleRequest(request, this.cluster.nowMs()));
  }

  receiveResponse(response: InboundResponse): void {
    this.cluster.onNodeCall(this, () => this.client.handleResponse(response, this.cluster.nowMs()));
  }
}

/** A kraft.version 1 node's voter sets, read from its client for the invariants. */
class ClientVoterSets implements DynamicVotersView {
  private epochStartChecked: { readonly epoch: number; readonly wasVoter: boolean } | undefined;

  constructor(
    private readonly client: SimulatedClient,
    private readonly log: RaftLog,
    private readonly nodeId: number,
  ) {}

  voterIds(): readonly number[] {
    return this.client.lastVoterSet().voterIds();
  }

  /**
   * The voter sets of the history are shared objects: the set at an offset is the same object
   * until the next change, so the last change is the first offset (at or above the high
   * watermark) whose set is the latest one, found by bisection.
   */
  uncommittedVoterChanges(): number {
    const highWatermark = this.client.highWatermark();
    const endOffset = this.log.endOffset();
    if (highWatermark === undefined || highWatermark >= endOffset) return 0;
    const latest = this.client.lastVoterSet();
    const committed = this.client.voterSetAtOffset(highWatermark - 1);
    if (committed === latest) return 0;
    let low = highWatermark;
    let high = endOffset - 1;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if (this.client.voterSetAtOffset(middle) === latest) high = middle;
      else low = middle + 1;
    }
    return this.client.voterSetAtOffset(low - 1) === committed ? 1 : 2;
  }

  /**
   * Answered once per epoch, when the checker first sees this node lead it: later the log start
   * may pass the epoch start (a snapshot), and below it the history no longer knows the set.
   */
  wasVoterAtEpochStart(): boolean {
    const leaderState = this.client.quorumState().leaderStateOrThrow();
    if (this.epochStartChecked?.epoch !== leaderState.epoch) {
      const atEpochStart = this.client.voterSetAtOffset(leaderState.epochStartOffset - 1);
      this.epochStartChecked = { epoch: leaderState.epoch, wasVoter: atEpochStart.isVoterId(this.nodeId) };
    }
    return this.epochStartChecked.wasVoter;
  }
}

/** A node's log directory id at kraft.version 1: its id and the disk it runs on (deterministic). */
function directoryIdFor(nodeId: number, diskGeneration: number): Uuid {
  return Uuid.fromLongs(BigInt(nodeId + 1) << 32n, BigInt(diskGeneration + 1));
}

/** A node across restarts: its disk (MemoryFileSystem) and its random stream persist. */
export class SimulatedNode implements NodeView {
  fileSystem = new MemoryFileSystem();
  incarnation = 0;
  current: RunningNode | undefined;
  /** Bumped when the disk is replaced: at kraft.version 1 the node then has a new directory id. */
  diskGeneration = 0;
  private durableEnd = 0;

  constructor(
    readonly nodeId: number,
    readonly isVoter: boolean,
    readonly random: SimulationRandom,
  ) {
    this.fileSystem.mkdir(PARTITION_DIRECTORY);
  }

  running(): RunningNodeView | undefined {
    return this.current;
  }

  durableEndOffset(): number {
    return this.current === undefined ? this.durableEnd : this.current.log.lastFlushedOffset();
  }

  /** @internal the cluster records the durable end when the process goes away. */
  setDurableEnd(offset: number): void {
    this.durableEnd = offset;
  }
}

/**
 * A simulated KRaft cluster: real `KafkaRaftClient`s over the real log on MemoryFileSystem and
 * FileQuorumStateStore, connected by the router, driven by the scheduler, with a workload,
 * state machines, and the invariants checked after every event.
 */
export class Cluster {
  readonly scheduler = new EventScheduler();
  readonly trace: TraceRecorder;
  readonly history = new CommittedHistory();
  readonly router: MessageRouter;
  readonly checker: InvariantChecker;
  readonly nodes: SimulatedNode[] = [];
  readonly violations: string[] = [];
  readonly edgeFaults: EdgeFaults;
  readonly voterIds: number[];
  events = 0;
  /** Simulated power losses (R4's crash points). */
  crashes = 0;
  /** Workload bookkeeping. */
  private nextValue = 1;
  private readonly pending = new Map<number, number>();
  /** Values awaiting commit at each offset: leaders of different epochs may reuse an offset. */
  private readonly pendingByOffset = new Map<number, number[]>();
  readonly acked = new Map<number, number>();
  appendsRejected = 0;
  appendsThrottled = 0;
  appendsFailed = 0;
  private workload: SimulationEvent | undefined;
  private workloadIntervalMs = 10;
  /**
   * After the first leader, no other leader or higher epoch may be persisted (StableLeadership);
   * `reason` names a StableEpoch watch, which holds only while its episode lasts.
   */
  private stableLeadership: { epoch: number; reason?: string } | 'armed' | undefined;
  private nextAdminCorrelationId = 1;
  /** The admin requests awaiting an answer, by correlation id (bounded by the scenarios' calls). */
  private readonly adminAnswers = new Map<number, (data: unknown) => void>();
  private readonly describeQuorumExpectations = new Map<
    number,
    { leaderId: number; epoch: number; highWatermark: number | undefined; voterIds: string }
  >();

  constructor(readonly options: ClusterOptions) {
    this.trace = options.trace ?? UNRECORDED_TRACE;
    this.edgeFaults = { timerJitterMs: 0, flushDelayMaxMs: options.flushDelayMaxMs };
    const codec = options.roundTripMessages ? this.checkedCodec(protocolCodec) : undefined;
    this.router = new MessageRouter(
      this.scheduler,
      options.random.fork(),
      this.trace,
      options.raftConfig.quorum.requestTimeoutMs,
      codec,
    );
    this.checker = new InvariantChecker(
      this.history,
      (violation) => this.violation(violation),
      ALL_INVARIANTS,
    );
    this.voterIds = Array.from({ length: options.voters }, (_, index) => index);
    for (let nodeId = 0; nodeId < options.voters + options.observers; nodeId += 1) {
      this.nodes.push(new SimulatedNode(nodeId, nodeId < options.voters, options.random.fork()));
    }
  }

  nowMs(): number {
    return this.scheduler.nowMs();
  }

  nodeIds(): number[] {
    return this.nodes.map((node) => node.nodeId);
  }

  node(nodeId: number): SimulatedNode {
    const node = this.nodes[nodeId];
    if (node === undefined) throw new Error(`no node ${nodeId}`);
    return node;
  }

  /**
   * Records a violation. `detail` (a stack) goes to the report only, not to the trace, so trace
   * hashes do not depend on where the code lives.
   */
  violation(message: string, detail?: string): void {
    if (this.violations.length < 50) {
      this.violations.push(`t=${this.nowMs()} ${message}${detail === undefined ? '' : `\n${detail}`}`);
    }
    this.trace.record(this.nowMs(), `VIOLATION ${message}`);
  }

  private checkedCodec(codec: MessageCodec): MessageCodec {
    const guard = (
      kind: string,
      apiKey: number,
      apiVersion: number,
      data: unknown,
      run: () => unknown,
    ): unknown => {
      try {
        return run();
      } catch (error) {
        this.violation(`${kind} api ${apiKey} v${apiVersion} does not round-trip: ${String(error)}`);
        return data;
      }
    };
    return {
      roundTripRequest: (apiKey, apiVersion, data) =>
        guard('request', apiKey, apiVersion, data, () => codec.roundTripRequest(apiKey, apiVersion, data)),
      roundTripResponse: (apiKey, apiVersion, data) =>
        guard('response', apiKey, apiVersion, data, () => codec.roundTripResponse(apiKey, apiVersion, data)),
    };
  }

  // ---------------------------------------------------------------- lifecycle

  start(nodeId: number): void {
    const node = this.node(nodeId);
    if (node.current !== undefined) return;
    node.incarnation += 1;
    const nowMs = this.nowMs();
    try {
      this.startProcess(node, nowMs);
    } catch (error) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      this.violation(`node ${nodeId} failed to start: ${detail}`, stackOf(error));
      node.current = undefined;
    }
  }

  private startProcess(node: SimulatedNode, nowMs: number): void {
    const nodeId = node.nodeId;
    let running: RunningNode | undefined;
    // A file sync outside a flush (none today) completes at once. A crashed or stopped process
    // issues no more I/O: a sync it waits on never completes, so its log never resumes on the disk
    // the next incarnation uses (its continuations would rename and unlink that one's files).
    const gate: SyncGate = {
      awaitCompletion: () => {
        if (running !== undefined && node.current !== running) return never();
        return running?.flush?.awaitCompletion() ?? Promise.resolve();
      },
    };
    const openedLog = openSimulatedLog(
      new GatedSyncFileSystem(node.fileSystem, gate),
      METADATA_LOG_DIRECTORY,
      this.options.raftConfig,
      () => this.nowMs(),
    );
    const log = this.options.wrapLog === undefined ? openedLog : this.options.wrapLog(openedLog);
    if (this.checker.selection.durableFlush && log.endOffset() < node.durableEndOffset()) {
      this.violation(
        `node ${nodeId} recovered its log to ${log.endOffset()} below the flushed offset ${node.durableEndOffset()}`,
      );
    }
    const store = new ObservedQuorumStateStore(
      new FileQuorumStateStore({ fileSystem: node.fileSystem, path: QUORUM_STATE_PATH }),
      (data) => this.onPersistedElection(nodeId, data),
    );
    const channel = this.router.channelFor(nodeId, node.incarnation);
    const host: StateMachineHost = {
      nodeId,
      incarnation: node.incarnation,
      isLeader: () => running?.client.isLeader() ?? false,
      highWatermark: () => running?.client.highWatermark(),
      createSnapshot: (snapshotId) => running?.client.createSnapshot(snapshotId, this.nowMs()),
      nowMs: () => this.nowMs(),
      violation: (message) => this.violation(message),
    };
    const counter =
      this.options.createStateMachine === undefined
        ? this.createCounter(host)
        : this.options.createStateMachine(host);
    const createdClient = createSimulatedClient({
      nodeId,
      voterIds: this.voterIds,
      log,
      store,
      channel,
      random: node.random.fork(),
      config: this.options.raftConfig,
      nowMs,
      ...(this.options.raftConfig.kraftVersion === 1
        ? { directoryId: directoryIdFor(nodeId, node.diskGeneration) }
        : {}),
    });
    const client =
      this.options.wrapClient === undefined ? createdClient : this.options.wrapClient(createdClient, log);
    running = new RunningNode(
      nodeId,
      node.incarnation,
      log,
      client,
      counter,
      channel,
      store,
      this,
      this.options.raftConfig.kraftVersion ?? 0,
    );
    client.register(counter);
    node.current = running;
    this.router.attach(running);
    this.trace.record(
      nowMs,
      `start node ${nodeId} incarnation ${node.incarnation} log ${log.startOffset()}..${log.endOffset()}`,
    );
    this.requestPoll(running, nowMs);
  }

  private createCounter(host: StateMachineHost): ReplicatedCounter {
    return new ReplicatedCounter(
      {
        nodeId: host.nodeId,
        isLeader: host.isLeader,
        highWatermark: host.highWatermark,
        createSnapshot: host.createSnapshot,
        committed: (value, offset) => this.onCommitted(value, offset),
        violation: host.violation,
        trace: (line) => this.trace.record(this.nowMs(), line),
      },
      this.history,
      this.options.snapshotEveryRecords,
    );
  }

  /** Power loss: the process dies and every unsynced byte is lost (or torn, or garbled). */
  crash(nodeId: number, mode: CrashMode = 'drop-unsynced'): void {
    const node = this.node(nodeId);
    const running = node.current;
    if (running !== undefined) node.setDurableEnd(running.log.lastFlushedOffset());
    this.stopProcess(node);
    node.fileSystem.crash({ mode, random: () => node.random.nextDouble() });
    this.crashes += 1;
    this.trace.record(this.nowMs(), `crash node ${nodeId} ${mode}`);
  }

  /** Crash and lose the whole disk: log, snapshots and quorum state. */
  wipe(nodeId: number): void {
    const node = this.node(nodeId);
    this.stopProcess(node);
    node.fileSystem = new MemoryFileSystem();
    node.fileSystem.mkdir(PARTITION_DIRECTORY);
    node.setDurableEnd(0);
    this.checker.onDiskWiped(nodeId);
    this.trace.record(this.nowMs(), `wipe node ${nodeId}`);
  }

  /**
   * Replaces the node's disk with an empty one (a wipe); at kraft.version 1 the node comes back
   * with a new directory id, so it is a new replica to the quorum (KIP-853).
   */
  replaceDisk(nodeId: number): void {
    this.wipe(nodeId);
    this.node(nodeId).diskGeneration += 1;
  }

  /** The directory id node `nodeId` runs with now (kraft.version 1). */
  directoryIdOf(nodeId: number): Uuid {
    return directoryIdFor(nodeId, this.node(nodeId).diskGeneration);
  }

  /**
   * Sends an admin request (AddRaftVoter, RemoveRaftVoter, ...) to node `nodeId`, as an admin
   * client connected to it would; `onAnswer` receives the response data. Nothing is sent to a
   * node that is down, and an answer lost with its node never comes.
   */
  adminRequest(
    nodeId: number,
    request: { apiKey: number; apiVersion: number; data: unknown },
    onAnswer: (data: unknown) => void,
  ): boolean {
    const running = this.node(nodeId).current;
    if (running === undefined) return false;
    const inbound: InboundRequest = {
      correlationId: this.nextAdminCorrelationId++,
      apiKey: request.apiKey,
      apiVersion: request.apiVersion,
      data: request.data,
      createdTimeMs: this.nowMs(),
      sourceId: ADMIN_CLIENT_ID,
    };
    this.adminAnswers.set(inbound.correlationId, onAnswer);
    this.trace.record(this.nowMs(), `admin api${request.apiKey} to ${nodeId} #${inbound.correlationId}`);
    running.receiveRequest(inbound);
    return true;
  }

  private onAdminResponse(responderId: number, request: InboundRequest, data: unknown): void {
    const onAnswer = this.adminAnswers.get(request.correlationId);
    if (onAnswer === undefined) {
      this.checkDescribeQuorum(responderId, request, data);
      return;
    }
    this.adminAnswers.delete(request.correlationId);
    const { errorCode, errorMessage } = data as { errorCode: number; errorMessage?: string | null };
    this.trace.record(
      this.nowMs(),
      `admin answer api${request.apiKey} from ${responderId} #${request.correlationId} error ${errorCode}` +
        (errorMessage === undefined || errorMessage === null ? '' : `: ${errorMessage}`),
    );
    onAnswer(data);
  }

  /** Begins a graceful shutdown; the node stops once the client says so (or at the timeout). */
  shutdown(nodeId: number, timeoutMs: number): void {
    const running = this.node(nodeId).current;
    if (running === undefined || running.shutdownDeadlineMs !== undefined) return;
    running.shutdownDeadlineMs = this.nowMs() + timeoutMs;
    this.trace.record(this.nowMs(), `shutdown node ${nodeId}`);
    this.onNodeCall(running, () => running.client.shutdown(timeoutMs, this.nowMs()));
    this.requestPoll(running, this.nowMs());
  }

  isRunning(nodeId: number): boolean {
    return this.node(nodeId).current !== undefined;
  }

  private stopProcess(node: SimulatedNode): void {
    const running = node.current;
    if (running === undefined) return;
    if (running.pollEvent !== undefined) running.pollEvent.cancelled = true;
    node.current = undefined;
    this.router.detach(node.nodeId);
  }

  private finishShutdown(running: RunningNode): void {
    const node = this.node(running.nodeId);
    try {
      running.log.close();
    } catch (error) {
      this.violation(`node ${running.nodeId} failed to close its log: ${String(error)}`);
    }
    node.setDurableEnd(running.log.lastFlushedOffset());
    this.stopProcess(node);
    this.trace.record(this.nowMs(), `stopped node ${running.nodeId}`);
    if (this.restartStoppedNodes) {
      this.scheduler.schedule(10, `restart ${running.nodeId}`, () => this.start(running.nodeId));
    }
  }

  // ---------------------------------------------------------------- driving the nodes

  /** Runs a call into a node's client; an exception kills that node (as in a real process). */
  onNodeCall(running: RunningNode, call: () => void): void {
    if (this.node(running.nodeId).current !== running) return;
    try {
      call();
      this.carryOutReady(running);
    } catch (error) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      this.violation(`node ${running.nodeId} threw ${detail}`, stackOf(error));
      this.crash(running.nodeId);
      return;
    }
    this.requestPoll(running, this.nowMs());
  }

  /** Makes sure the node polls no later than `atMs`. */
  requestPoll(running: RunningNode, atMs: number): void {
    const scheduled = running.pollEvent;
    if (scheduled !== undefined && !scheduled.cancelled && scheduled.atMs <= atMs) return;
    if (scheduled !== undefined) scheduled.cancelled = true;
    running.pollEvent = this.scheduler.scheduleAt(atMs, `poll ${running.nodeId}`, () => this.poll(running));
  }

  private poll(running: RunningNode): void {
    running.pollEvent = undefined;
    if (this.node(running.nodeId).current !== running) return;
    const nowMs = this.nowMs();
    let deadlineMs: number;
    try {
      deadlineMs = running.client.poll(nowMs);
      this.carryOutReady(running);
    } catch (error) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      this.violation(`node ${running.nodeId} poll threw ${detail}`, stackOf(error));
      this.crash(running.nodeId);
      return;
    }
    if (running.shutdownDeadlineMs !== undefined) {
      if (running.client.isShutdownComplete() || nowMs >= running.shutdownDeadlineMs) {
        this.finishShutdown(running);
        return;
      }
      deadlineMs = Math.min(deadlineMs, running.shutdownDeadlineMs);
    }
    this.maybeScheduleFlush(running);
    // The core asks for an immediate poll while data awaits a flush; with the flush already
    // scheduled, poll again soon rather than spin until it completes.
    if (deadlineMs <= nowMs && running.flush !== undefined) deadlineMs = nowMs + 5;
    const jitterMs =
      this.edgeFaults.timerJitterMs > 0
        ? this.node(running.nodeId).random.nextInt(this.edgeFaults.timerJitterMs + 1)
        : 0;
    const nextMs = Math.min(Math.max(deadlineMs, nowMs + 1), nowMs + 10_000) + jitterMs;
    this.requestPoll(running, nextMs);
  }

  /**
   * What the driver does after every call into the client: starts the election write `ready()`
   * names and sends the messages free to leave, in order. The write takes simulated time (a
   * quorum-state fdatasync, drawn like a flush's) and reaches the disk only when it completes, so
   * a crash meanwhile restarts the node from the older election, as a power loss would.
   */
  private carryOutReady(running: RunningNode): void {
    const ready = running.client.ready();
    if (ready.electionState !== undefined) this.startElectionWrite(running, ready.electionState);
    if (ready.snapshotInstall !== undefined) this.startSnapshotInstall(running, ready.snapshotInstall);
    for (const message of ready.messages) {
      if (message.kind === 'request') running.channel.send(message.request);
      else running.channel.sendResponse(message.request, message.data);
    }
  }

  /** How long one disk write or sync of `node` takes: drawn from its own random, up to the edge fault's bound. */
  private drawDiskDelayMs(node: SimulatedNode): number {
    return this.edgeFaults.flushDelayMaxMs > 0 ? node.random.nextInt(this.edgeFaults.flushDelayMaxMs + 1) : 0;
  }

  private startElectionWrite(running: RunningNode, write: ElectionStateWrite): void {
    if (running.electionWriteInFlight) {
      throw new Error(`election write ${write.id} handed out while another is in flight`);
    }
    running.electionWriteInFlight = true;
    const delayMs = this.drawDiskDelayMs(this.node(running.nodeId));
    this.scheduler.schedule(delayMs, `election write ${running.nodeId} done`, () =>
      this.completeElectionWrite(running, write),
    );
  }

  private async completeElectionWrite(running: RunningNode, write: ElectionStateWrite): Promise<void> {
    // A crash or a shutdown meanwhile: the write never reached the disk.
    if (this.node(running.nodeId).current !== running) return;
    try {
      await running.store.writeElectionState(write.data, write.dataVersion);
    } catch (error) {
      this.violation(`node ${running.nodeId} quorum-state write failed: ${String(error)}`, stackOf(error));
      this.crash(running.nodeId);
      return;
    }
    running.electionWriteInFlight = false;
    if (this.node(running.nodeId).current !== running) return;
    this.onNodeCall(running, () => running.client.onElectionStatePersisted(write.id, this.nowMs()));
  }

  /**
   * The driver's freeze of a downloaded snapshot (ADR 0039): it starts after a drawn delay, like an
   * election write, and runs `freezeFetchedSnapshot`, whose syncs wait for the flush in flight if
   * any (the gate). A crash before the start leaves the partial file; one during it, whatever its
   * steps made durable (a gated sync never completes for a crashed process).
   */
  private startSnapshotInstall(running: RunningNode, install: SnapshotInstall): void {
    const delayMs = this.drawDiskDelayMs(this.node(running.nodeId));
    this.scheduler.schedule(delayMs, `snapshot freeze ${running.nodeId} done`, () =>
      this.completeSnapshotInstall(running, install),
    );
  }

  private async completeSnapshotInstall(running: RunningNode, install: SnapshotInstall): Promise<void> {
    if (this.node(running.nodeId).current !== running) return;
    try {
      await running.log.freezeFetchedSnapshot(install.writer);
    } catch (error) {
      this.violation(`node ${running.nodeId} snapshot freeze failed: ${String(error)}`, stackOf(error));
      this.crash(running.nodeId);
      return;
    }
    if (this.node(running.nodeId).current !== running) return;
    this.onNodeCall(running, () => running.client.onSnapshotInstallDurable(install.id, this.nowMs()));
  }

  /**
   * The driver's background flush: it starts right after the poll that left data unflushed and
   * covers what the log holds then; it completes after a random delay, during which the node keeps
   * polling, appending and answering, and may crash (losing what came after the flush's start).
   */
  private maybeScheduleFlush(running: RunningNode): void {
    if (running.flush !== undefined || running.log.lastFlushedOffset() >= running.log.endOffset()) return;
    const flush = new FlushInFlight();
    running.flush = flush;
    this.scheduler.schedule(0, `flush ${running.nodeId} start`, () => this.startFlush(running, flush));
  }

  private async startFlush(running: RunningNode, flush: FlushInFlight): Promise<void> {
    const node = this.node(running.nodeId);
    if (node.current !== running) return;
    const outcome = running.log.flush().then(
      (offset) => ({ offset }),
      (error: unknown) => ({ error }),
    );
    flush.outcome = outcome;
    // The log captures its end and issues the sync in its first microtasks: wait for that here,
    // so nothing else runs between this event and the flush's start.
    await Promise.race([flush.issued, outcome]);
    const delayMs = this.drawDiskDelayMs(node);
    this.scheduler.schedule(delayMs, `flush ${running.nodeId} done`, () =>
      this.completeFlush(running, flush),
    );
  }

  private async completeFlush(running: RunningNode, flush: FlushInFlight): Promise<void> {
    // A crash or a shutdown meanwhile: the process that asked is gone, and its sync never
    // completes (released, its log would go on writing the disk the next incarnation owns).
    if (this.node(running.nodeId).current !== running) {
      running.flush = undefined;
      return;
    }
    flush.complete();
    const outcome = await flush.outcome;
    running.flush = undefined;
    if (outcome === undefined || this.node(running.nodeId).current !== running) return;
    if ('error' in outcome) {
      this.violation(`node ${running.nodeId} flush failed: ${String(outcome.error)}`, stackOf(outcome.error));
      this.crash(running.nodeId);
      return;
    }
    this.onNodeCall(running, () => running.client.onLogFlushed(outcome.offset, this.nowMs()));
  }

  // ---------------------------------------------------------------- workload

  /** Appends one value through the current leader every `intervalMs` (until stopped). */
  startWorkload(intervalMs: number): void {
    this.workloadIntervalMs = intervalMs;
    if (this.workload !== undefined) return;
    const tick = (): void => {
      this.appendOne();
      this.workload = this.scheduler.schedule(
        this.options.random.between(1, this.workloadIntervalMs * 2),
        'append',
        tick,
      );
    };
    this.workload = this.scheduler.schedule(this.workloadIntervalMs, 'append', tick);
  }

  stopWorkload(): void {
    if (this.workload !== undefined) this.workload.cancelled = true;
    this.workload = undefined;
  }

  /** Stops the workload; the returned function restarts it at the same rate if it was running. */
  pauseWorkload(): () => void {
    if (this.workload === undefined) return () => {};
    this.stopWorkload();
    const intervalMs = this.workloadIntervalMs;
    return () => this.startWorkload(intervalMs);
  }

  /** The running leader with the highest epoch. */
  leader(): RunningNode | undefined {
    let best: RunningNode | undefined;
    for (const node of this.nodes) {
      const running = node.current;
      if (running === undefined || running.shutdownDeadlineMs !== undefined || !running.isLeader()) continue;
      if (best === undefined || running.epoch() > best.epoch()) best = running;
    }
    return best;
  }

  private appendOne(): void {
    const leader = this.leader();
    if (leader === undefined) return;
    // A real client bounds what it has outstanding (TARGETS §4.6); an unbounded backlog would
    // turn every catch-up into a liveness failure that says nothing about raft.
    if (leader.log.endOffset() - leader.log.highWatermark() >= MAX_UNCOMMITTED_OFFSETS) {
      this.appendsThrottled += 1;
      return;
    }
    const value = this.nextValue;
    this.nextValue += 1;
    let offset: number;
    try {
      offset = leader.client.scheduleAppend(leader.epoch(), [encodeValue(value)]);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 'NOT_LEADER' || code === 'BATCH_ACCUMULATOR_FULL') {
        this.appendsRejected += 1;
        return;
      }
      this.violation(`node ${leader.nodeId} append threw ${String(error)}`, stackOf(error));
      return;
    }
    this.pending.set(value, offset);
    const atOffset = this.pendingByOffset.get(offset);
    if (atOffset === undefined) this.pendingByOffset.set(offset, [value]);
    else atOffset.push(value);
    this.trace.record(this.nowMs(), `append ${value} at ${offset} via ${leader.nodeId}`);
    this.requestPoll(leader, this.nowMs());
  }

  private onCommitted(value: number, offset: number): void {
    const ackedAt = this.acked.get(value);
    if (ackedAt !== undefined) {
      if (ackedAt !== offset)
        this.violation(`value ${value} committed at ${offset} after being acked at ${ackedAt}`);
      return;
    }
    const expected = this.pending.get(value);
    if (expected !== undefined && expected !== offset) {
      this.violation(`value ${value} committed at ${offset} but the leader assigned it ${expected}`);
    }
    this.pending.delete(value);
    this.acked.set(value, offset);
    // Every other value appended at this offset lost: the offset now holds `value` for good.
    for (const displaced of this.pendingByOffset.get(offset) ?? []) {
      if (displaced !== value && this.pending.delete(displaced)) this.appendsFailed += 1;
    }
    this.pendingByOffset.delete(offset);
  }

  /** After healing, a node that finishes a graceful shutdown comes straight back. */
  restartStoppedNodes = false;
  /** Set once every node converged on one committed state after healing. */
  converged = false;

  /**
   * Appended values neither committed nor known lost. After convergence none remain: every
   * offset a pending value could take is settled (the log ends at the high watermark everywhere).
   */
  indeterminateValues(): number {
    return this.converged ? 0 : this.pending.size;
  }

  // ---------------------------------------------------------------- DescribeQuorum

  /** Asks the leader to describe the quorum every `intervalMs`, as an admin client would. */
  startDescribeQuorumProbe(intervalMs: number): void {
    this.router.adminResponses = (responderId, request, data) =>
      this.onAdminResponse(responderId, request, data);
    const tick = (): void => {
      const leader = this.leader();
      if (leader !== undefined) {
        const request: InboundRequest = {
          correlationId: this.nextAdminCorrelationId++,
          apiKey: DESCRIBE_QUORUM,
          apiVersion: 2,
          data: DescribeQuorumRequest.defaults({
            topics: [{ topicName: '__cluster_metadata', partitions: [{ partitionIndex: 0 }] }],
          }),
          createdTimeMs: this.nowMs(),
          sourceId: ADMIN_CLIENT_ID,
        };
        this.describeQuorumExpectations.set(request.correlationId, {
          leaderId: leader.nodeId,
          epoch: leader.epoch(),
          highWatermark: leader.highWatermark(),
          voterIds: this.countedVoterIds(leader),
        });
        leader.receiveRequest(request);
      }
      this.scheduler.schedule(intervalMs, 'describe-quorum', tick);
    };
    this.scheduler.schedule(intervalMs, 'describe-quorum', tick);
  }

  /** The static voters, or at kraft.version 1 the node's latest set (the one a leader counts over), as text. */
  private countedVoterIds(running: RunningNode): string {
    return (running.dynamicVoters?.voterIds() ?? this.voterIds).join(',');
  }

  /**
   * The leader describes itself, its epoch, its high watermark and exactly the static voters. The
   * answer leaves at the end of the poll that handled the request (the driver sends what
   * `ready()` hands out), and that poll may advance the high watermark after answering: the one
   * reported lies between the value when the request arrived and the value when the answer left.
   */
  private checkDescribeQuorum(responderId: number, request: InboundRequest, data: unknown): void {
    const expected = this.describeQuorumExpectations.get(request.correlationId);
    this.describeQuorumExpectations.delete(request.correlationId);
    const running = this.node(responderId).current;
    if (
      expected === undefined ||
      running === undefined ||
      !running.isLeader() ||
      running.epoch() !== expected.epoch
    ) {
      return; // leadership moved before the answer: nothing to compare
    }
    const response = data as DescribeQuorumResponseData;
    const partition = response.topics[0]?.partitions[0];
    const problems: string[] = [];
    if (response.errorCode !== 0 || partition === undefined || partition.errorCode !== 0)
      problems.push('an error');
    else {
      if (partition.leaderId !== responderId) problems.push(`leader ${partition.leaderId}`);
      if (partition.leaderEpoch !== expected.epoch) problems.push(`epoch ${partition.leaderEpoch}`);
      const reported = partition.highWatermark;
      const atRequest = BigInt(expected.highWatermark ?? -1);
      const atAnswer = BigInt(running.highWatermark() ?? -1);
      if (reported < atRequest || reported > atAnswer)
        problems.push(`high watermark ${reported} outside [${atRequest}, ${atAnswer}]`);
      const voters = partition.currentVoters
        .map((voter) => voter.replicaId)
        .sort((left, right) => left - right);
      // The static voters, or at kraft.version 1 the leader's latest set (the one it counts over)
      // when the request arrived or when the answer left: a voter change in the same poll may
      // come before or after the answer.
      const atAnswerVoters = this.countedVoterIds(running);
      const reportedVoters = voters.join(',');
      if (reportedVoters !== expected.voterIds && reportedVoters !== atAnswerVoters)
        problems.push(`voters ${reportedVoters}`);
      for (const observer of partition.observers) {
        if (voters.includes(observer.replicaId))
          problems.push(`voter ${observer.replicaId} listed as observer`);
      }
      const self = partition.currentVoters.find((voter) => voter.replicaId === responderId);
      if (self !== undefined && self.logEndOffset > BigInt(running.log.endOffset())) {
        problems.push(`own log end ${self.logEndOffset} beyond ${running.log.endOffset()}`);
      }
    }
    if (problems.length > 0) {
      this.violation(
        `DescribeQuorum from leader ${responderId} (epoch ${expected.epoch}) reports ${problems.join(', ')}`,
      );
    }
  }

  // ---------------------------------------------------------------- snapshots above the HWM

  /**
   * Every `intervalMs`, asks each running node whose log runs past its high watermark for a
   * snapshot ending at its log end: an id the log itself would accept (batch aligned, in the log's
   * epoch), so only the core's high-watermark check stands between it and an uncommitted snapshot.
   * The core must refuse it itself, with InvalidSnapshotError.
   */
  startSnapshotProbe(intervalMs: number): void {
    const tick = (): void => {
      for (const node of this.nodes) {
        const running = node.current;
        if (running !== undefined) this.probeSnapshotAboveHighWatermark(running);
      }
      this.scheduler.schedule(intervalMs, 'snapshot-probe', tick);
    };
    this.scheduler.schedule(intervalMs, 'snapshot-probe', tick);
  }

  private probeSnapshotAboveHighWatermark(running: RunningNode): void {
    const highWatermark = running.highWatermark();
    const endOffset = running.log.endOffset();
    if (highWatermark === undefined || endOffset <= highWatermark) return;
    const snapshotId = { offset: endOffset, epoch: running.log.lastFetchedEpoch() };
    if (running.log.validateOffsetAndEpoch(snapshotId.offset, snapshotId.epoch).kind !== 'valid') return;
    const what = `node ${running.nodeId} snapshot ${endOffset}-${snapshotId.epoch} above the high watermark ${highWatermark}`;
    try {
      const writer = running.client.createSnapshot(snapshotId, this.nowMs());
      if (writer !== undefined) {
        writer.close();
        this.violation(`${what} was allowed`);
      }
    } catch (error) {
      if (!KRaftError.isInstance(error) || error.code !== 'INVALID_SNAPSHOT') {
        this.violation(`${what} was refused by the log, not by the core: ${String(error)}`, stackOf(error));
      }
    }
  }

  // ---------------------------------------------------------------- stable leadership

  /** From now on the first leader elected must stay the only one (Kafka's StableLeadership). */
  armStableLeadership(): void {
    this.stableLeadership = 'armed';
  }

  /** Until `releaseStableEpoch`, no node may persist an epoch above `epoch` (StableEpoch). */
  expectStableEpoch(epoch: number, reason: string): void {
    this.stableLeadership = { epoch, reason };
  }

  releaseStableEpoch(): void {
    this.stableLeadership = undefined;
  }

  /**
   * The state a StableEpoch watch may start from: every node up and not shutting down, no cut
   * and healthy links (so nothing but the episode can cost the leader its majority), and every
   * node in the leader's epoch following it. Returns the leader, or undefined.
   */
  settledLeader(): RunningNode | undefined {
    const leader = this.leader();
    if (
      leader === undefined ||
      !this.router.partitions.isHealed() ||
      !hasHealthyLinks(this.router.conditions)
    )
      return undefined;
    const epoch = leader.epoch();
    for (const node of this.nodes) {
      const running = node.current;
      if (running === undefined || running.shutdownDeadlineMs !== undefined) return undefined;
      const known = running.client.leaderAndEpoch();
      if (known.epoch !== epoch || known.leaderId !== leader.nodeId) return undefined;
      if (running !== leader && !this.isFetchingFollower(running)) return undefined;
    }
    return leader;
  }

  /**
   * A Follower that fetched from its leader within the last two long polls. A Prospective node
   * still names the leader but fetches nothing (check-quorum may then depose the leader); a
   * follower whose fetches were lost in a cut that has since healed is still counting down its
   * fetch timeout and may campaign: neither is settled.
   */
  private isFetchingFollower(running: RunningNode): boolean {
    const state = running.client.quorumState().state();
    if (!(state instanceof FollowerState) || !state.hasFetchedFromLeader()) return false;
    const { fetchTimeoutMs, fetchMaxWaitMs } = this.options.raftConfig.quorum;
    return state.remainingFetchTimeMs(this.nowMs()) >= fetchTimeoutMs - 2 * fetchMaxWaitMs;
  }

  private onPersistedElection(nodeId: number, data: QuorumStateData): void {
    this.trace.record(
      this.nowMs(),
      `persist node ${nodeId} epoch ${data.leaderEpoch} leader ${data.leaderId} voted ${data.votedId}`,
    );
    this.checker.onPersistedElection(nodeId, data.leaderEpoch, data.leaderId);
    const stable = this.stableLeadership;
    if (stable === 'armed' && data.leaderId >= 0) this.stableLeadership = { epoch: data.leaderEpoch };
    else if (stable !== undefined && stable !== 'armed' && data.leaderEpoch > stable.epoch) {
      this.violation(
        stable.reason === undefined
          ? `StableLeadership: node ${nodeId} persisted epoch ${data.leaderEpoch} after leadership settled in ${stable.epoch}`
          : `StableEpoch: node ${nodeId} persisted epoch ${data.leaderEpoch} while ${stable.reason}`,
      );
    }
  }

  // ---------------------------------------------------------------- running

  /**
   * Runs events until `condition` holds (true) or `timeoutMs` of simulated time pass (false).
   * Invariants run after every event.
   */
  async runUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadlineMs = this.nowMs() + timeoutMs;
    for (;;) {
      if (condition()) return true;
      if (this.violations.length > 0) return false;
      if (this.events >= this.options.maxEvents) {
        this.violation(`event budget of ${this.options.maxEvents} exhausted`);
        return false;
      }
      const nextMs = this.scheduler.peekTimeMs();
      if (nextMs === undefined || nextMs > deadlineMs) return false;
      const event = this.scheduler.takeNext();
      if (event === undefined) return false;
      await this.runEvent(event);
    }
  }

  /** Runs all events for `durationMs` of simulated time. */
  async runFor(durationMs: number): Promise<void> {
    await this.runUntil(() => false, durationMs);
  }

  private async runEvent(event: SimulationEvent): Promise<void> {
    this.events += 1;
    this.trace.record(event.atMs, describeEvent(event));
    const result = event.run();
    if (result !== undefined) await result;
    this.checker.check(this.nodes);
  }

  // ---------------------------------------------------------------- observations

  runningNodes(): RunningNode[] {
    return this.nodes.flatMap((node) => (node.current === undefined ? [] : [node.current]));
  }

  /** The highest high watermark any running node knows. */
  maxHighWatermark(): number {
    return Math.max(0, ...this.runningNodes().map((running) => running.highWatermark() ?? 0));
  }

  /** Whether every running node (or those listed) has applied up to `offset`. */
  allApplied(offset: number, nodeIds?: readonly number[]): boolean {
    // Scenarios poll this after every event: no array built when asking about every node.
    if (nodeIds === undefined) {
      for (const node of this.nodes) {
        const running = node.current;
        if (running === undefined || running.counter.appliedOffset() < offset) return false;
      }
      return true;
    }
    return nodeIds.every((nodeId) => {
      const running = this.node(nodeId).current;
      return running !== undefined && running.counter.appliedOffset() >= offset;
    });
  }

  /** Whether every running node's high watermark reached `offset`. */
  allReached(offset: number, nodeIds?: readonly number[]): boolean {
    if (nodeIds === undefined) {
      for (const node of this.nodes) if ((node.current?.highWatermark() ?? -1) < offset) return false;
      return true;
    }
    return nodeIds.every((nodeId) => (this.node(nodeId).current?.highWatermark() ?? -1) >= offset);
  }
}
