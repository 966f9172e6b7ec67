/**
 * The only async loop of the raft package (CONVENTIONS C4.4): it runs the synchronous core
 * against real time, the real log and a network channel.
 *
 *   while running: report a finished flush and a
 *                  finished election write; deadline = client.poll(now); carry out
 *                  `client.ready()` (start the election write it names, send its messages in
 *                  order); start a log flush if appended bytes are not durable yet;
 *                  sleep until an inbound message, a finished flush or write, or the deadline.
 *
 * Nothing here awaits a disk on the event loop. A flush runs in the background: `await
 * log.flush()` then `client.onLogFlushed(offset, now)` at the next turn, so heartbeats and fetches
 * keep flowing while the disk syncs (TARGETS §4.3). The election state is written the same way
 * (`quorumStateStore.writeElectionState`, one write at a time), then reported with
 * `client.onElectionStatePersisted(id, now)`; the core hands out a message that depends on an
 * election only after that report, so sending everything `ready()` returns at once is safe. A
 * downloaded snapshot too (`log.freezeFetchedSnapshot(writer)`, reported with
 * `client.onSnapshotInstallDurable(id, now)`, ADR 0039): the core installs it at the report.
 * Inbound messages go straight to the client's queue, the one inbound queue (ADR 0031): when it
 * is full `deliverRequest`/`deliverResponse` return false and the transport answers or drops as
 * it would on a saturated socket. The client handles them at the next `poll`, the driver's turn.
 */
import {
  checkInteger,
  checkMethods,
  checkOptionsObject,
  KRaftError,
  LOGGER_METHODS,
  type Logger,
  silentLogger,
} from '@kraft/protocol';
import type { RaftClientObservableState } from '../kafka-raft-client.js';
import type { InboundRequest, InboundResponse, NetworkChannel } from '../ports/network-channel.js';
import type { QuorumStateStore } from '../ports/quorum-state-store.js';
import type { RawSnapshotWriter } from '../ports/raft-log.js';
import type { Time } from '../ports/time.js';
import type { RaftClient } from '../raft-client.js';
import type { ElectionStateWrite, OperationCompletion, RaftReady, SnapshotInstall } from '../raft-outbox.js';

/**
 * What the driver needs from the client (KafkaRaftClient satisfies it structurally): the
 * `RaftClient` members it hands through to applications, and the driving half below.
 */
export interface DrivenRaftClient
  extends Pick<
    RaftClient,
    'highWatermark' | 'leaderAndEpoch' | 'nodeId' | 'scheduleAppend' | 'shutdown' | 'isShutdownComplete'
  > {
  /** Runs the core once; returns the absolute time in ms by which `poll` must run again. */
  poll(nowMs: number): number;
  /**
   * Queues a request for the next `poll`; false when the client's inbound queue is full. `nowMs`
   * keeps Kafka's signature; the client may ignore it.
   */
  handleRequest(request: InboundRequest, nowMs: number): boolean;
  /** Queues a response for the next `poll`; false when the client's inbound queue is full. */
  handleResponse(response: InboundResponse, nowMs: number): boolean;
  /** Reports that the log is durable below `offset` (the driver's `flush` resolved to it). */
  onLogFlushed(offset: number, nowMs: number): void;
  /** The election write to start and the messages free to leave (see RaftOutbox). */
  ready(): RaftReady;
  /** Reports that the election write `ready().electionState` with this id is durable. */
  onElectionStatePersisted(id: number, nowMs: number): void;
  /** Reports that `log.freezeFetchedSnapshot` finished the `ready().snapshotInstall` with this id. */
  onSnapshotInstallDurable(id: number, nowMs: number): void;
  /** Registers a read barrier; its outcome comes back in `ready().completions` under the id. */
  readIndex(nowMs: number, timeoutMs: number): number;
  /** Starts a leadership transfer; its outcome comes back in `ready().completions` under the id. */
  transferLeadership(targetId: number, nowMs: number, timeoutMs: number): number;
  /**
   * Where the client signals that an application call gave `poll` work (`scheduleAppend`,
   * `readIndex`, `transferLeadership`, a listener change, ...): the driver wakes at once instead
   * of sleeping to its deadline. The driver itself does not wake after those calls.
   */
  setWakeupListener(listener: (() => void) | undefined): void;
  /** The core's own view (state name, voted id, commit latency of all appends), when it has one. */
  observableState?(): RaftClientObservableState;
}

