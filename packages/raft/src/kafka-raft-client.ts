/**
 * KafkaRaftClient: the KRaft protocol engine, synchronous and deterministic.
 *
 * ## Public API (stable; the IO driver in `src/io/` and the simulator code against it)
 *
 * ```ts
 * const client = new KafkaRaftClient({
 *   nodeId, directoryId, clusterId, voters,          // identity; voters = VoterSet (static `controller.quorum.voters`)
 *   bootstrapServers,                                // optional: `controller.quorum.bootstrap.servers` (KIP-853)
 *   log, network, quorumStateStore, random,          // ports: RaftLog, NetworkChannel, QuorumStateStore, Random
 *   config, listenerName, localEndpoints, logger,    // optional: Partial<QuorumConfig>, ...
 * });
 * client.initialize(nowMs);                          // restores the election from the store
 * client.handleRequest(inbound, nowMs);              // enqueue only (NetworkChannel → core)
 * client.handleResponse(inbound, nowMs);             // enqueue only
 * const deadlineMs = client.poll(nowMs);             // drains the queue, runs timers, returns the next deadline
 * if (client.needsFlush()) {                         // durability is explicit:
 *   const flushed = await log.flush();               //   the driver flushes...
 *   client.onLogFlushed(flushed, now());             //   ...and reports it (then polls again)
 * }
 * client.register(listener);                         // handleCommit / handleLoadSnapshot / handleLeaderChange / beginShutdown
 * client.scheduleAppend(epoch, [Buffer, ...]);       // → last offset; NotLeaderError / BatchAccumulatorFullError
 * client.prepareAppend(epoch, records); client.schedulePreparedAppend();
 * client.readIndex(nowMs, timeoutMs);                // → id; ready().completions: read offset or typed error
 * client.transferLeadership(targetId, nowMs, timeoutMs);  // → id; completion once the target leads
 * client.setWakeupListener(() => driver.wake());     // application calls wake the driver (ADR 0024)
 * client.createSnapshot({ offset, epoch }, lastContainedLogTimestampMs);  // → SnapshotWriter | undefined
 * client.shutdown(timeoutMs, nowMs); client.isShutdownComplete();
 * client.observableState();                          // role, epoch, leader, HWM, LEO, flushed offset, commit latency
 * ```
 *
 * Rules the driver follows: every call happens on one logical thread (one event-loop turn at a
 * time); `poll` is called whenever a message was enqueued, the returned deadline passed, or a
 * flush completed; `nowMs` never goes backwards. The core never awaits, never reads a clock and
 * never draws randomness except from the Random port, so a seed replays a run exactly.
 *
 * Durability: a leader counts itself toward the high watermark only up to its flushed offset; a
 * follower sends its next Fetch (whose offset tells the leader what it holds) only after its log
 * is flushed, so every acknowledgement the leader counts is durable.
 *
 * Layout: this class keeps the lifecycle, the poll loop, the RaftClient API and the dispatch of
 * inbound messages; `client/` holds state polling, transitions, the leader write path and the
 * listeners, `handlers/` one module per RPC. Each module is built here with only the narrow
 * views it uses (identity, quorum state, a log view, the request validator, the request sender,
 * the outbox; ADR 0037), never this client; `client/` sees the handlers only through
 * `client/request-senders.ts`. Messages and election writes go into the outbox, which the driver
 * drains with `ready()` (RaftOutbox).
 */
import { apiKeyFor, checkInteger, Errors, invariant, type Logger, silentLogger, Uuid } from '@kraft/protocol';
import { type ControlRecordMessage, ControlRecordType, MemoryRecords, type Records } from '@kraft/records';
import { checkKafkaRaftClientOptions } from './check-kafka-raft-client-options.js';
import { LeaderWritePath } from './client/leader-write-path.js';
import { LeadershipTransfer } from './client/leadership-transfer.js';
import { ListenerDispatch } from './client/listener-dispatch.js';
import { OutboundRequests, type OutstandingRequest } from './client/outbound-requests.js';
import type { RaftIdentity } from './client/raft-identity.js';
import { needsFlush } from './client/raft-log-views.js';
import { ReadBarriers } from './client/read-barriers.js';
import { QuorumRequestValidator } from './client/request-validator.js';
import { ShutdownDeadline } from './client/shutdown-deadline.js';
import { StatePoller } from './client/state-poller.js';
import { StateTransitions } from './client/state-transitions.js';
import { VoterSetChanges, type VotersRecordAppendResult } from './client/voter-set-changes.js';
import { Endpoints } from './endpoints.js';
import { InvalidSnapshotError } from './errors/invalid-snapshot-error.js';
import { NotLeaderError } from './errors/not-leader-error.js';
import { RaftLogStateError } from './errors/raft-log-state-error.js';
import { AutoJoinSender } from './handlers/auto-join-sender.js';
import { DescribeQuorumHandler } from './handlers/describe-quorum-handler.js';
import { FetchHandler } from './handlers/fetch-handler.js';
import { FetchSnapshotHandler } from './handlers/fetch-snapshot-handler.js';
import { FollowerFetch } from './handlers/follower-fetch.js';
import { QuorumEpochHandler } from './handlers/quorum-epoch-handler.js';
import { UpdateVoterSender } from './handlers/update-voter-sender.js';
import { VoteHandler } from './handlers/vote-handler.js';
import { VoterChangeHandler } from './handlers/voter-change-handler.js';
import { MAX_BATCH_SIZE_BYTES } from './internals/batch-accumulator.js';
import { KRaftControlRecordStateMachine } from './internals/kraft-control-record-state-machine.js';
import { RaftMetricsRecorder } from './internals/raft-metrics-recorder.js';
import { RecordsSnapshotWriter } from './internals/records-snapshot-writer.js';
import type { KafkaRaftClientOptions } from './kafka-raft-client-options.js';
import type { InboundRequest, InboundResponse, NetworkChannel } from './ports/network-channel.js';
import type { OffsetAndEpoch, RaftLog } from './ports/raft-log.js';
import { type QuorumConfig, resolveQuorumConfig } from './quorum-config.js';
import { QuorumState } from './quorum-state.js';
import type { LeaderAndEpoch, Listener, RaftClient, SnapshotWriter } from './raft-client.js';
import type { RaftClientObservableState } from './raft-client-observable-state.js';
import { RaftOutbox, type RaftReady } from './raft-outbox.js';
import { bootstrapServerId, RequestManager } from './request-manager.js';
import { RaftApiKey } from './rpc/raft-api-key.js';
import { METADATA_TOPIC } from './rpc/raft-messages.js';
import { DEFAULT_RPC_VERSIONS } from './rpc/rpc-versions.js';
import { type TypedInboundResponse, typedRequest, typedResponse } from './rpc/typed-messages.js';
import { LeaderState } from './states/leader-state.js';
import { DEFAULT_CONTROLLER_LISTENER_NAME, type VoterSet } from './voter-set.js';

