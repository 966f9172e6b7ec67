/**
 * RaftNode: the one object an application embeds (CONVENTIONS C4.10). It wires what the test
 * server wires by hand, in the same order, over the same effects path:
 *
 *   bind:  options checked → log directory locked → TCP listener bound (port 0 allowed)
 *   start: voters parsed (VoterSet's parser) → meta.properties formatted or checked → log opened
 *          → quorum-state store → KafkaRaftClient (+ the state machine's and the application's
 *          listeners, each behind a DecodingListener; the rawListener as it is) → RaftDriver
 *   close: pending proposals end indeterminate → the channel stops taking peers → the driver
 *          resigns, flushes and closes the log → the listener closes → the lock is released.
 *
 * `open` is `bind` + `start`. The two steps exist for quorums on port 0: bind every node, read
 * the ports from `endpoints()`, then start each with the voters string.
 */
import { LogConfig, LogDirectoryLock, METADATA_TOPIC_PARTITION } from '@kraft/log';
import { type Logger, type NodeAddress, silentLogger, type Uuid } from '@kraft/protocol';
import { NodeFileSystem } from '@kraft/records';
import {
  type BoundListener,
  type ListenerSpec,
  parseListeners,
  TcpNetworkChannel,
  TlsContext,
} from '@kraft/transport-tcp';
import { BatchAccumulatorFullError } from '../errors/batch-accumulator-full-error.js';
import { InvalidConfigurationError } from '../errors/invalid-configuration-error.js';
import { NoLeaderError } from '../errors/no-leader-error.js';
import { NotLeaderError } from '../errors/not-leader-error.js';
import { RaftNodeClosedError } from '../errors/raft-node-closed-error.js';
import { FileQuorumStateStore } from '../io/file-quorum-state-store.js';
import { openKafkaRaftLog } from '../io/kafka-raft-log.js';
import { RaftDriver } from '../io/raft-driver.js';
import { createSystemRandom } from '../io/system-random.js';
import { SystemTime } from '../io/system-time.js';
import { KafkaRaftClient } from '../kafka-raft-client.js';
import type { RaftLog } from '../ports/raft-log.js';
import type { Random } from '../ports/random.js';
import { type QuorumConfig, resolveQuorumConfig } from '../quorum-config.js';
import { VoterSet } from '../voter-set.js';
import { DecodingListener } from './decoding-listener.js';
import { ensureLogDirectoryFormatted, type LogDirectoryFormat } from './log-directory-format.js';
import { lostFlushedDataPolicyFor, quorumStateStorePath } from './log-directory-layout.js';
import { type CommittedPosition, ProposalTracker } from './proposal-tracker.js';
import {
  checkRaftNodeBindOptions,
  checkVotersOption,
  type RaftNodeBindOptions,
  type RaftNodeOptions,
  type RaftNodeSettings,
  splitRaftNodeConfig,
} from './raft-node-options.js';
import { describeNodeStatus, type RaftNodeStatus } from './raft-node-status.js';
import { StateMachineListener } from './state-machine-listener.js';
import { encodeValues, ValueSnapshotWriter } from './value-codec.js';
import { waitUntilApplied } from './wait-until-applied.js';

/** Options of one `propose` call. */
export interface ProposeOptions {
  /** The leader epoch to append in; a proposal for another epoch is refused. Default: the current one. */
  readonly epoch?: number;
  /** Overrides `config.proposeTimeoutMs` for this call. */
  readonly timeoutMs?: number;
}

/** A bound listener as `endpoints()` reports it: its name and the address it really listens on. */
export type RaftNodeEndpoint = BoundListener;

type Phase = RaftNodeStatus['phase'];

/** What `start` opens, closed in reverse by `close`. */
interface Running {
  readonly client: KafkaRaftClient;
  readonly driver: RaftDriver;
  readonly voters: VoterSet;
  readonly stopped: Promise<void>;
}