/** What the driver needs from the log (the RaftLog port's durability half). */
export interface DrivenRaftLog {
  /** The log end offset: the next offset to assign. */
  endOffset(): number;
  /** The end offset known durable: every offset below it survives a crash. */
  lastFlushedOffset(): number;
  /** Asynchronous fdatasync of everything appended; resolves to the durable end offset. */
  flush(): Promise<number>;
  /** Freezes a downloaded snapshot and makes the log start it sets durable, off the event loop. */
  freezeFetchedSnapshot(writer: RawSnapshotWriter): Promise<void>;
  /** Flushes and closes the log at shutdown. */
  close(): void;
}

/**
 * The node's role: the core's state name when it reports one (`Leader`, `Follower`, `Candidate`,
 * `Prospective`, `Unattached`, `Resigned`), lower-cased; otherwise derived from the leader.
 */
export type RaftRole = 'leader' | 'follower' | 'candidate' | 'prospective' | 'unattached' | 'resigned';

/** A snapshot of the node for applications and metrics. */
export interface RaftDriverState {
  readonly nodeId: number | undefined;
  /** Derived from `leaderAndEpoch()`: the core's state names stay internal. */
  readonly role: RaftRole;
  readonly epoch: number;
  readonly leaderId: number | undefined;
  readonly highWatermark: number | undefined;
  readonly logEndOffset: number;
  readonly lastFlushedOffset: number;
  readonly running: boolean;
  /**
   * Time the loop has slept waiting for work (a message, a finished flush or write, a deadline)
   * since `start`: Kafka's poll idle time (poll-idle-ratio-avg is its share of `runningMs`).
   * Other work of the process (the workload, the sockets) runs while the loop sleeps.
   */
  readonly pollIdleMs: number;
  /** Time since `start` (0 before it), up to the stop once stopped. */
  readonly runningMs: number;
  /** The core's observable state (its state names: leader, follower, candidate, ...). */
  readonly raft: RaftClientObservableState | undefined;
}

/** What the driver sends through: the requests and responses `client.ready()` hands out. */
export type DrivenNetworkChannel = Pick<NetworkChannel, 'send' | 'sendResponse'>;

/** Where the driver writes the election states `client.ready()` hands out. */
export type DrivenQuorumStateStore = Pick<QuorumStateStore, 'writeElectionState'>;

/** What a `RaftDriver` runs: the client, its log, network, election-state store and clock. */
export interface RaftDriverOptions {
  readonly client: DrivenRaftClient;
  readonly log: DrivenRaftLog;
  readonly network: DrivenNetworkChannel;
  readonly quorumStateStore: DrivenQuorumStateStore;
  readonly time: Time;
  readonly logger?: Logger;
  /** Longest sleep between polls, whatever the deadline says. Default 1000 ms. */
  readonly maxSleepMs?: number;
  /** Bound of `readIndex()`. Default 2000 ms, Kafka's `controller.quorum.fetch.timeout.ms`. */
  readonly readIndexTimeoutMs?: number;
  /**
   * Default bound of `transferLeadership()`. Default 5000 ms: a lagging target's catch-up plus
   * one election (timeout 1000 ms, jittered to 2000) with room for a lost round.
   */
  readonly leadershipTransferTimeoutMs?: number;
}

/** Default bound of `readIndex()` (see RaftDriverOptions.readIndexTimeoutMs). */
export const DEFAULT_READ_INDEX_TIMEOUT_MS = 2000;
/** Default bound of `transferLeadership()` (see RaftDriverOptions.leadershipTransferTimeoutMs). */
export const DEFAULT_LEADERSHIP_TRANSFER_TIMEOUT_MS = 5000;