// The public names this module has always exported; they now live beside the code that uses them.
export type { KafkaRaftClientOptions } from './kafka-raft-client-options.js';
export type { RaftClientObservableState } from './raft-client-observable-state.js';
export type { RaftMetrics } from './raft-metrics.js';
export { RaftApiKey } from './rpc/raft-api-key.js';
export { DEFAULT_RPC_VERSIONS, type RpcVersions } from './rpc/rpc-versions.js';

/** Inbound messages waiting for `poll` by default (KafkaRaftClientOptions.maxQueuedMessages). */
export const DEFAULT_MAX_QUEUED_MESSAGES = 4096;

type InboundMessage =
  | { readonly kind: 'request'; readonly request: InboundRequest }
  | { readonly kind: 'response'; readonly response: InboundResponse };

/**
 * The pure raft core (Kafka's `KafkaRaftClient`): elections, replication, snapshots and quorum
 * changes as a state machine the driver polls; it does no IO of its own (see the module comment).
 */
export class KafkaRaftClient implements RaftClient {
  private readonly options: KafkaRaftClientOptions;
  /** Who this node is and how it is configured, as the modules it delegates to see it. */
  private readonly identity: RaftIdentity;
  private readonly config: QuorumConfig;
  private readonly log: RaftLog;
  private readonly network: NetworkChannel;
  private readonly logger: Logger;
  private readonly quorum: QuorumState;
  /**
   * kraft.version 1 only (KIP-853): the voter sets and kraft.versions the log holds, read to its
   * end; the quorum's voter set is its latest. Undefined at kraft.version 0, where the voter set is
   * the static one and no control record is read, exactly as before dynamic voters.
   */
  private readonly controlRecords: KRaftControlRecordStateMachine | undefined;
  /** The voter set whose endpoints the network and the leader state were last given. */
  private knownVoterSet: VoterSet;
  private readonly requestManager: RequestManager;
  /** The effects every call leaves for the driver (`ready()`). */
  private readonly outbox = new RaftOutbox();
  /** The core's own requests in flight, one per node. */
  private readonly outboundRequests: OutboundRequests;
  private readonly shutdownDeadline = new ShutdownDeadline();
  /** Counters and latencies for `observableState().metrics`; nothing in the core reads them. */
  private readonly metrics = new RaftMetricsRecorder();
  private readonly leaderWritePath: LeaderWritePath;
  private readonly fetchHandler: FetchHandler;
  private readonly readBarriers: ReadBarriers;
  private readonly leadershipTransfer: LeadershipTransfer;
  private readonly transitions: StateTransitions;
  private readonly voteHandler: VoteHandler;
  private readonly quorumEpochHandler: QuorumEpochHandler;
  private readonly followerFetch: FollowerFetch;
  private readonly fetchSnapshotHandler: FetchSnapshotHandler;
  private readonly describeQuorumHandler: DescribeQuorumHandler;
  private readonly voterChangeHandler: VoterChangeHandler;
  private readonly voterSetChanges: VoterSetChanges;
  /** kraft.version 1 only: a follower's UpdateRaftVoter to its leader. */
  private readonly updateVoterSender: UpdateVoterSender | undefined;
  private readonly autoJoinSender: AutoJoinSender | undefined;
  private readonly statePoller: StatePoller;
  private readonly listenerDispatch: ListenerDispatch;
  private inbound: InboundMessage[] = [];
  private readonly maxQueuedMessages: number;
  private lastPollTimeMs = 0;
  /** Ids of `readIndex` and `transferLeadership` calls, named again by their completions. */
  private nextOperationId = 1;
  private nextLogCleanMs = 0;
  private shutdownComplete = false;
  private initialized = false;
  /** The driver's wake-up signal (see `setWakeupListener`). */
  private wakeupListener: (() => void) | undefined;
  /** Whether the log was recovering lost flushed data at the last check (to log the rejoin once). */
  private wasRecoveringLostData = false;