interface Bound<T> {
  readonly options: RaftNodeBindOptions<T>;
  readonly settings: RaftNodeSettings;
  readonly logConfig: LogConfig;
  readonly quorum: Partial<QuorumConfig>;
  readonly listener: ListenerSpec;
  readonly fileSystem: NodeFileSystem;
  readonly lock: LogDirectoryLock;
  readonly channel: TcpNetworkChannel;
  readonly endpoints: readonly RaftNodeEndpoint[];
  readonly time: SystemTime;
  readonly random: Random;
  readonly logger: Logger;
}

/** How long a `propose` waiting for accumulator room sleeps at most before trying again. */
const ROOM_RETRY_MS = 5;

/**
 * One member of a Raft quorum that replicates the application's values of type `T`: open it on
 * a directory with the quorum's voters, `propose` values, and let its `stateMachine` apply what
 * commits (see the package README for a complete example).
 */
export class RaftNode<T> {
  private readonly bound: Bound<T>;
  private readonly proposals = new ProposalTracker();
  private readonly stateMachineListener: StateMachineListener<T>;
  private phase: Phase = 'bound';
  private running: Running | undefined;
  private closing: Promise<void> | undefined;
  /** Resolved (and replaced) whenever the applied position or the leader moves. */
  private progress = new ProgressSignal();
  private snapshotScheduled = false;
  /** Why the driver stopped on its own (a disk or invariant failure); the node then refuses calls. */
  private failure: unknown;

  private constructor(bound: Bound<T>) {
    this.bound = bound;
    this.stateMachineListener = new StateMachineListener({
      stateMachine: bound.options.stateMachine,
      proposals: this.proposals,
      onProgress: () => this.onProgress(),
    });
  }

  /** Binds and starts a node: `bind(options)` then `start(options.voters)`. */
  static async open<T>(options: RaftNodeOptions<T>): Promise<RaftNode<T>> {
    checkRaftNodeBindOptions(options, true);
    const voters = checkVotersOption(options.voters);
    const { voters: _voters, ...bindOptions } = options;
    const node = await RaftNode.bindChecked(bindOptions);
    try {
      await node.start(voters);
    } catch (error) {
      await node.close();
      throw error;
    }
    return node;
  }

  /**
   * Checks the options, locks the directory and binds the listener; the node does not take part
   * in the quorum until `start(voters)`. On failure nothing stays locked or listening.
   */
  static async bind<T>(options: RaftNodeBindOptions<T>): Promise<RaftNode<T>> {
    checkRaftNodeBindOptions(options, false);
    return RaftNode.bindChecked(options);
  }

  /** `bind` after `checkRaftNodeBindOptions` passed (once, in `open` or `bind`). */
  private static async bindChecked<T>(options: RaftNodeBindOptions<T>): Promise<RaftNode<T>> {
    const { quorum, settings } = splitRaftNodeConfig(options.config);
    // Refused here, before the directory is locked or the port bound; the client resolves it again.
    resolveQuorumConfig(quorum);
    const logConfig = new LogConfig(options.log ?? {});
    const listener = controllerListener(options);
    const logger = (options.logger ?? silentLogger).child({ nodeId: options.nodeId });
    const time = new SystemTime();
    const { random } = createSystemRandom();
    const channel = new TcpNetworkChannel({
      nodeId: options.nodeId,
      listeners: [listener],
      outboundSecurityProtocol: listener.securityProtocol,
      ...(options.tls === undefined ? {} : { tls: TlsContext.create(options.tls) }),
      logger: logger.child({ component: 'transport' }),
      time,
      random,
    });
    const fileSystem = new NodeFileSystem();
    const lock = LogDirectoryLock.acquire(fileSystem, options.directory);
    let endpoints: RaftNodeEndpoint[];
    try {
      endpoints = await channel.start();
    } catch (error) {
      await channel.close();
      lock.release();
      throw error;
    }
    logger.info({ endpoints }, 'raft node listening');
    return new RaftNode({
      options,
      settings,
      logConfig,
      quorum,
      listener,
      fileSystem,
      lock,
      channel,
      endpoints,
      time,
      random,
      logger,
    });
  }