const DRIVEN_CLIENT_METHODS = [
  'poll',
  'handleRequest',
  'handleResponse',
  'onLogFlushed',
  'ready',
  'onElectionStatePersisted',
  'onSnapshotInstallDurable',
  'shutdown',
  'isShutdownComplete',
  'leaderAndEpoch',
  'highWatermark',
  'nodeId',
  'scheduleAppend',
  'readIndex',
  'transferLeadership',
  'setWakeupListener',
] as const satisfies readonly (keyof DrivenRaftClient)[];
const DRIVEN_LOG_METHODS = [
  'endOffset',
  'lastFlushedOffset',
  'flush',
  'freezeFetchedSnapshot',
  'close',
] as const satisfies readonly (keyof DrivenRaftLog)[];

/** What a JavaScript caller can get wrong in the driver's ports; each failure names the option. */
function checkDriverPorts(options: RaftDriverOptions): void {
  checkOptionsObject('RaftDriver', options);
  checkMethods('RaftDriver: client', options.client, DRIVEN_CLIENT_METHODS);
  checkMethods('RaftDriver: log', options.log, DRIVEN_LOG_METHODS);
  checkMethods('RaftDriver: network', options.network, ['send', 'sendResponse']);
  checkMethods('RaftDriver: quorumStateStore', options.quorumStateStore, ['writeElectionState']);
  checkMethods('RaftDriver: time', options.time, ['milliseconds']);
  if (options.logger !== undefined) checkMethods('RaftDriver: logger', options.logger, LOGGER_METHODS);
}

/** A bound of at least 1: with 0 or NaN the driver would refuse every message or spin. */
function positiveOption(name: string, value: number | undefined, defaultValue: number): number {
  return value === undefined ? defaultValue : checkInteger(`RaftDriver: ${name}`, value, { minimum: 1 });
}

/** The driver stopped because the core or the disk failed; the node must not continue. */
export class RaftDriverError extends KRaftError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('RAFT_DRIVER_FAILED', message, options);
  }
}

interface PendingOperation {
  resolve(value: number): void;
  reject(error: unknown): void;
}

/**
 * The IO half around the pure core: it polls the client, sends what `ready()` hands out, writes
 * election states, flushes the log and reports each back, all on one logical thread.
 */
export class RaftDriver {
  private readonly client: DrivenRaftClient;
  private readonly log: DrivenRaftLog;
  private readonly network: DrivenNetworkChannel;
  private readonly quorumStateStore: DrivenQuorumStateStore;
  private readonly time: Time;
  private readonly logger: Logger;
  private readonly maxSleepMs: number;
  private readonly readIndexTimeoutMs: number;
  private readonly leadershipTransferTimeoutMs: number;
  /** Promises of `readIndex` and `transferLeadership` by operation id; bounded by the core's limits. */
  private readonly pendingOperations = new Map<number, PendingOperation>();
  private wakeUp: (() => void) | undefined;
  private wakeRequested = false;
  /** The running background flush; it never rejects (failures land in `failure`). */
  private flushInFlight: Promise<void> | undefined;
  private flushedOffset: number | undefined;
  /** The running election write; it never rejects (failures land in `failure`). */
  private electionWriteInFlight: Promise<void> | undefined;
  /** The election write that finished since the last turn, to report to the client. */
  private persistedElectionWriteId: number | undefined;
  /** The running snapshot freeze; it never rejects (failures land in `failure`). */
  private snapshotInstallInFlight: Promise<void> | undefined;
  /** The snapshot install that became durable since the last turn, to report to the client. */
  private durableSnapshotInstallId: number | undefined;
  private failure: unknown;
  private running = false;
  private shutdownRequested: { deadlineMs: number } | undefined;
  private loop: Promise<void> | undefined;
  private stoppedState: RaftDriverState | undefined;
  private startedAtMs: number | undefined;
  private pollIdleMs = 0;