  constructor(options: KafkaRaftClientOptions) {
    checkKafkaRaftClientOptions(options);
    this.options = options;
    this.identity = resolveIdentity(options);
    this.config = this.identity.config;
    this.logger = this.identity.logger;
    this.log = options.log;
    this.network = options.network;
    this.maxQueuedMessages = options.maxQueuedMessages ?? DEFAULT_MAX_QUEUED_MESSAGES;
    this.controlRecords =
      this.identity.kraftVersion >= 1
        ? new KRaftControlRecordStateMachine({
            staticVoterSet: options.voters,
            log: options.log,
            logger: this.logger.child({ component: 'kraft-control-records' }),
          })
        : undefined;
    this.knownVoterSet = options.voters;
    this.quorum = this.createQuorumState(options);
    this.requestManager = new RequestManager({
      retryBackoffMs: this.config.retryBackoffMs,
      requestTimeoutMs: this.config.requestTimeoutMs,
      random: options.random,
      bootstrapServerIds: (options.bootstrapServers ?? []).map((_server, index) => bootstrapServerId(index)),
    });
    this.outboundRequests = new OutboundRequests(this.network, this.outbox, this.requestManager);
    const { identity, quorum, log, outbox, outboundRequests, shutdownDeadline } = this;
    const validator = new QuorumRequestValidator(
      identity.clusterId,
      identity.topic,
      quorum,
      shutdownDeadline,
    );
    const metrics = this.metrics;
    this.leaderWritePath = new LeaderWritePath(log, metrics);
    this.fetchHandler = new FetchHandler(identity, quorum, log, validator, outbox, this.leaderWritePath);
    this.readBarriers = new ReadBarriers(quorum, this.fetchHandler, outbox, this.logger);
    this.transitions = new StateTransitions(
      identity,
      quorum,
      log,
      outboundRequests,
      shutdownDeadline,
      this.leaderWritePath,
      this.fetchHandler,
      this.readBarriers,
      metrics,
      this.controlRecords,
    );
    this.leadershipTransfer = new LeadershipTransfer(quorum, log, this.transitions, outbox, this.logger);
    this.voteHandler = new VoteHandler(identity, quorum, log, validator, outboundRequests, this.transitions);
    this.quorumEpochHandler = new QuorumEpochHandler(
      identity,
      quorum,
      validator,
      outboundRequests,
      this.transitions,
    );
    this.followerFetch = new FollowerFetch(
      identity,
      quorum,
      log,
      validator,
      outboundRequests,
      this.transitions,
      options.random,
      this.outbox,
      metrics,
      this.controlRecords,
    );
    this.fetchSnapshotHandler = new FetchSnapshotHandler(identity, quorum, log, validator);
    this.describeQuorumHandler = new DescribeQuorumHandler(identity, quorum, validator);
    this.voterSetChanges = new VoterSetChanges(identity, quorum, this.controlRecords, this.leaderWritePath);
    const controlRecords = this.controlRecords;
    this.updateVoterSender =
      controlRecords === undefined
        ? undefined
        : new UpdateVoterSender(identity, quorum, controlRecords, outboundRequests);
    this.autoJoinSender =
      controlRecords === undefined || options.autoJoin !== true
        ? undefined
        : new AutoJoinSender(identity, quorum, controlRecords, outboundRequests);
    this.voterChangeHandler = new VoterChangeHandler(
      identity,
      quorum,
      validator,
      outbox,
      controlRecords === undefined
        ? undefined
        : {
            controlRecords,
            voterSetChanges: this.voterSetChanges,
            resignLeadership: (nowMs) => this.transitions.resignLeadership(nowMs),
          },
    );
    this.statePoller = new StatePoller(
      identity,
      quorum,
      log,
      this.requestManager,
      shutdownDeadline,
      this.transitions,
      this.leaderWritePath,
      {
        vote: this.voteHandler,
        quorumEpoch: this.quorumEpochHandler,
        fetch: this.followerFetch,
        parkedFetches: this.fetchHandler,
        updateVoter: this.updateVoterSender,
        autoJoin: this.autoJoinSender,
      },
      this.outbox,
      metrics,
    );
    // Checked with the other options (checkKafkaRaftClientOptions).
    const listenerReadBufferBytes = options.listenerReadBufferBytes ?? MAX_BATCH_SIZE_BYTES;
    this.listenerDispatch = new ListenerDispatch(log, quorum, this.logger, listenerReadBufferBytes);
  }

  private createQuorumState(options: KafkaRaftClientOptions): QuorumState {
    const kraftVersion = this.identity.kraftVersion;
    const controlRecords = this.controlRecords;
    return new QuorumState({
      localId: options.nodeId,
      localDirectoryId: options.directoryId ?? Uuid.ZERO,
      localEndpoints: this.identity.localEndpoints,
      voters: controlRecords === undefined ? () => options.voters : () => controlRecords.lastVoterSet(),
      electionTimeoutMs: this.config.electionTimeoutMs,
      fetchTimeoutMs: this.config.fetchTimeoutMs,
      store: options.quorumStateStore,
      outbox: this.outbox,
      random: options.random,
      kraftVersion: () => kraftVersion,
      isRecoveringLostData: () => this.log.recoveringUntilOffset?.() !== undefined,
      logger: this.logger.child({ component: 'quorum-state' }),
    });
  }

  // --- lifecycle --------------------------------------------------------------------------