  /** The listeners as bound (with the real port when the options asked for port 0). */
  endpoints(): readonly RaftNodeEndpoint[] {
    return this.bound.endpoints;
  }

  /**
   * Joins the quorum `voters` (Kafka's `controller.quorum.voters`, which must list this node):
   * formats or checks the directory, opens the log and the quorum state, starts the client.
   */
  async start(voters: string): Promise<void> {
    if (this.phase !== 'bound')
      throw new RaftNodeClosedError(`RaftNode ${this.nodeId()}: start() on a ${this.phase} node`);
    this.phase = 'starting';
    const voterSet = this.parseVoters(checkVotersOption(voters));
    const { directoryId } = this.formatDirectory();
    const log = this.openLog(voterSet);
    try {
      this.running = this.startClient(log, voterSet, directoryId);
    } catch (error) {
      log.close();
      throw error;
    }
    this.phase = 'running';
    // A driver that fails (disk, invariant) ends every wait: nothing pending can be decided here.
    this.running.stopped.catch((error: unknown) => {
      this.failure = error;
      // Visible in status(), so an application can notice a dead node without calling into it.
      if (this.phase === 'running') this.phase = 'failed';
      this.bound.logger.error({ err: error }, 'raft node stopped on a failure');
      this.proposals.failAll('closed');
      this.onProgress();
    });
  }

  /**
   * Appends `values` as one batch and resolves once it is committed, with the offset of its last
   * value and the epoch it was written in. Rejects with NotLeaderError (naming the leader when
   * known) if this node does not lead `epoch`, with ProposalRejectedError if another leader's
   * batch committed at its offset, and with IndeterminateError when the outcome stays unknown
   * (timeout, close). Waits for room while the accumulator is full.
   */
  async propose(values: readonly T[], options: ProposeOptions = {}): Promise<CommittedPosition> {
    const running = this.runningOrThrow('propose');
    const timeoutMs = options.timeoutMs ?? this.bound.settings.proposeTimeoutMs;
    const deadlineMs = this.bound.time.milliseconds() + timeoutMs;
    const records = encodeValues(this.bound.options.serde, values);
    for (;;) {
      const epoch = options.epoch ?? running.client.leaderAndEpoch().epoch;
      let lastOffset: number;
      try {
        lastOffset = running.driver.scheduleAppend(epoch, records);
      } catch (error) {
        if (error instanceof NotLeaderError) throw this.notLeader(running, epoch);
        if (!(error instanceof BatchAccumulatorFullError)) throw error;
        this.bound.logger.debug({ epoch }, 'accumulator full: propose waits for room');
        await this.waitForRoom(deadlineMs, epoch);
        continue;
      }
      return this.awaitOutcome(lastOffset, epoch, deadlineMs);
    }
  }

  /**
   * Resolves with the node's status once a leader is known (this node or another); rejects with
   * NoLeaderError after `timeoutMs` (default `config.proposeTimeoutMs`). For an application that
   * starts and wants to propose, or to send its clients to the leader.
   */
  async waitForLeader(options: { readonly timeoutMs?: number } = {}): Promise<RaftNodeStatus> {
    const timeoutMs = options.timeoutMs ?? this.bound.settings.proposeTimeoutMs;
    const deadlineMs = this.bound.time.milliseconds() + timeoutMs;
    for (;;) {
      this.runningOrThrow('waitForLeader');
      const status = this.status();
      // A leader counts once it can take proposals: this node in the Leader state, or another's id.
      if (status.role === 'leader' || (status.leaderId !== undefined && status.leaderId !== this.nodeId())) {
        return status;
      }
      const remainingMs = deadlineMs - this.bound.time.milliseconds();
      if (remainingMs <= 0) throw new NoLeaderError(this.nodeId(), timeoutMs);
      await this.nextProgressOrTimeout(Math.min(remainingMs, ROOM_RETRY_MS * 4));
    }
  }