  constructor(options: RaftDriverOptions) {
    checkDriverPorts(options);
    this.client = options.client;
    this.log = options.log;
    this.network = options.network;
    this.quorumStateStore = options.quorumStateStore;
    this.time = options.time;
    this.logger = (options.logger ?? silentLogger).child({ component: 'raft-driver' });
    this.maxSleepMs = positiveOption('maxSleepMs', options.maxSleepMs, 1000);
    this.readIndexTimeoutMs = positiveOption(
      'readIndexTimeoutMs',
      options.readIndexTimeoutMs,
      DEFAULT_READ_INDEX_TIMEOUT_MS,
    );
    this.leadershipTransferTimeoutMs = positiveOption(
      'leadershipTransferTimeoutMs',
      options.leadershipTransferTimeoutMs,
      DEFAULT_LEADERSHIP_TRANSFER_TIMEOUT_MS,
    );
  }

  /** Starts the loop; the promise settles when the driver stops (rejects on a fatal error). */
  start(): Promise<void> {
    if (this.loop !== undefined) return this.loop;
    this.running = true;
    this.startedAtMs = this.time.milliseconds();
    this.client.setWakeupListener(() => this.wake());
    this.loop = this.runLoop();
    return this.loop;
  }

  /** Queues an inbound request for the next turn; false when the client's queue is full or the driver stopped. */
  deliverRequest(request: InboundRequest): boolean {
    return this.accepted(this.running && this.client.handleRequest(request, this.time.milliseconds()));
  }

  /** Queues an inbound response for the next turn; false when the client's queue is full or the driver stopped. */
  deliverResponse(response: InboundResponse): boolean {
    return this.accepted(this.running && this.client.handleResponse(response, this.time.milliseconds()));
  }

  private accepted(queued: boolean): boolean {
    if (queued) this.wake();
    return queued;
  }

  /** Appends through the client, which wakes the loop (the core tracks the commit latency). */
  scheduleAppend(epoch: number, records: readonly Buffer[]): number {
    return this.client.scheduleAppend(epoch, records);
  }

  /**
   * A linearizable read barrier (ADR 0024): resolves with an offset R such that a state machine
   * that has applied every committed record below R reflects every write acknowledged before
   * this call. Rejects with NotLeaderError when this node does not lead or loses leadership
   * before a quorum confirms it, with RaftTimeoutError after `readIndexTimeoutMs`.
   */
  readIndex(): Promise<number> {
    return this.startOperation((nowMs) => this.client.readIndex(nowMs, this.readIndexTimeoutMs));
  }

  /**
   * Hands leadership to voter `nodeId` (ADR 0024): resolves once this node sees `nodeId` lead a
   * later epoch, at once when `nodeId` is this leader. Rejects with NotLeaderError (this node
   * does not lead, or lost leadership first), LeadershipTransferError (not a voter, a transfer
   * already running, another node won) or RaftTimeoutError. New appends are refused with
   * NotLeaderError while the target catches up.
   */
  async transferLeadership(nodeId: number, options?: { readonly timeoutMs?: number }): Promise<void> {
    const timeoutMs = positiveOption(
      'transferLeadership timeoutMs',
      options?.timeoutMs,
      this.leadershipTransferTimeoutMs,
    );
    await this.startOperation((nowMs) => this.client.transferLeadership(nodeId, nowMs, timeoutMs));
  }

  /** Starts an operation on the core and returns the promise its completion settles. */
  private startOperation(start: (nowMs: number) => number): Promise<number> {
    if (!this.running || this.shutdownRequested !== undefined) {
      return Promise.reject(new RaftDriverError('the raft driver is not running'));
    }
    let id: number;
    try {
      id = start(this.time.milliseconds());
    } catch (error) {
      return Promise.reject(error);
    }
    // The client woke the loop; its turn runs after this synchronous registration.
    return new Promise<number>((resolve, reject) => {
      this.pendingOperations.set(id, { resolve, reject });
    });
  }

  /** Wakes the loop (after an application call on the client, for instance). */
  wake(): void {
    this.wakeRequested = true;
    const wakeUp = this.wakeUp;
    this.wakeUp = undefined;
    wakeUp?.();
  }