  /**
   * Restores the election state and checks the log: a log start above 0 must be covered by a
   * snapshot (KAFKA-14240). A lone voter starts campaigning at once.
   */
  initialize(nowMs: number): void {
    invariant(!this.initialized, () => 'KafkaRaftClient.initialize called twice');
    const logStart = this.log.startOffset();
    const earliest = this.log.earliestSnapshotId();
    if (logStart > 0 && (earliest === undefined || earliest.offset < logStart)) {
      throw new RaftLogStateError(`log starts at ${logStart} but no snapshot covers it`);
    }
    this.controlRecords?.updateState();
    this.knownVoterSet = this.quorum.voters();
    this.updateVoterEndpoints(this.knownVoterSet);
    this.updateBootstrapServerEndpoints();
    this.quorum.initialize({ offset: this.log.endOffset(), epoch: this.log.lastFetchedEpoch() }, nowMs);
    this.initialized = true;
    this.metrics.onInitialized(this.quorum.state().name, nowMs);
    this.wasRecoveringLostData = this.quorum.isRecoveringLostData();
    if (this.wasRecoveringLostData) {
      this.logger.warn(
        { recoveringUntilOffset: this.log.recoveringUntilOffset?.(), logEndOffset: this.log.endOffset() },
        'the log lost flushed data: running as a non-voting observer until it is fetched back',
      );
    }
    this.lastPollTimeMs = nowMs;
    this.nextLogCleanMs = nowMs + this.config.logCleanIntervalMs;
    if (this.quorum.isOnlyVoter()) this.campaignAsOnlyVoter(nowMs);
  }

  /** Tells the network where every other voter of `voters` is reached. */
  private updateVoterEndpoints(voters: VoterSet): void {
    for (const node of voters.voterNodes()) {
      const address = node.listeners.addressFor(this.identity.listenerName);
      if (address !== undefined && node.voterKey.id !== this.options.nodeId) {
        this.network.updateEndpoint(node.voterKey.id, address);
      }
    }
  }

  /** Tells the network where each bootstrap server is, under its own id (`bootstrapServerId`). */
  private updateBootstrapServerEndpoints(): void {
    const servers = this.options.bootstrapServers ?? [];
    servers.forEach((address, index) => {
      this.network.updateEndpoint(bootstrapServerId(index), { host: address.host, port: address.port });
    });
    if (servers.length > 0) {
      this.logger.info(
        { bootstrapServers: servers.map((address) => `${address.host}:${address.port}`) },
        'an observer without a leader asks the bootstrap servers',
      );
    }
  }

  /**
   * kraft.version 1: brings the control records up to the log end (the leader's own appends, a
   * fetch, a truncation or a snapshot), and hands a changed voter set to the network and, on the
   * leader, to its replica tracking, where it counts for the high watermark and check-quorum at
   * once (KIP-853: a VotersRecord takes effect when appended). A no-op at kraft.version 0.
   */
  private maybeUpdateVoterSet(nowMs: number): void {
    const controlRecords = this.controlRecords;
    if (controlRecords === undefined) return;
    controlRecords.updateState();
    const voters = controlRecords.lastVoterSet();
    if (voters === this.knownVoterSet) return;
    this.knownVoterSet = voters;
    this.updateVoterEndpoints(voters);
    this.logger.info(
      { voters: voters.toString(), offset: controlRecords.lastVoterSetOffset() },
      'voter set changed',
    );
    if (!this.quorum.isLeader()) return;
    const leader = this.quorum.leaderStateOrThrow();
    if (leader.updateVoterSet(voters, nowMs)) {
      this.leaderWritePath.onLeaderHighWatermarkChanged(leader, nowMs);
      this.fetchHandler.completeParkedFetches(nowMs);
    }
  }

  /**
   * Kafka: "A single-voter quorum becomes Candidate right away at initialize", from whatever state
   * the stored election left: after a clean shutdown the former leader restarts Resigned, and
   * waiting out its election timeout would only delay the one possible leader.
   */
  private campaignAsOnlyVoter(nowMs: number): void {
    if (this.quorum.isUnattached() || this.quorum.isFollower() || this.quorum.isResigned()) {
      this.transitions.transitionToProspective(nowMs);
      this.transitions.maybeTransitionToCandidate(nowMs);
    } else {
      // Restarted Candidate (it had voted for itself): its own vote already wins.
      this.transitions.maybeTransitionToLeader(nowMs);
    }
  }

  /** Enqueues an inbound request for the next `poll`; false when the inbound queue is full. */
  handleRequest(request: InboundRequest, _nowMs: number): boolean {
    return this.enqueue({ kind: 'request', request });
  }

  /** Enqueues an inbound response for the next `poll`; false when the inbound queue is full. */
  handleResponse(response: InboundResponse, _nowMs: number): boolean {
    return this.enqueue({ kind: 'response', response });
  }

  /** The one inbound queue (the driver hands messages straight here): the caller reports a refusal. */
  private enqueue(message: InboundMessage): boolean {
    if (this.inbound.length >= this.maxQueuedMessages) return false;
    this.inbound.push(message);
    return true;
  }

  /**
   * Drains the inbound queue, runs the current state's timers, sends what is due, feeds the
   * listeners, and returns the absolute time by which `poll` must run again.
   */
  poll(nowMs: number): number {
    invariant(this.initialized, () => 'KafkaRaftClient.poll before initialize');
    if (this.shutdownComplete) return Number.POSITIVE_INFINITY;
    this.lastPollTimeMs = Math.max(this.lastPollTimeMs, nowMs);
    const messages = this.inbound;
    this.inbound = [];
    for (const message of messages) {
      if (message.kind === 'request') this.handleInboundRequest(message.request, nowMs);
      else this.handleInboundResponse(message.response, nowMs);
    }
    this.maybeUpdateVoterSet(nowMs);
    // Before the state's own poll: a transfer that resigns now has its EndQuorumEpoch sent below.
    let timeoutMs = this.leadershipTransfer.poll(nowMs);
    timeoutMs = Math.min(timeoutMs, this.statePoller.pollState(nowMs));
    this.maybeUpdateVoterSet(nowMs);
    // After the fetches and flushes that moved the high watermark, and before shutdown ends:
    // a pending voter change is answered in the poll its leadership or its commit ends.
    timeoutMs = Math.min(timeoutMs, this.voterChangeHandler.poll(nowMs));
    timeoutMs = Math.min(timeoutMs, this.readBarriers.poll(nowMs));
    timeoutMs = Math.min(timeoutMs, this.fetchHandler.expireParkedFetches(nowMs));
    timeoutMs = Math.min(timeoutMs, this.maybeCleanLog(nowMs));
    this.listenerDispatch.pollListeners();
    this.maybeCompleteShutdown(nowMs);
    if (this.inbound.length > 0 || this.needsFlush()) timeoutMs = 0;
    return nowMs + timeoutMs;
  }