  /**
   * A linearizable read barrier (etcd's ReadIndex): the leader confirms with a majority that it
   * still leads, then this waits until the local state machine has applied everything below the
   * returned offset. A read of the state machine after it sees every write acknowledged before
   * the call. Rejects with NotLeaderError (naming the leader) on a non-leader, and with
   * RaftTimeoutError when no quorum confirms within the driver's `readIndexTimeoutMs` (the
   * confirmation is bounded by that, not by `timeoutMs`) or when the state machine does not catch
   * up to the read offset within `timeoutMs` (default `config.proposeTimeoutMs`).
   */
  async readIndex(options: { readonly timeoutMs?: number } = {}): Promise<number> {
    const running = this.runningOrThrow('readIndex');
    const timeoutMs = options.timeoutMs ?? this.bound.settings.proposeTimeoutMs;
    const deadlineMs = this.bound.time.milliseconds() + timeoutMs;
    const epoch = running.client.leaderAndEpoch().epoch;
    let readOffset: number;
    try {
      readOffset = await running.driver.readIndex();
    } catch (error) {
      throw error instanceof NotLeaderError ? this.notLeader(running, epoch) : error;
    }
    await waitUntilApplied(
      {
        nextOffset: () => this.stateMachineListener.nextOffset(),
        nowMs: () => this.bound.time.milliseconds(),
        nextProgressOrTimeout: (waitMs) => this.nextProgressOrTimeout(waitMs),
        checkRunning: () => this.runningOrThrow('readIndex'),
      },
      readOffset,
      deadlineMs,
      timeoutMs,
    );
    return readOffset;
  }

  /**
   * Hands leadership to voter `nodeId`: the core lets it catch up, then resigns with it as the
   * preferred successor, so it wins the next election at once. Resolves once this node sees it
   * lead. Rejects with NotLeaderError (naming the leader), LeadershipTransferError or
   * RaftTimeoutError (see RaftDriver.transferLeadership).
   */
  async transferLeadership(nodeId: number, options: { readonly timeoutMs?: number } = {}): Promise<void> {
    const running = this.runningOrThrow('transferLeadership');
    const epoch = running.client.leaderAndEpoch().epoch;
    try {
      await running.driver.transferLeadership(nodeId, options);
    } catch (error) {
      throw error instanceof NotLeaderError ? this.notLeader(running, epoch) : error;
    }
  }

  /** Role, epoch, leader and its endpoint, high watermark, log end, applied position, voters' lag. */
  status(): RaftNodeStatus {
    const running = this.running;
    return describeNodeStatus({
      nodeId: this.nodeId(),
      phase: this.phase,
      listenerName: this.bound.listener.name,
      endpoints: this.bound.endpoints,
      applied: this.stateMachineListener.applied(),
      ...(running === undefined
        ? {}
        : { client: running.client, driver: running.driver, voters: running.voters }),
    });
  }