  /**
   * Graceful shutdown: the client resigns or finishes within `timeoutMs`, then the log is
   * flushed and closed. Resolves when the loop has stopped.
   */
  async shutdown(timeoutMs: number): Promise<void> {
    const nowMs = this.time.milliseconds();
    if (this.shutdownRequested === undefined && this.running) {
      this.shutdownRequested = { deadlineMs: nowMs + timeoutMs };
      this.client.shutdown(timeoutMs, nowMs);
      this.wake();
    }
    await this.loop;
  }

  /** The node's state now; after a graceful stop, its state at the stop (the log is closed). */
  state(): RaftDriverState {
    if (this.stoppedState !== undefined) return this.stoppedState;
    const leader = this.client.leaderAndEpoch();
    const nodeId = this.client.nodeId();
    const raft = this.client.observableState?.();
    const role: RaftRole =
      raft !== undefined
        ? (raft.role.toLowerCase() as RaftRole)
        : leader.leaderId === undefined
          ? 'unattached'
          : leader.leaderId === nodeId
            ? 'leader'
            : 'follower';
    return {
      nodeId,
      role,
      epoch: leader.epoch,
      leaderId: leader.leaderId,
      highWatermark: this.client.highWatermark(),
      logEndOffset: this.log.endOffset(),
      lastFlushedOffset: this.log.lastFlushedOffset(),
      running: this.running,
      pollIdleMs: this.pollIdleMs,
      runningMs:
        this.startedAtMs === undefined ? 0 : Math.max(0, this.time.milliseconds() - this.startedAtMs),
      raft,
    };
  }

  private async runLoop(): Promise<void> {
    try {
      for (;;) {
        const deadlineMs = this.turn();
        if (this.shutdownRequested !== undefined && this.isShutdownDone()) break;
        if (this.failure !== undefined) throw this.failure;
        const sleepStartMs = this.time.milliseconds();
        await this.sleepUntil(deadlineMs);
        this.pollIdleMs += Math.max(0, this.time.milliseconds() - sleepStartMs);
        if (this.failure !== undefined) throw this.failure;
      }
      await this.waitForFlush();
      // A write begun is finished (its temp file renamed or not); one not begun was never promised.
      await this.electionWriteInFlight;
      // Likewise a snapshot freeze: the log must not close under it.
      await this.snapshotInstallInFlight;
      this.stoppedState = { ...this.state(), running: false };
      this.log.close();
      this.logger.info({}, 'raft driver stopped');
    } catch (error) {
      this.logger.fatal({ err: error }, 'raft driver failed');
      throw KRaftError.isInstance(error)
        ? error
        : new RaftDriverError('raft driver failed', { cause: error });
    } finally {
      this.running = false;
      this.client.setWakeupListener(undefined);
      this.rejectPendingOperations();
    }
  }

  /** One turn: inbound messages, a flush report, poll, maybe a new flush. Returns the deadline. */
  private turn(): number {
    const nowMs = this.time.milliseconds();
    this.wakeRequested = false;
    if (this.flushedOffset !== undefined) {
      const offset = Math.min(this.flushedOffset, this.log.lastFlushedOffset());
      this.flushedOffset = undefined;
      this.client.onLogFlushed(offset, nowMs);
    }
    if (this.persistedElectionWriteId !== undefined) {
      const id = this.persistedElectionWriteId;
      this.persistedElectionWriteId = undefined;
      this.client.onElectionStatePersisted(id, nowMs);
    }
    if (this.durableSnapshotInstallId !== undefined) {
      const id = this.durableSnapshotInstallId;
      this.durableSnapshotInstallId = undefined;
      this.client.onSnapshotInstallDurable(id, nowMs);
    }
    const deadlineMs = this.client.poll(nowMs);
    this.carryOutReady();
    this.startFlushIfNeeded();
    return deadlineMs;
  }