  /**
   * Takes what the calls since the last `ready()` left for the driver: an election state to write
   * durably (report it with `onElectionStatePersisted`) and the messages free to leave, in order.
   * Call it after every call into the client (`poll`, `onLogFlushed`, ...): a message recorded
   * behind an election write is handed out only once that write is reported durable.
   */
  ready(): RaftReady {
    return this.outbox.takeReady();
  }

  /** True when `ready()` has something to hand out. */
  hasReady(): boolean {
    return this.outbox.hasReady();
  }

  /** The driver made the election state of `ready().electionState.id` durable. */
  onElectionStatePersisted(id: number, _nowMs: number): void {
    this.outbox.onElectionStatePersisted(id);
  }

  /**
   * The driver made the downloaded snapshot of `ready().snapshotInstall.id` durable
   * (`RaftLog.freezeFetchedSnapshot`): the core installs it now, and fetches again from its start.
   */
  onSnapshotInstallDurable(id: number, _nowMs: number): void {
    invariant(this.initialized, () => 'onSnapshotInstallDurable before initialize');
    this.followerFetch.completeSnapshotInstall(this.outbox.onSnapshotInstallDurable(id));
  }

  /** True when appended data is not yet durable: the driver must flush and call `onLogFlushed`. */
  needsFlush(): boolean {
    return needsFlush(this.log);
  }

  /** The end offset a flush must make durable (everything appended so far). */
  flushTargetOffset(): number {
    return this.log.endOffset();
  }

  /** The driver flushed the log up to `flushedOffset`. A leader may now count it toward the HWM. */
  onLogFlushed(flushedOffset: number, nowMs: number): void {
    invariant(this.initialized, () => 'onLogFlushed before initialize');
    if (this.wasRecoveringLostData && !this.quorum.isRecoveringLostData()) {
      this.wasRecoveringLostData = false;
      this.logger.info({ flushedOffset }, 'lost flushed data fetched back: voting again');
    }
    if (!this.quorum.isLeader()) return;
    const durable = Math.min(flushedOffset, this.log.lastFlushedOffset(), this.log.endOffset());
    const leader = this.quorum.leaderStateOrThrow();
    if (leader.updateLocalState(durable, nowMs)) {
      this.leaderWritePath.onLeaderHighWatermarkChanged(leader, nowMs);
      this.fetchHandler.completeParkedFetches(nowMs);
    }
  }

  // --- RaftClient API -----------------------------------------------------------------------

  register(listener: Listener): void {
    this.listenerDispatch.register(listener);
    this.requestWakeup();
  }

  /** Removes a listener at the end of the next `poll`. */
  unregister(listener: Listener): void {
    this.listenerDispatch.unregister(listener);
    this.requestWakeup();
  }

  /**
   * The driver's wake-up (Kafka's `RaftMessageQueue.wakeup`): called after an application call
   * that gives `poll` work (an append, a listener change, a read barrier, a transfer, a resign),
   * so that work never waits for the deadline the driver sleeps to. It changes nothing in the
   * core, so runs without a driver stay deterministic.
   */
  setWakeupListener(listener: (() => void) | undefined): void {
    this.wakeupListener = listener;
  }

  private requestWakeup(): void {
    this.wakeupListener?.();
  }

  highWatermark(): number | undefined {
    return this.initialized ? this.quorum.highWatermark() : undefined;
  }

  /** The current epoch and its leader as this node knows it. */
  leaderAndEpoch(): LeaderAndEpoch {
    return this.quorum.leaderAndEpoch();
  }

  nodeId(): number | undefined {
    return this.options.nodeId;
  }

  prepareAppend(epoch: number, records: readonly Buffer[]): number {
    return this.append(epoch, records, true);
  }

  /** Lets prepared batches drain on the next poll (no-op when not leader) and wakes the driver. */
  schedulePreparedAppend(): void {
    if (this.quorum.isLeader()) this.quorum.leaderStateOrThrow().accumulator.allowDrain();
    this.requestWakeup();
  }

  scheduleAppend(epoch: number, records: readonly Buffer[]): number {
    return this.append(epoch, records, false);
  }

  private append(epoch: number, records: readonly Buffer[], delayDrain: boolean): number {
    if (!this.isLeadingAndOpen()) {
      throw new NotLeaderError(`node ${this.options.nodeId} is not the leader of epoch ${epoch}`, epoch);
    }
    const leader = this.quorum.leaderStateOrThrow();
    if (epoch !== leader.epoch) {
      throw new NotLeaderError(`epoch ${epoch} is not the current leader epoch ${leader.epoch}`, epoch);
    }
    if (this.leadershipTransfer.blocksAppends()) {
      // Raft thesis §3.10: new writes wait for the new leader, so the target can catch up.
      throw new NotLeaderError(`node ${this.options.nodeId} is handing leadership over`, epoch);
    }
    const lastOffset = leader.accumulator.append(epoch, records, this.lastPollTimeMs, delayDrain);
    this.requestWakeup();
    return lastOffset;
  }