  /**
   * Leaves the quorum and releases everything: the leader resigns (within
   * `config.shutdownTimeoutMs`), the log is flushed and closed, the listener closes and the
   * directory lock is released. Pending proposals end with IndeterminateError. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    const wasRunning = this.running;
    this.phase = 'closed';
    this.proposals.failAll('closed');
    this.onProgress();
    const { channel, lock, settings, logger } = this.bound;
    let failure: unknown;
    try {
      channel.beginShutdown();
      if (wasRunning !== undefined) {
        await wasRunning.driver.shutdown(settings.shutdownTimeoutMs).catch((error: unknown) => {
          failure = error;
        });
      }
    } finally {
      await channel.close();
      lock.release();
    }
    logger.info({}, 'raft node closed');
    if (failure !== undefined) throw failure;
  }

  private nodeId(): number {
    return this.bound.options.nodeId;
  }

  private runningOrThrow(operation: string): Running {
    if (this.failure !== undefined) {
      throw new RaftNodeClosedError(
        `RaftNode ${this.nodeId()}: ${operation}() after the node stopped on a failure`,
        {
          cause: this.failure,
        },
      );
    }
    if (this.phase !== 'running' || this.running === undefined) {
      throw new RaftNodeClosedError(`RaftNode ${this.nodeId()}: ${operation}() on a ${this.phase} node`);
    }
    return this.running;
  }

  private parseVoters(voters: string): VoterSet {
    const voterSet = VoterSet.fromQuorumVotersConfig(voters, this.bound.listener.name);
    if (!voterSet.isVoterId(this.nodeId())) {
      throw new InvalidConfigurationError(
        `RaftNode: voters "${voters}" do not list this node (${this.nodeId()})`,
      );
    }
    return voterSet;
  }

  /** meta.properties: written on the first start, checked against this node on every later one. */
  private formatDirectory(): LogDirectoryFormat {
    const { options, fileSystem, logger } = this.bound;
    const format = ensureLogDirectoryFormatted(fileSystem, options.directory, {
      clusterId: options.clusterId,
      nodeId: options.nodeId,
      directoryId: options.directoryId,
    });
    logger.info(
      { directory: options.directory, formatted: format.formatted },
      format.formatted ? 'formatted log directory' : 'log directory checked',
    );
    return format;
  }

  private openLog(voters: VoterSet): RaftLog {
    const { options, fileSystem, lock, logger, logConfig } = this.bound;
    return openKafkaRaftLog({
      dir: options.directory,
      fileSystem,
      lock,
      logger,
      lostFlushedData: lostFlushedDataPolicyFor(voters.size() - 1),
      config: logConfig,
    });
  }

  private startClient(log: RaftLog, voters: VoterSet, directoryId: Uuid): Running {
    const { options, fileSystem, channel, time, random, logger, quorum, listener } = this.bound;
    const quorumStateStore = new FileQuorumStateStore({
      fileSystem,
      path: quorumStateStorePath(options.directory, METADATA_TOPIC_PARTITION),
    });
    const client = new KafkaRaftClient({
      nodeId: options.nodeId,
      directoryId,
      clusterId: options.clusterId,
      voters,
      log,
      network: channel,
      quorumStateStore,
      random,
      config: quorum,
      listenerName: listener.name,
      kraftVersion: 0,
      logger,
    });
    // Every RaftNodeListener, the state machine's included, reads through the same decoding path.
    client.register(new DecodingListener(options.serde, this.stateMachineListener));
    if (options.listener !== undefined)
      client.register(new DecodingListener(options.serde, options.listener));
    if (options.rawListener !== undefined) client.register(options.rawListener);
    const driver = new RaftDriver({ client, log, network: channel, quorumStateStore, time, logger });
    client.initialize(time.milliseconds());
    const stopped = driver.start();
    channel.attach(driver);
    return { client, driver, voters, stopped };
  }