  private isShutdownDone(): boolean {
    const request = this.shutdownRequested;
    return (
      request !== undefined &&
      (this.client.isShutdownComplete() || this.time.milliseconds() >= request.deadlineMs)
    );
  }

  /** The election write first (it may take time), then the messages free to leave, in order. */
  private carryOutReady(): void {
    const ready = this.client.ready();
    if (ready.electionState !== undefined) this.startElectionWrite(ready.electionState);
    if (ready.snapshotInstall !== undefined) this.startSnapshotInstall(ready.snapshotInstall);
    for (const message of ready.messages) {
      if (message.kind === 'request') this.network.send(message.request);
      else this.network.sendResponse(message.request, message.data);
    }
    for (const completion of ready.completions) this.settle(completion);
  }

  private settle(completion: OperationCompletion): void {
    const operation = this.pendingOperations.get(completion.id);
    if (operation === undefined) return;
    this.pendingOperations.delete(completion.id);
    if (completion.kind === 'failed') operation.reject(completion.error);
    else operation.resolve(completion.kind === 'read-index' ? completion.readOffset : completion.leaderEpoch);
  }

  /** The loop stopped: nothing will settle the operations still waiting. */
  private rejectPendingOperations(): void {
    for (const operation of this.pendingOperations.values()) {
      operation.reject(new RaftDriverError('the raft driver stopped before the operation finished'));
    }
    this.pendingOperations.clear();
  }

  private startElectionWrite(write: ElectionStateWrite): void {
    if (this.electionWriteInFlight !== undefined) {
      throw new RaftDriverError(`election write ${write.id} handed out while another is in flight`);
    }
    this.electionWriteInFlight = this.quorumStateStore.writeElectionState(write.data, write.dataVersion).then(
      () => {
        this.electionWriteInFlight = undefined;
        this.persistedElectionWriteId = write.id;
        this.wake();
      },
      (error: unknown) => {
        this.electionWriteInFlight = undefined;
        this.failure = new RaftDriverError('quorum-state write failed', { cause: error });
        this.wake();
      },
    );
  }

  private startSnapshotInstall(install: SnapshotInstall): void {
    if (this.snapshotInstallInFlight !== undefined) {
      throw new RaftDriverError(`snapshot install ${install.id} handed out while another is in flight`);
    }
    this.snapshotInstallInFlight = this.log.freezeFetchedSnapshot(install.writer).then(
      () => {
        this.snapshotInstallInFlight = undefined;
        this.durableSnapshotInstallId = install.id;
        this.wake();
      },
      (error: unknown) => {
        this.snapshotInstallInFlight = undefined;
        this.failure = new RaftDriverError('snapshot freeze failed', { cause: error });
        this.wake();
      },
    );
  }

  private startFlushIfNeeded(): void {
    if (this.flushInFlight !== undefined || this.log.lastFlushedOffset() >= this.log.endOffset()) return;
    this.flushInFlight = this.log.flush().then(
      (offset) => {
        this.flushInFlight = undefined;
        this.flushedOffset = Math.max(offset, this.flushedOffset ?? 0);
        this.wake();
      },
      (error: unknown) => {
        this.flushInFlight = undefined;
        this.failure = new RaftDriverError('log flush failed', { cause: error });
        this.wake();
      },
    );
  }

  /** Settles when the running flush (if any) has finished; its outcome is recorded, not thrown. */
  private async waitForFlush(): Promise<void> {
    await this.flushInFlight;
  }

  private sleepUntil(deadlineMs: number): Promise<void> {
    if (this.wakeRequested) return Promise.resolve();
    let delayMs = Math.min(this.maxSleepMs, Math.max(0, deadlineMs - this.time.milliseconds()));
    // The core asks for an immediate poll while appended data is not durable; with the flush
    // already running, wait for it (it wakes us) or a millisecond, rather than spin.
    if (delayMs === 0 && this.flushInFlight !== undefined) delayMs = 1;
    if (delayMs === 0) return new Promise((resolve) => setImmediate(resolve));
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wakeUp = undefined;
        resolve();
      }, delayMs);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