  /**
   * Registers a linearizable read barrier (etcd's ReadIndex; ADR 0024) and returns its id. Its
   * completion (`ready().completions`) carries an offset R: a state machine that has applied every
   * committed record below R reflects every write acknowledged before this call. It fails with
   * NotLeaderError when leadership ends first, RaftTimeoutError after `timeoutMs`.
   * Throws NotLeaderError when this node does not lead, PendingReadsFullError past the bound.
   */
  readIndex(nowMs: number, timeoutMs: number): number {
    checkInteger('readIndex: timeoutMs', timeoutMs, { minimum: 0 });
    this.checkLeading('read');
    return this.startOperation((id) => this.readBarriers.register(id, nowMs, timeoutMs));
  }

  /**
   * Starts handing leadership to voter `targetId` (ADR 0024) and returns the transfer's id. Its
   * completion arrives once this node sees the target lead a later epoch (at once when the
   * target is this node); it fails with NotLeaderError, RaftTimeoutError after `timeoutMs`, or
   * LeadershipTransferError (another node won). Throws NotLeaderError when this node does not
   * lead and LeadershipTransferError for a target that is not a voter or a second transfer.
   */
  transferLeadership(targetId: number, nowMs: number, timeoutMs: number): number {
    checkInteger('transferLeadership: targetId', targetId, { minimum: 0 });
    checkInteger('transferLeadership: timeoutMs', timeoutMs, { minimum: 0 });
    this.checkLeading('leadership transfer');
    return this.startOperation((id) => this.leadershipTransfer.start(id, targetId, nowMs, timeoutMs));
  }

  /**
   * The leader's voter change primitive (KIP-853, ADR 0045), which the AddRaftVoter and
   * RemoveRaftVoter handlers are to call: appends a VotersRecord of `voters` at the log end. It
   * takes effect at once (elections, the high watermark and check-quorum count over it) and is
   * committed by the new set. Refused, as a value, unless this node leads with a high watermark at
   * kraft.version 1, the last voter change is committed (one at a time), the set keeps an
   * overlapping majority with the latest one, and no record waits in the accumulator.
   */
  appendVotersRecord(voters: VoterSet, nowMs: number): VotersRecordAppendResult {
    if (!this.isLeadingAndOpen()) return { kind: 'rejected', reason: 'not-leader' };
    const result = this.voterSetChanges.appendVotersRecord(voters, nowMs);
    if (result.kind === 'appended') {
      this.maybeUpdateVoterSet(nowMs);
      this.requestWakeup();
    }
    return result;
  }

  /** Starts an operation under the next id, which is used up only when `start` does not throw. */
  private startOperation(start: (id: number) => void): number {
    const id = this.nextOperationId;
    start(id);
    this.nextOperationId += 1;
    this.requestWakeup();
    return id;
  }

  /**
   * This node may start leader work: it leads and is not shutting down (a candidate that wins
   * during shutdown leads only to resign).
   */
  private isLeadingAndOpen(): boolean {
    return this.initialized && this.quorum.isLeader() && !this.shutdownDeadline.isShuttingDown();
  }

  private checkLeading(operation: string): void {
    if (!this.isLeadingAndOpen()) {
      const epoch = this.quorum.epoch();
      throw new NotLeaderError(
        `node ${this.options.nodeId} cannot start a ${operation}: it does not lead epoch ${epoch}`,
        epoch,
      );
    }
  }

  resign(epoch: number): void {
    const current = this.quorum.epoch();
    invariant(
      epoch <= current,
      () => `cannot resign epoch ${epoch}, which is above the current epoch ${current}`,
    );
    if (epoch === current && this.quorum.isLeader()) {
      this.transitions.resignLeadership(this.lastPollTimeMs);
      this.requestWakeup();
    }
  }

  createSnapshot(snapshotId: OffsetAndEpoch, lastContainedLogTimestamp: number): SnapshotWriter | undefined {
    const highWatermark = this.quorum.highWatermark();
    if (highWatermark === undefined || snapshotId.offset > highWatermark) {
      throw new InvalidSnapshotError(
        `snapshot end offset ${snapshotId.offset} is above the high watermark ${highWatermark ?? 'unknown'}`,
      );
    }
    const validation = this.log.validateOffsetAndEpoch(snapshotId.offset, snapshotId.epoch);
    if (validation.kind !== 'valid') {
      throw new InvalidSnapshotError(
        `snapshot id ${snapshotId.offset}-${snapshotId.epoch} does not match the log (${validation.kind})`,
      );
    }
    if (!this.isBatchAligned(snapshotId.offset)) {
      throw new InvalidSnapshotError(`snapshot end offset ${snapshotId.offset} is not at a batch boundary`);
    }
    const raw = this.log.createNewSnapshot(snapshotId);
    if (raw === undefined) return undefined;
    return new RecordsSnapshotWriter(
      raw,
      lastContainedLogTimestamp,
      MAX_BATCH_SIZE_BYTES,
      (sizeInBytes) => this.metrics.onSnapshotGenerated(sizeInBytes, lastContainedLogTimestamp),
      this.snapshotHeaderControlRecords(snapshotId.offset),
    );
  }

  /**
   * kraft.version 1: the kraft.version and the voter set in force at the snapshot's last offset go
   * into its header batch (Kafka's RecordsSnapshotWriter), so that a log whose start moves past
   * the last VotersRecord still knows its voters from the snapshot. None at kraft.version 0.
   */
  private snapshotHeaderControlRecords(snapshotEndOffset: number): ControlRecordMessage[] {
    if (this.controlRecords === undefined) return [];
    return [
      {
        type: ControlRecordType.KRAFT_VERSION,
        message: { version: 0, kRaftVersion: this.identity.kraftVersion },
      },
      {
        type: ControlRecordType.KRAFT_VOTERS,
        message: this.voterSetAtOffset(snapshotEndOffset - 1).toVotersRecord(),
      },
    ];
  }