  /** Tracks the appended batch until the committed batch at its offset decides it, or the deadline. */
  private async awaitOutcome(
    lastOffset: number,
    epoch: number,
    deadlineMs: number,
  ): Promise<CommittedPosition> {
    const tracked = this.proposals.track(lastOffset, epoch);
    const timer = setTimeout(
      () => this.proposals.expire(tracked),
      Math.max(0, deadlineMs - this.bound.time.milliseconds()),
    );
    try {
      return await tracked.outcome;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Backpressure: waits until the listener moved (the accumulator drains as batches commit) or a
   * short retry interval passed; past the deadline the proposal was never appended, so it is a
   * plain refusal, not an indeterminate outcome.
   */
  private async waitForRoom(deadlineMs: number, epoch: number): Promise<void> {
    const remainingMs = deadlineMs - this.bound.time.milliseconds();
    if (remainingMs <= 0) {
      throw new BatchAccumulatorFullError(
        `RaftNode ${this.nodeId()}: the accumulator stayed full until the propose timeout (epoch ${epoch})`,
      );
    }
    await this.nextProgressOrTimeout(Math.min(ROOM_RETRY_MS, remainingMs));
    this.runningOrThrow('propose');
  }

  /** Settles at the next applied batch, leader change or close, or after `timeoutMs`. */
  private async nextProgressOrTimeout(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.progress.next(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  private notLeader(running: Running, epoch: number): NotLeaderError {
    const leader = running.client.leaderAndEpoch();
    const leaderEndpoint = this.endpointOf(leader.leaderId);
    return new NotLeaderError(
      `node ${this.nodeId()} does not lead epoch ${epoch} (leader ${leader.leaderId ?? 'unknown'} in epoch ${leader.epoch})`,
      epoch,
      { leaderId: leader.leaderId, leaderEndpoint },
    );
  }

  private endpointOf(nodeId: number | undefined): NodeAddress | undefined {
    if (nodeId === undefined || this.running === undefined) return undefined;
    return this.running.client.quorumState().voters().listeners(nodeId).address(this.bound.listener.name);
  }

  private onProgress(): void {
    this.progress.fire();
    this.maybeScheduleSnapshot();
  }

  /** Snapshots run after the poll that applied the values, never inside the client's callback. */
  private maybeScheduleSnapshot(): void {
    if (this.snapshotScheduled || this.bound.options.stateMachine === undefined || this.phase !== 'running')
      return;
    const { bytes, records } = this.stateMachineListener.sinceSnapshot();
    const { snapshotEveryBytes, snapshotEveryRecords } = this.bound.settings;
    if (bytes < snapshotEveryBytes && (snapshotEveryRecords === 0 || records < snapshotEveryRecords)) return;
    this.snapshotScheduled = true;
    setImmediate(() => {
      this.snapshotScheduled = false;
      try {
        this.takeSnapshot();
      } catch (error) {
        // The log and the state are intact without this snapshot; the next threshold tries again.
        this.bound.logger.error({ err: error }, 'snapshot failed');
      }
    });
  }

  private takeSnapshot(): void {
    const running = this.running;
    const stateMachine = this.bound.options.stateMachine;
    const applied = this.stateMachineListener.applied();
    if (
      this.phase !== 'running' ||
      running === undefined ||
      stateMachine === undefined ||
      applied === undefined
    )
      return;
    const snapshotId = { offset: applied.offset + 1, epoch: applied.epoch };
    const writer = running.client.createSnapshot(
      snapshotId,
      this.stateMachineListener.lastAppliedTimestamp(),
    );
    this.stateMachineListener.onSnapshotTaken();
    if (writer === undefined) return;
    try {
      const values = new ValueSnapshotWriter(this.bound.options.serde, writer);
      stateMachine.snapshot(values);
      const count = values.finish();
      const sizeInBytes = writer.freeze();
      this.bound.logger.info(
        { offset: snapshotId.offset, epoch: snapshotId.epoch, sizeInBytes, records: count },
        'wrote snapshot',
      );
    } finally {
      writer.close();
    }
  }
}

/** A promise that settles at the next `fire()`; each wait shares the current one (Node 20 has no Promise.withResolvers). */
class ProgressSignal {
  private promise: Promise<void> | undefined;
  private resolve: (() => void) | undefined;

  next(): Promise<void> {
    this.promise ??= new Promise((resolve) => {
      this.resolve = resolve;
    });
    return this.promise;
  }

  fire(): void {
    const resolve = this.resolve;
    this.promise = undefined;
    this.resolve = undefined;
    resolve?.();
  }
}

/** The listener the quorum speaks on: `controllerListenerName`, or the first of `listeners`. */
function controllerListener<T>(options: RaftNodeBindOptions<T>): ListenerSpec {
  const listeners = parseListeners(options.listeners, options.listenerSecurityProtocolMap);
  const name = options.controllerListenerName?.toUpperCase();
  const listener = name === undefined ? listeners[0] : listeners.find((candidate) => candidate.name === name);
  if (listener === undefined) {
    throw new InvalidConfigurationError(
      `RaftNode: controllerListenerName ${name ?? ''} is not one of the listeners "${options.listeners}"`,
    );
  }
  return listener;
}