  private isBatchAligned(offset: number): boolean {
    if (offset >= this.log.endOffset() || offset === this.log.startOffset()) return true;
    const first = firstBatchBaseOffset(this.log.read(offset, 'uncommitted', 1).records);
    return first === offset;
  }

  /** The log's newest frozen snapshot id, or undefined. */
  latestSnapshotId(): OffsetAndEpoch | undefined {
    return this.log.latestSnapshotId();
  }

  /** The log end offset: the next offset to assign. */
  logEndOffset(): number {
    return this.log.endOffset();
  }

  shutdown(timeoutMs: number, nowMs: number): void {
    if (!this.shutdownDeadline.begin(nowMs, timeoutMs)) return;
    this.logger.info({ timeoutMs }, 'beginning graceful shutdown');
    if (this.quorum.isLeader()) this.transitions.resignLeadership(nowMs);
  }

  /** True once the shutdown begun by `shutdown` has finished. */
  isShutdownComplete(): boolean {
    return this.shutdownComplete;
  }

  /**
   * The latest voter set: the static voters at kraft.version 0; at kraft.version 1 the last
   * VotersRecord of the log up to its end (uncommitted included), else the static voters.
   */
  lastVoterSet(): VoterSet {
    return this.quorum.voters();
  }

  /**
   * The voter set in force at `offset`, from -1 (before the first record) to below the log end:
   * at kraft.version 1 the last VotersRecord at or before it, else the static voters; at
   * kraft.version 0 always the static voters. Throws InvalidConfigurationError (the argument check)
   * for an offset outside that range.
   */
  voterSetAtOffset(offset: number): VoterSet {
    checkInteger('voterSetAtOffset: offset', offset, { minimum: -1, maximum: this.log.endOffset() - 1 });
    const controlRecords = this.controlRecords;
    if (controlRecords === undefined) return this.options.voters;
    controlRecords.updateState();
    return controlRecords.voterSetAtOffset(offset);
  }

  /** The quorum state machine (read-only use: tests, simulation invariants, metrics). */
  quorumState(): QuorumState {
    return this.quorum;
  }

  /** A snapshot of role, epoch, leader, offsets, latencies and counters for apps and metrics. */
  observableState(): RaftClientObservableState {
    const state = this.quorum.state();
    const commitLatency = this.leaderWritePath.commitLatency();
    const voters = this.quorum.voters();
    return {
      role: state.name,
      epoch: state.epoch,
      leaderId: state.leaderAndEpoch().leaderId,
      votedId: state.election().votedKey?.id,
      highWatermark: state.highWatermark(),
      logStartOffset: this.log.startOffset(),
      logEndOffset: this.log.endOffset(),
      lastFlushedOffset: this.log.lastFlushedOffset(),
      recoveringUntilOffset: this.log.recoveringUntilOffset?.(),
      lastFetchedEpoch: this.log.lastFetchedEpoch(),
      numberOfVoters: voters.size(),
      numberOfObservers: state instanceof LeaderState ? state.numberOfObservers() : undefined,
      unknownVoterConnections: this.unknownVoterConnections(),
      isObserver: this.quorum.isObserver(),
      commitLatencyAvgMs: commitLatency.avgMs,
      commitLatencyMaxMs: commitLatency.maxMs,
      committedBatches: commitLatency.committedBatches,
      isShuttingDown: this.shutdownDeadline.isShuttingDown(),
      metrics: this.metrics.snapshot(commitLatency),
    };
  }

  /**
   * Other voters this node has no address for on its listener (Kafka's
   * number-unknown-voter-connections): it cannot send them a request until one is known.
   */
  private unknownVoterConnections(): number {
    let unknown = 0;
    for (const node of this.quorum.voters().voterNodes()) {
      if (
        node.voterKey.id !== this.options.nodeId &&
        node.listeners.addressFor(this.identity.listenerName) === undefined
      )
        unknown += 1;
    }
    return unknown;
  }

  // --- requests -----------------------------------------------------------------------------

  private handleInboundRequest(inbound: InboundRequest, nowMs: number): void {
    const request = typedRequest(inbound);
    if (request === undefined) {
      this.answerUnhandledRequest(inbound);
      return;
    }
    switch (request.apiKey) {
      case RaftApiKey.VOTE:
        this.outbox.sendResponse(request, this.voteHandler.handleVoteRequest(request, nowMs));
        return;
      case RaftApiKey.BEGIN_QUORUM_EPOCH:
        this.outbox.sendResponse(
          request,
          this.quorumEpochHandler.handleBeginQuorumEpochRequest(request, nowMs),
        );
        return;
      case RaftApiKey.END_QUORUM_EPOCH:
        this.outbox.sendResponse(
          request,
          this.quorumEpochHandler.handleEndQuorumEpochRequest(request, nowMs),
        );
        return;
      case RaftApiKey.FETCH:
        this.fetchHandler.handleFetchRequest(request, nowMs);
        return;
      case RaftApiKey.FETCH_SNAPSHOT:
        this.outbox.sendResponse(
          request,
          this.fetchSnapshotHandler.handleFetchSnapshotRequest(request, nowMs),
        );
        return;
      case RaftApiKey.DESCRIBE_QUORUM:
        this.outbox.sendResponse(
          request,
          this.describeQuorumHandler.handleDescribeQuorumRequest(request, nowMs),
        );
        return;
      case RaftApiKey.ADD_RAFT_VOTER:
        this.voterChangeHandler.handleAddVoterRequest(request, nowMs);
        return;
      case RaftApiKey.REMOVE_RAFT_VOTER:
        this.voterChangeHandler.handleRemoveVoterRequest(request, nowMs);
        return;
      case RaftApiKey.UPDATE_RAFT_VOTER:
        this.voterChangeHandler.handleUpdateVoterRequest(request, nowMs);
        return;
    }
  }

  /**
   * A request for an API the core has no handler for. Unanswered, it would hold the sender's one
   * in-flight request until its timeout, so it gets UNKNOWN_SERVER_ERROR when the protocol knows
   * its response shape (Kafka's `RaftUtil.errorResponse`), and is dropped only otherwise.
   */
  private answerUnhandledRequest(request: InboundRequest): void {
    const api = apiKeyFor(request.apiKey);
    this.logger.warn({ apiKey: request.apiKey }, 'a request the raft core does not handle');
    if (api === undefined) return;
    this.outbox.sendUnhandledApiResponse(
      request,
      api.response.defaults({ errorCode: Errors.UNKNOWN_SERVER_ERROR.code }),
    );
  }

  // --- outbound requests and responses ------------------------------------------------------

  private handleInboundResponse(inbound: InboundResponse, nowMs: number): void {
    const sourceId = inbound.sourceId;
    if (!this.requestManager.isResponseExpected(sourceId, inbound.correlationId)) {
      this.logger.debug(
        { remoteNodeId: sourceId, correlationId: inbound.correlationId },
        'ignoring an unexpected response',
      );
      return;
    }
    const context = this.outboundRequests.take(sourceId);
    const response = typedResponse(inbound);
    const success = response !== undefined && this.dispatchResponse(response, context, nowMs);
    this.requestManager.onResponseResult(sourceId, inbound.correlationId, success, nowMs);
  }

  /** Hands a response to its handler; whether it succeeded (for the request manager's backoff). */
  private dispatchResponse(
    response: TypedInboundResponse,
    context: OutstandingRequest | undefined,
    nowMs: number,
  ): boolean {
    switch (response.apiKey) {
      case RaftApiKey.VOTE:
        return this.voteHandler.handleVoteResponse(response, context, nowMs);
      case RaftApiKey.BEGIN_QUORUM_EPOCH:
        return this.quorumEpochHandler.handleQuorumEpochResponse(response, nowMs, false);
      case RaftApiKey.END_QUORUM_EPOCH:
        return this.quorumEpochHandler.handleQuorumEpochResponse(response, nowMs, true);
      case RaftApiKey.FETCH:
        return this.followerFetch.handleFetchResponse(response, nowMs);
      case RaftApiKey.FETCH_SNAPSHOT:
        return this.followerFetch.handleFetchSnapshotResponse(response, nowMs);
      case RaftApiKey.UPDATE_RAFT_VOTER:
        // Only a kraft.version 1 follower sends it; an answer with none expected is no success.
        return this.updateVoterSender?.handleUpdateVoterResponse(response) ?? false;
      case RaftApiKey.ADD_RAFT_VOTER:
      case RaftApiKey.REMOVE_RAFT_VOTER:
        // Only an auto-joining observer sends them.
        return this.autoJoinSender?.handleResponse(response) ?? false;
    }
  }

  // --- housekeeping -------------------------------------------------------------------------

  private maybeCleanLog(nowMs: number): number {
    if (nowMs >= this.nextLogCleanMs) {
      this.nextLogCleanMs = nowMs + this.config.logCleanIntervalMs;
      // The log skips snapshots above its high watermark itself (after a restart it starts low).
      if (this.log.maybeClean(nowMs))
        this.logger.info({ logStartOffset: this.log.startOffset() }, 'log retention advanced the log start');
    }
    return Math.max(1, this.nextLogCleanMs - nowMs);
  }

  private maybeCompleteShutdown(nowMs: number): void {
    if (!this.shutdownDeadline.isShuttingDown() || this.shutdownComplete) return;
    const leaderId = this.quorum.leaderId();
    const done =
      this.quorum.isObserver() ||
      this.quorum.isOnlyVoter() ||
      (leaderId !== undefined && leaderId !== this.options.nodeId) ||
      this.shutdownDeadline.hasExpired(nowMs);
    if (!done) return;
    this.shutdownComplete = true;
    // A download in progress holds an open `.part` file; after shutdown the driver closes the log
    // and nothing would finish or close it. A restart deletes the partial file and downloads again.
    this.quorum.close();
    this.logger.info({ epoch: this.quorum.epoch() }, 'graceful shutdown complete');
    this.listenerDispatch.beginShutdown();
  }
}

function firstBatchBaseOffset(records: Records): number | undefined {
  if (records instanceof MemoryRecords) return records.firstBatch()?.baseOffset;
  for (const batch of records.batches()) return batch.baseOffset;
  return undefined;
}

/** The client's identity and settings, resolved once from its options (defaults filled in). */
function resolveIdentity(options: KafkaRaftClientOptions): RaftIdentity {
  const nodeId = options.nodeId;
  return {
    nodeId,
    clusterId: options.clusterId ?? null,
    voters: options.voters,
    topic: options.topic ?? METADATA_TOPIC,
    listenerName: options.listenerName ?? DEFAULT_CONTROLLER_LISTENER_NAME,
    localEndpoints:
      options.localEndpoints ?? (nodeId === undefined ? Endpoints.EMPTY : options.voters.listeners(nodeId)),
    config: resolveQuorumConfig(options.config),
    rpcVersions: { ...DEFAULT_RPC_VERSIONS, ...options.rpcVersions },
    kraftVersion: options.kraftVersion ?? 0,
    logger: (options.logger ?? silentLogger).child({ component: 'raft' }),
  };
}
