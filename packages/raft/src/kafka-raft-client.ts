/**
 * KafkaRaftClient: the KRaft protocol engine, synchronous and deterministic.
 *
 * ## Public API (stable; the IO driver in `src/io/` and the simulator code against it)
 *
 * ```ts
 * const client = new KafkaRaftClient({
 *   nodeId, directoryId, clusterId, voters,          // identity; voters = VoterSet (static `controller.quorum.voters`)
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
 */
import {
  ApiKeys,
  type BeginQuorumEpochRequestData,
  type BeginQuorumEpochResponseData,
  type DescribeQuorumRequestData,
  type EndQuorumEpochRequestData,
  type EndQuorumEpochResponseData,
  Errors,
  type FetchRequestData,
  type FetchResponseData,
  type FetchSnapshotRequestData,
  type FetchSnapshotResponseData,
  invariant,
  KRaftError,
  type Logger,
  silentLogger,
  Uuid,
  type VoteRequestData,
  type VoteResponseData,
} from '@kraft/protocol';
import {
  buildControlBatch,
  type ControlRecordMessage,
  ControlRecordType,
  type FileRecords,
  MemoryRecords,
  MemoryRecordsBuilder,
  type Records,
} from '@kraft/records';
import { Endpoints } from './endpoints.js';
import { InvalidConfigurationError } from './errors/invalid-configuration-error.js';
import { InvalidSnapshotError } from './errors/invalid-snapshot-error.js';
import { NotLeaderError } from './errors/not-leader-error.js';
import { RaftLogStateError } from './errors/raft-log-state-error.js';
import { BatchAccumulator } from './internals/batch-accumulator.js';
import { ListenerContext } from './internals/listener-context.js';
import { RecordsBatchReader } from './internals/records-batch-reader.js';
import { RecordsSnapshotReader } from './internals/records-snapshot-reader.js';
import { RecordsSnapshotWriter } from './internals/records-snapshot-writer.js';
import type { InboundRequest, InboundResponse, NetworkChannel } from './ports/network-channel.js';
import type { QuorumStateDataVersion, QuorumStateStore } from './ports/quorum-state-store.js';
import {
  compareOffsetAndEpoch,
  type LogAppendInfo,
  type OffsetAndEpoch,
  type RaftLog,
} from './ports/raft-log.js';
import type { Random } from './ports/random.js';
import { type QuorumConfig, resolveQuorumConfig } from './quorum-config.js';
import { QuorumState } from './quorum-state.js';
import type { LeaderAndEpoch, Listener, RaftClient, SnapshotWriter } from './raft-client.js';
import { ReplicaKey } from './replica-key.js';
import { RequestManager } from './request-manager.js';
import {
  buildBeginQuorumEpochRequest,
  buildDescribeQuorumResponse,
  buildEndQuorumEpochRequest,
  buildFetchRequest,
  buildFetchResponse,
  buildFetchSnapshotRequest,
  buildFetchSnapshotResponse,
  buildQuorumEpochResponse,
  buildVoteRequest,
  buildVoteResponse,
  type DescribeQuorumReplica,
  endpointsFromListeners,
  endpointsFromNodeEndpoints,
  type FetchPartitionResult,
  listenersOf,
  METADATA_PARTITION_INDEX,
  METADATA_TOPIC,
  type ReplicatedTopic,
  singlePartition,
  topLevelErrorCode,
} from './rpc/raft-messages.js';
import type { EpochState, StateName } from './states/epoch-state.js';
import { FollowerState, UNREACHABLE_LEADER_FETCHES_FOR_EARLY_ELECTION } from './states/follower-state.js';
import { LeaderState } from './states/leader-state.js';
import { DEFAULT_CONTROLLER_LISTENER_NAME, type VoterSet } from './voter-set.js';

/** Kafka API keys the raft core speaks. */
export const RaftApiKey = {
  FETCH: 1,
  VOTE: 52,
  BEGIN_QUORUM_EPOCH: 53,
  END_QUORUM_EPOCH: 54,
  DESCRIBE_QUORUM: 55,
  FETCH_SNAPSHOT: 59,
} as const;

/** The versions the core asks for; the transport may lower them after ApiVersions. */
export interface RpcVersions {
  readonly fetch: number;
  readonly vote: number;
  readonly beginQuorumEpoch: number;
  readonly endQuorumEpoch: number;
  readonly fetchSnapshot: number;
}

/**
 * The newest version of each RPC @kraft/protocol speaks (Fetch 18 carries the follower's high
 * watermark, KIP-1166). Each is a cap: the transport lowers it per peer after ApiVersions.
 */
export const DEFAULT_RPC_VERSIONS: RpcVersions = Object.freeze({
  fetch: ApiKeys.FETCH.highestVersion,
  vote: ApiKeys.VOTE.highestVersion,
  beginQuorumEpoch: ApiKeys.BEGIN_QUORUM_EPOCH.highestVersion,
  endQuorumEpoch: ApiKeys.END_QUORUM_EPOCH.highestVersion,
  fetchSnapshot: ApiKeys.FETCH_SNAPSHOT.highestVersion,
});

/** Inbound messages waiting for `poll`; beyond this the oldest behaviour is to drop (the sender times out). */
export const MAX_INBOUND_QUEUE_SIZE = 65_536;

export interface KafkaRaftClientOptions {
  /** Undefined for an observer that has no node id (it fetches as replica -1). */
  readonly nodeId: number | undefined;
  readonly directoryId?: Uuid;
  /** Requests carrying another non-null cluster id are answered INCONSISTENT_CLUSTER_ID. */
  readonly clusterId?: string | null;
  readonly voters: VoterSet;
  readonly log: RaftLog;
  readonly network: NetworkChannel;
  readonly quorumStateStore: QuorumStateStore;
  readonly random: Random;
  readonly config?: Partial<QuorumConfig>;
  /** The listener name endpoints are advertised on (`controller.listener.names`' first entry). */
  readonly listenerName?: string;
  /** This node's own endpoints, sent in BeginQuorumEpoch/EndQuorumEpoch when it leads. */
  readonly localEndpoints?: Endpoints;
  /** 0 = static voters (quorum-state data version 0), 1 = KIP-853. */
  readonly kraftVersion?: QuorumStateDataVersion;
  readonly rpcVersions?: Partial<RpcVersions>;
  /**
   * The topic replicated (its name and topic id travel in every RPC; requests naming another are
   * refused as Kafka does). Default `__cluster_metadata`; Kafka's raft test server uses
   * `__raft_performance_test` with topic id `Uuid(0, 2)`.
   */
  readonly topic?: ReplicatedTopic;
  readonly logger?: Logger;
}

/** What apps and metrics can read at any time (Kafka's raft-metrics). */
export interface RaftClientObservableState {
  readonly role: StateName;
  readonly epoch: number;
  readonly leaderId: number | undefined;
  readonly votedId: number | undefined;
  readonly highWatermark: number | undefined;
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  readonly lastFlushedOffset: number;
  readonly lastFetchedEpoch: number;
  readonly numberOfVoters: number;
  /** Commit latency: time from a leader append to its commit, over committed batches. */
  readonly commitLatencyAvgMs: number | undefined;
  readonly commitLatencyMaxMs: number | undefined;
  readonly committedBatches: number;
  readonly isShuttingDown: boolean;
}

type InboundMessage =
  | { readonly kind: 'request'; readonly request: InboundRequest }
  | { readonly kind: 'response'; readonly response: InboundResponse };

interface OutstandingRequest {
  readonly correlationId: number;
  readonly apiKey: number;
  readonly epoch: number;
  readonly preVote: boolean;
}

interface ParkedFetch {
  readonly request: InboundRequest;
  readonly replicaKey: ReplicaKey | undefined;
  readonly fetchOffset: number;
  readonly lastFetchedEpoch: number;
  readonly maxBytes: number;
  readonly epoch: number;
  readonly deadlineMs: number;
}

/** A fetch the leader holds, with the empty answer it gets if its wait runs out (built only then). */
interface WaitingFetch extends ParkedFetch {
  readonly emptyResult: FetchPartitionResult;
}

interface PendingCommit {
  readonly lastOffset: number;
  readonly appendTimeMs: number;
}

/** Appended batches tracked for the commit-latency metric until they commit. */
export const MAX_PENDING_COMMITS = 100_000;

/** Long-polling fetches the leader holds at once; beyond this a fetch is answered at once. */
export const MAX_PARKED_FETCHES = 1024;

/** Bounds the re-polls of one `poll` when states change back to back (e.g. lone voter → leader). */
const MAX_STATE_POLLS_PER_POLL = 8;

export class KafkaRaftClient implements RaftClient {
  private readonly options: KafkaRaftClientOptions;
  private readonly config: QuorumConfig;
  private readonly log: RaftLog;
  private readonly network: NetworkChannel;
  private readonly logger: Logger;
  private readonly topic: ReplicatedTopic;
  private readonly listenerName: string;
  private readonly localEndpoints: Endpoints;
  private readonly localDirectoryId: Uuid;
  private readonly rpcVersions: RpcVersions;
  private readonly kraftVersion: QuorumStateDataVersion;
  private readonly quorum: QuorumState;
  private readonly requestManager: RequestManager;
  private inbound: InboundMessage[] = [];
  private readonly outstanding = new Map<number, OutstandingRequest>();
  private parkedFetches: WaitingFetch[] = [];
  private readonly listeners = new Map<Listener, ListenerContext>();
  private readonly pendingRegistrations: { listener: Listener; register: boolean }[] = [];
  private pendingCommits: PendingCommit[] = [];
  private commitLatencyTotalMs = 0;
  private commitLatencyMaxMs: number | undefined;
  private committedBatches = 0;
  private lastPollTimeMs = 0;
  private nextLogCleanMs = 0;
  private shutdownDeadlineMs: number | undefined;
  private shutdownComplete = false;
  private initialized = false;

  constructor(options: KafkaRaftClientOptions) {
    this.options = options;
    this.config = resolveQuorumConfig(options.config);
    this.log = options.log;
    this.network = options.network;
    this.logger = (options.logger ?? silentLogger).child({ component: 'raft' });
    this.listenerName = options.listenerName ?? DEFAULT_CONTROLLER_LISTENER_NAME;
    this.localDirectoryId = options.directoryId ?? Uuid.ZERO;
    this.rpcVersions = { ...DEFAULT_RPC_VERSIONS, ...options.rpcVersions };
    this.topic = options.topic ?? METADATA_TOPIC;
    const nodeId = options.nodeId;
    this.localEndpoints =
      options.localEndpoints ?? (nodeId === undefined ? Endpoints.EMPTY : options.voters.listeners(nodeId));
    if (nodeId !== undefined && (!Number.isSafeInteger(nodeId) || nodeId < 0)) {
      throw new InvalidConfigurationError(`node id must be a non-negative integer, got ${nodeId}`);
    }
    const kraftVersion = options.kraftVersion ?? 0;
    this.kraftVersion = kraftVersion;
    this.quorum = new QuorumState({
      localId: nodeId,
      localDirectoryId: this.localDirectoryId,
      localEndpoints: this.localEndpoints,
      voters: () => options.voters,
      electionTimeoutMs: this.config.electionTimeoutMs,
      fetchTimeoutMs: this.config.fetchTimeoutMs,
      store: options.quorumStateStore,
      random: options.random,
      kraftVersion: () => kraftVersion,
      logger: this.logger.child({ component: 'quorum-state' }),
    });
    this.requestManager = new RequestManager({
      retryBackoffMs: this.config.retryBackoffMs,
      requestTimeoutMs: this.config.requestTimeoutMs,
      random: options.random,
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
    for (const node of this.options.voters.voterNodes()) {
      const address = node.listeners.address(this.listenerName) ?? node.listeners.firstAddress();
      if (address !== undefined && node.voterKey.id !== this.options.nodeId) {
        this.network.updateEndpoint(node.voterKey.id, address);
      }
    }
    this.quorum.initialize({ offset: this.log.endOffset(), epoch: this.log.lastFetchedEpoch() }, nowMs);
    this.initialized = true;
    this.lastPollTimeMs = nowMs;
    this.nextLogCleanMs = nowMs + this.config.logCleanIntervalMs;
    if (this.quorum.isOnlyVoter()) this.campaignAsOnlyVoter(nowMs);
  }

  /**
   * Kafka: "A single-voter quorum becomes Candidate right away at initialize", from whatever state
   * the stored election left: after a clean shutdown the former leader restarts Resigned, and
   * waiting out its election timeout would only delay the one possible leader.
   */
  private campaignAsOnlyVoter(nowMs: number): void {
    if (this.quorum.isUnattached() || this.quorum.isFollower() || this.quorum.isResigned()) {
      this.transitionToProspective(nowMs);
      this.maybeTransitionToCandidate(nowMs);
    } else {
      // Restarted Candidate (it had voted for itself): its own vote already wins.
      this.maybeTransitionToLeader(nowMs);
    }
  }

  /** Enqueues an inbound request; it is handled by the next `poll`. */
  handleRequest(request: InboundRequest, _nowMs: number): void {
    this.enqueue({ kind: 'request', request });
  }

  /** Enqueues an inbound response; it is handled by the next `poll`. */
  handleResponse(response: InboundResponse, _nowMs: number): void {
    this.enqueue({ kind: 'response', response });
  }

  private enqueue(message: InboundMessage): void {
    if (this.inbound.length >= MAX_INBOUND_QUEUE_SIZE) {
      this.logger.warn({ queued: this.inbound.length }, 'inbound queue full; dropping a message');
      return;
    }
    this.inbound.push(message);
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
    let timeoutMs = this.pollState(nowMs);
    timeoutMs = Math.min(timeoutMs, this.expireParkedFetches(nowMs));
    timeoutMs = Math.min(timeoutMs, this.maybeCleanLog(nowMs));
    this.pollListeners();
    this.maybeCompleteShutdown(nowMs);
    if (this.inbound.length > 0 || this.needsFlush()) timeoutMs = 0;
    return nowMs + timeoutMs;
  }

  /** True when appended data is not yet durable: the driver must flush and call `onLogFlushed`. */
  needsFlush(): boolean {
    return this.log.lastFlushedOffset() < this.log.endOffset();
  }

  /** The end offset a flush must make durable (everything appended so far). */
  flushTargetOffset(): number {
    return this.log.endOffset();
  }

  /** The driver flushed the log up to `flushedOffset`. A leader may now count it toward the HWM. */
  onLogFlushed(flushedOffset: number, nowMs: number): void {
    invariant(this.initialized, () => 'onLogFlushed before initialize');
    if (!this.quorum.isLeader()) return;
    const durable = Math.min(flushedOffset, this.log.lastFlushedOffset(), this.log.endOffset());
    const leader = this.quorum.leaderStateOrThrow();
    if (leader.updateLocalState(durable, nowMs)) this.onLeaderHighWatermarkChanged(leader, nowMs);
  }

  // --- RaftClient API -----------------------------------------------------------------------

  register(listener: Listener): void {
    this.pendingRegistrations.push({ listener, register: true });
  }

  unregister(listener: Listener): void {
    this.pendingRegistrations.push({ listener, register: false });
  }

  highWatermark(): number | undefined {
    return this.initialized ? this.quorum.highWatermark() : undefined;
  }

  leaderAndEpoch(): LeaderAndEpoch {
    return this.quorum.leaderAndEpoch();
  }

  nodeId(): number | undefined {
    return this.options.nodeId;
  }

  prepareAppend(epoch: number, records: readonly Buffer[]): number {
    return this.append(epoch, records, true);
  }

  schedulePreparedAppend(): void {
    if (this.quorum.isLeader()) this.quorum.leaderStateOrThrow().accumulator.allowDrain();
  }

  scheduleAppend(epoch: number, records: readonly Buffer[]): number {
    return this.append(epoch, records, false);
  }

  private append(epoch: number, records: readonly Buffer[], delayDrain: boolean): number {
    if (!this.initialized || !this.quorum.isLeader() || this.shutdownDeadlineMs !== undefined) {
      throw new NotLeaderError(`node ${this.options.nodeId} is not the leader of epoch ${epoch}`, epoch);
    }
    const leader = this.quorum.leaderStateOrThrow();
    if (epoch !== leader.epoch) {
      throw new NotLeaderError(`epoch ${epoch} is not the current leader epoch ${leader.epoch}`, epoch);
    }
    return leader.accumulator.append(epoch, records, this.lastPollTimeMs, delayDrain);
  }

  resign(epoch: number): void {
    const current = this.quorum.epoch();
    invariant(
      epoch <= current,
      () => `cannot resign epoch ${epoch}, which is above the current epoch ${current}`,
    );
    if (epoch === current && this.quorum.isLeader()) this.resignLeadership(this.lastPollTimeMs);
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
    return raw === undefined ? undefined : new RecordsSnapshotWriter(raw, lastContainedLogTimestamp);
  }

  private isBatchAligned(offset: number): boolean {
    if (offset >= this.log.endOffset() || offset === this.log.startOffset()) return true;
    const first = firstBatchBaseOffset(this.log.read(offset, 'uncommitted', 1).records);
    return first === offset;
  }

  latestSnapshotId(): OffsetAndEpoch | undefined {
    return this.log.latestSnapshotId();
  }

  logEndOffset(): number {
    return this.log.endOffset();
  }

  shutdown(timeoutMs: number, nowMs: number): void {
    if (this.shutdownDeadlineMs !== undefined) return;
    this.shutdownDeadlineMs = nowMs + timeoutMs;
    this.logger.info({ timeoutMs }, 'beginning graceful shutdown');
    if (this.quorum.isLeader()) this.resignLeadership(nowMs);
  }

  isShutdownComplete(): boolean {
    return this.shutdownComplete;
  }

  /** The quorum state machine (read-only use: tests, simulation invariants, metrics). */
  quorumState(): QuorumState {
    return this.quorum;
  }

  observableState(): RaftClientObservableState {
    const state = this.quorum.state();
    return {
      role: state.name,
      epoch: state.epoch,
      leaderId: state.leaderAndEpoch().leaderId,
      votedId: state.election().votedKey?.id,
      highWatermark: state.highWatermark(),
      logStartOffset: this.log.startOffset(),
      logEndOffset: this.log.endOffset(),
      lastFlushedOffset: this.log.lastFlushedOffset(),
      lastFetchedEpoch: this.log.lastFetchedEpoch(),
      numberOfVoters: this.options.voters.size(),
      commitLatencyAvgMs:
        this.committedBatches === 0 ? undefined : this.commitLatencyTotalMs / this.committedBatches,
      commitLatencyMaxMs: this.commitLatencyMaxMs,
      committedBatches: this.committedBatches,
      isShuttingDown: this.shutdownDeadlineMs !== undefined,
    };
  }

  // --- state polling ------------------------------------------------------------------------

  private pollState(nowMs: number): number {
    let timeoutMs = Number.POSITIVE_INFINITY;
    for (let round = 0; round < MAX_STATE_POLLS_PER_POLL; round += 1) {
      const before = this.quorum.state();
      timeoutMs = this.pollCurrentState(nowMs);
      if (this.quorum.state() === before) return timeoutMs;
    }
    return 0;
  }

  private pollCurrentState(nowMs: number): number {
    const state = this.quorum.state();
    switch (state.name) {
      case 'Leader':
        return this.pollLeader(nowMs);
      case 'Candidate':
        return this.pollCandidate(nowMs);
      case 'Prospective':
        return this.pollProspective(nowMs);
      case 'Follower':
        return this.pollFollower(nowMs);
      case 'Unattached':
        return this.pollUnattached(nowMs);
      case 'Resigned':
        return this.pollResigned(nowMs);
    }
  }

  private pollLeader(nowMs: number): number {
    const leader = this.quorum.leaderStateOrThrow();
    if (this.shutdownDeadlineMs !== undefined) {
      // Won an election that was still running when shutdown began: hand leadership on at once.
      this.resignLeadership(nowMs);
      return 0;
    }
    const checkQuorumMs = leader.timeUntilCheckQuorumExpires(nowMs);
    if (checkQuorumMs === 0) {
      this.logger.info(
        { epoch: leader.epoch },
        'check-quorum expired: a majority has not fetched; resigning',
      );
      this.resignLeadership(nowMs);
      return 0;
    }
    this.maybeAppendBatches(leader, nowMs);
    if (leader.timeUntilBeginQuorumEpochTimerExpires(nowMs) === 0) {
      for (const voterId of leader.nonAcknowledgingVoters(nowMs)) {
        if (this.requestManager.isReady(voterId, nowMs)) this.sendBeginQuorumEpoch(leader, voterId, nowMs);
      }
      leader.resetBeginQuorumEpochTimer(nowMs);
    }
    leader.expireObservers(nowMs);
    return Math.min(
      checkQuorumMs,
      leader.timeUntilBeginQuorumEpochTimerExpires(nowMs),
      leader.accumulator.timeUntilDrainMs(nowMs),
    );
  }

  private pollCandidate(nowMs: number): number {
    const candidate = this.quorum.candidateStateOrThrow();
    if (candidate.hasElectionTimeoutExpired(nowMs)) {
      this.logger.info({ epoch: candidate.epoch }, 'election timed out; back to pre-vote');
      this.transitionToProspective(nowMs);
      return 0;
    }
    const unrecorded = candidate.epochElection.unrecordedVoters();
    this.sendVoteRequests(unrecorded, candidate.epoch, false, nowMs);
    return Math.min(candidate.remainingElectionTimeMs(nowMs), this.timeUntilAnyReadyMs(unrecorded, nowMs));
  }

  private pollProspective(nowMs: number): number {
    const prospective = this.quorum.prospectiveStateOrThrow();
    if (this.maybeTransitionToCandidate(nowMs)) return 0;
    if (prospective.hasElectionTimeoutExpired(nowMs)) {
      this.logger.info({ epoch: prospective.epoch }, 'pre-vote timed out before a majority granted');
      this.prospectiveTransitionAfterElectionLoss(nowMs);
      return 0;
    }
    const unrecorded = prospective.epochElection.unrecordedVoters();
    this.sendVoteRequests(unrecorded, prospective.epoch, true, nowMs);
    return Math.min(prospective.remainingElectionTimeMs(nowMs), this.timeUntilAnyReadyMs(unrecorded, nowMs));
  }

  private pollUnattached(nowMs: number): number {
    const unattached = this.quorum.unattachedStateOrThrow();
    if (this.quorum.isVoter()) {
      if (unattached.hasElectionTimeoutExpired(nowMs)) {
        this.transitionToProspective(nowMs);
        return 0;
      }
      return unattached.remainingElectionTimeMs(nowMs);
    }
    // An observer without a leader asks a voter (any Fetch answer names the leader).
    return this.pollObserverDiscovery(nowMs);
  }

  private pollResigned(nowMs: number): number {
    const resigned = this.quorum.resignedStateOrThrow();
    if (resigned.hasElectionTimeoutExpired(nowMs)) {
      this.transitionToUnattached(resigned.epoch + 1, undefined, nowMs);
      return 0;
    }
    for (const voterId of resigned.unackedVoterIds()) {
      if (!this.requestManager.isReady(voterId, nowMs)) continue;
      const data = buildEndQuorumEpochRequest({
        topic: this.topic,
        clusterId: this.clusterId(),
        leaderId: resigned.localId,
        epoch: resigned.epoch,
        preferredSuccessors: resigned.preferredSuccessors,
        leaderEndpoints: this.localEndpoints,
      });
      this.sendRequest(
        voterId,
        RaftApiKey.END_QUORUM_EPOCH,
        this.rpcVersions.endQuorumEpoch,
        data,
        resigned.epoch,
        false,
        nowMs,
      );
    }
    return Math.min(
      resigned.remainingElectionTimeMs(nowMs),
      this.timeUntilAnyReadyMs(resigned.unackedVoterIds(), nowMs),
    );
  }

  private pollFollower(nowMs: number): number {
    const follower = this.quorum.followerStateOrThrow();
    if (this.quorum.isVoter() && follower.hasFetchTimeoutExpired(nowMs)) {
      this.logger.info(
        { epoch: follower.epoch, leaderId: follower.leaderId },
        'fetch timeout: starting pre-vote',
      );
      this.transitionToProspective(nowMs);
      return 0;
    }
    // Durability: the next Fetch reports our end offset, so it waits for the flush.
    if (this.needsFlush()) return 0;
    const leaderId = follower.leaderId;
    let target: number | undefined = leaderId;
    if (!this.requestManager.isReady(leaderId, nowMs)) {
      target = undefined;
      if (this.quorum.isObserver() && this.requestManager.isBackingOff(leaderId, nowMs)) {
        // The leader may be gone: ask a voter, whose answer names the current leader.
        target = this.requestManager.findReadyNode(this.otherVoterIds(), nowMs);
      }
    }
    if (target !== undefined) this.sendFetchOrFetchSnapshot(follower, target, nowMs);
    const fetchTimeoutMs = this.quorum.isVoter()
      ? follower.remainingFetchTimeMs(nowMs)
      : Number.POSITIVE_INFINITY;
    return Math.min(fetchTimeoutMs, Math.max(1, this.requestManager.remainingMs(leaderId, nowMs)));
  }

  private pollObserverDiscovery(nowMs: number): number {
    if (this.needsFlush()) return 0;
    const voters = this.otherVoterIds();
    const target = this.requestManager.findReadyNode(voters, nowMs);
    if (target !== undefined) this.sendFetch(target, this.quorum.epoch(), nowMs);
    return this.timeUntilAnyReadyMs(voters, nowMs);
  }

  /** When the first of `nodeIds` (other than us) can take a request again (backoff or timeout). */
  private timeUntilAnyReadyMs(nodeIds: readonly number[], nowMs: number): number {
    let soonestMs = Number.POSITIVE_INFINITY;
    for (const nodeId of nodeIds) {
      if (nodeId !== this.options.nodeId)
        soonestMs = Math.min(soonestMs, Math.max(1, this.requestManager.remainingMs(nodeId, nowMs)));
    }
    return soonestMs;
  }

  private otherVoterIds(): number[] {
    return this.options.voters.voterIds().filter((id) => id !== this.options.nodeId);
  }

  // --- elections ----------------------------------------------------------------------------

  /** Prospective → Candidate once a majority granted the pre-vote; returns true if it moved. */
  private maybeTransitionToCandidate(nowMs: number): boolean {
    if (!this.quorum.isProspective()) return false;
    if (!this.quorum.prospectiveStateOrThrow().epochElection.isVoteGranted()) return false;
    const previous = this.quorum.state();
    this.quorum.transitionToCandidate(nowMs);
    this.onStateChanged(previous, nowMs);
    this.maybeTransitionToLeader(nowMs);
    return true;
  }

  private maybeTransitionToLeader(nowMs: number): void {
    if (!this.quorum.isCandidate()) return;
    const candidate = this.quorum.candidateStateOrThrow();
    if (!candidate.epochElection.isVoteGranted()) return;
    this.becomeLeader(nowMs);
  }

  /** Candidate → Leader: epoch start batch (LeaderChangeMessage), new accumulator, reset connections. */
  private becomeLeader(nowMs: number): void {
    const previous = this.quorum.state();
    const epochStartOffset = this.log.endOffset();
    const candidate = this.quorum.candidateStateOrThrow();
    const epoch = candidate.epoch;
    const accumulator = new BatchAccumulator({
      epoch,
      baseOffset: epochStartOffset + 1,
      lingerMs: this.config.appendLingerMs,
    });
    const leader = this.quorum.transitionToLeader(epochStartOffset, accumulator, nowMs);
    this.log.initializeLeaderEpoch(epoch);
    const leaderChange = this.buildEpochStartBatch(leader, epochStartOffset, nowMs);
    const info = this.log.appendAsLeader(leaderChange, epoch);
    invariant(
      info.firstOffset === epochStartOffset,
      () => `leader change batch at ${info.firstOffset}, expected ${epochStartOffset}`,
    );
    this.onStateChanged(previous, nowMs);
    this.logger.info({ epoch, epochStartOffset }, 'became leader');
  }

  /**
   * The start-of-epoch control batch: LeaderChangeMessage (always at version 0, so no directory
   * ids), plus KRaftVersionRecord and VotersRecord under kraft.version 1. Kafka adds those two
   * only when the log has no VotersRecord yet or the leader's endpoints changed; with static
   * voters this core restates them at every epoch start, which is equivalent for readers.
   */
  private buildEpochStartBatch(leader: LeaderState, epochStartOffset: number, nowMs: number): MemoryRecords {
    const toVoter = (voterId: number) => ({ voterId, voterDirectoryId: Uuid.ZERO });
    const records: ControlRecordMessage[] = [
      {
        type: ControlRecordType.LEADER_CHANGE,
        message: {
          version: 0,
          leaderId: leader.localKey.id,
          voters: this.options.voters.voterIds().map(toVoter),
          grantingVoters: leader.grantingVoters.map(toVoter),
        },
      },
    ];
    if (this.kraftVersion >= 1) {
      records.push(
        { type: ControlRecordType.KRAFT_VERSION, message: { version: 0, kRaftVersion: this.kraftVersion } },
        {
          type: ControlRecordType.KRAFT_VOTERS,
          message: {
            version: 0,
            voters: this.options.voters.voterNodes().map((node) => ({
              voterId: node.voterKey.id,
              voterDirectoryId: node.voterKey.directoryIdOrZero(),
              endpoints: listenersOf(node.listeners),
              kRaftVersionFeature: {
                minSupportedVersion: node.supportedKRaftVersion.minVersion,
                maxSupportedVersion: node.supportedKRaftVersion.maxVersion,
              },
            })),
          },
        },
      );
    }
    return buildControlBatch(
      { baseOffset: epochStartOffset, partitionLeaderEpoch: leader.epoch, timestamp: nowMs },
      records,
    );
  }

  private prospectiveTransitionAfterElectionLoss(nowMs: number): void {
    const prospective = this.quorum.prospectiveStateOrThrow();
    const leaderId = prospective.leaderId;
    if (leaderId !== undefined && this.quorum.canFollow(leaderId, prospective.leaderEndpoints())) {
      this.transitionToFollower(prospective.epoch, leaderId, prospective.leaderEndpoints(), nowMs);
    } else {
      this.transitionToUnattached(prospective.epoch, leaderId, nowMs);
    }
  }

  private resignLeadership(nowMs: number): void {
    const leader = this.quorum.leaderStateOrThrow();
    const successors = leader.nonLeaderVotersByDescendingFetchOffset();
    this.quorum.transitionToResigned(successors, nowMs);
    this.onStateChanged(leader, nowMs);
    this.requestManager.resetAll();
    this.outstanding.clear();
  }

  private sendVoteRequests(
    voterIds: readonly number[],
    epoch: number,
    preVote: boolean,
    nowMs: number,
  ): void {
    const localKey = this.quorum.localReplicaKeyOrThrow();
    for (const voterId of voterIds) {
      if (voterId === localKey.id || !this.requestManager.isReady(voterId, nowMs)) continue;
      const voterKey = this.options.voters.voterNode(voterId)?.voterKey ?? ReplicaKey.of(voterId);
      const data = buildVoteRequest({
        topic: this.topic,
        clusterId: this.clusterId(),
        candidateKey: localKey,
        voterKey,
        epoch,
        lastEpoch: this.log.lastFetchedEpoch(),
        lastOffset: this.log.endOffset(),
        preVote,
      });
      this.sendRequest(voterId, RaftApiKey.VOTE, this.rpcVersions.vote, data, epoch, preVote, nowMs);
    }
  }

  // --- transitions with side effects --------------------------------------------------------

  private transitionToFollower(epoch: number, leaderId: number, endpoints: Endpoints, nowMs: number): void {
    const previous = this.quorum.state();
    this.quorum.transitionToFollower(epoch, leaderId, endpoints, nowMs);
    const address = endpoints.address(this.listenerName) ?? endpoints.firstAddress();
    if (address !== undefined) this.network.updateEndpoint(leaderId, address);
    this.onStateChanged(previous, nowMs);
  }

  private transitionToProspective(nowMs: number): void {
    const previous = this.quorum.state();
    this.quorum.transitionToProspective(nowMs);
    this.onStateChanged(previous, nowMs);
  }

  private transitionToUnattached(epoch: number, leaderId: number | undefined, nowMs: number): void {
    const previous = this.quorum.state();
    this.quorum.transitionToUnattached(epoch, leaderId, nowMs);
    this.onStateChanged(previous, nowMs);
  }

  /** Cleans up what the previous state owned. */
  private onStateChanged(previous: EpochState, nowMs: number): void {
    const current = this.quorum.state();
    if (previous === current) return;
    if (current.name === 'Prospective' || current.name === 'Candidate' || current.name === 'Leader') {
      // A new election or leadership starts with fresh connections: answers to the previous
      // state's requests are stale, and nothing may block the new round of requests.
      this.requestManager.resetAll();
      this.outstanding.clear();
    }
    if (previous instanceof LeaderState) {
      const dropped = previous.accumulator.close();
      if (dropped > 0)
        this.logger.warn(
          { epoch: previous.epoch, dropped },
          'dropped unappended records on losing leadership',
        );
      this.pendingCommits = [];
      this.completeParkedFetchesWithError(nowMs);
    }
    if (previous instanceof FollowerState && previous.fetchingSnapshot !== undefined) {
      const stillFetching = current instanceof FollowerState && current.leaderId === previous.leaderId;
      if (stillFetching) current.fetchingSnapshot = previous.fetchingSnapshot;
      else previous.fetchingSnapshot.close();
      previous.fetchingSnapshot = undefined;
    }
  }

  /**
   * Acts on a leader and epoch learned from a request or response (Kafka's `maybeTransition`).
   * Throws on a different leader for our own epoch: that is two leaders in one epoch.
   */
  private maybeTransition(
    leaderId: number | undefined,
    epoch: number,
    endpoints: Endpoints,
    nowMs: number,
  ): void {
    const current = this.quorum.state();
    if (epoch === current.epoch && leaderId !== undefined) {
      const known = current.leaderAndEpoch().leaderId;
      invariant(
        known === undefined || known === leaderId,
        () => `split brain: leader ${leaderId} in epoch ${epoch}, but this node knows leader ${known}`,
      );
    }
    if (epoch < current.epoch) return;
    if (leaderId !== undefined && leaderId !== this.options.nodeId) {
      if (this.quorum.canFollow(leaderId, endpoints)) {
        const isNewLeader = !(current instanceof FollowerState) || epoch > current.epoch;
        const hasNewEndpoints =
          current instanceof FollowerState &&
          !endpoints.isEmpty() &&
          !endpoints.equals(current.leaderEndpoints());
        if (isNewLeader || hasNewEndpoints) this.transitionToFollower(epoch, leaderId, endpoints, nowMs);
      } else if (epoch > current.epoch) {
        this.transitionToUnattached(epoch, leaderId, nowMs);
      }
    } else if (epoch > current.epoch) {
      this.transitionToUnattached(epoch, undefined, nowMs);
    }
  }

  /**
   * Kafka's `maybeHandleCommonResponse`: returns true/false when the response is fully handled
   * (with that success flag), or undefined when the caller goes on.
   */
  private maybeHandleCommonResponse(
    errorCode: number,
    leaderId: number | undefined,
    epoch: number,
    endpoints: Endpoints,
    nowMs: number,
  ): boolean | undefined {
    const current = this.quorum.epoch();
    if (epoch < current || errorCode === Errors.UNKNOWN_LEADER_EPOCH.code) return true;
    const moves =
      epoch > current ||
      errorCode === Errors.FENCED_LEADER_EPOCH.code ||
      errorCode === Errors.NOT_LEADER_OR_FOLLOWER.code ||
      (leaderId !== undefined && !this.quorum.hasLeader());
    if (moves) {
      const before = this.quorum.state();
      this.maybeTransition(leaderId, epoch, endpoints, nowMs);
      // An error that taught us nothing new (e.g. NOT_LEADER_OR_FOLLOWER naming the leader we
      // already follow, or a resigned leader) backs off instead of retrying at once.
      return errorCode === Errors.NONE.code || this.quorum.state() !== before;
    }
    if (errorCode === Errors.BROKER_NOT_AVAILABLE.code) return false;
    return undefined;
  }

  // --- requests -----------------------------------------------------------------------------

  private handleInboundRequest(request: InboundRequest, nowMs: number): void {
    switch (request.apiKey) {
      case RaftApiKey.VOTE:
        this.network.sendResponse(request, this.handleVoteRequest(request, nowMs));
        return;
      case RaftApiKey.BEGIN_QUORUM_EPOCH:
        this.network.sendResponse(request, this.handleBeginQuorumEpochRequest(request, nowMs));
        return;
      case RaftApiKey.END_QUORUM_EPOCH:
        this.network.sendResponse(request, this.handleEndQuorumEpochRequest(request, nowMs));
        return;
      case RaftApiKey.FETCH:
        this.handleFetchRequest(request, nowMs);
        return;
      case RaftApiKey.FETCH_SNAPSHOT:
        this.network.sendResponse(request, this.handleFetchSnapshotRequest(request, nowMs));
        return;
      case RaftApiKey.DESCRIBE_QUORUM:
        this.network.sendResponse(request, this.handleDescribeQuorumRequest(request, nowMs));
        return;
      default:
        this.logger.warn({ apiKey: request.apiKey }, 'ignoring a request the raft core does not handle');
    }
  }

  private clusterId(): string | null {
    return this.options.clusterId ?? null;
  }

  private hasValidClusterId(requestClusterId: string | null | undefined): boolean {
    const ours = this.options.clusterId;
    return (
      requestClusterId === null ||
      requestClusterId === undefined ||
      ours === undefined ||
      ours === null ||
      requestClusterId === ours
    );
  }

  /** One topic and it is ours: by id when it carries a non-zero one (Fetch v13+), else by name. */
  private isReplicatedTopic(
    topics: readonly { topicName?: string; name?: string; topic?: string; topicId?: Uuid }[],
  ): boolean {
    const topic = topics[0];
    if (topics.length !== 1 || topic === undefined) return false;
    if (topic.topicId !== undefined && !topic.topicId.equals(Uuid.ZERO)) {
      return topic.topicId.equals(this.topic.topicId);
    }
    return (topic.topicName ?? topic.name ?? topic.topic) === this.topic.name;
  }

  private voteResponse(
    apiVersion: number,
    errorCode: number,
    partitionErrorCode: number,
    voteGranted: boolean,
  ): VoteResponseData {
    return buildVoteResponse({
      topic: this.topic,
      apiVersion,
      errorCode,
      partitionErrorCode,
      leader: this.quorum.leaderAndEpoch(),
      voteGranted,
      leaderEndpoints: this.quorum.state().leaderEndpoints(),
      listenerName: this.listenerName,
    });
  }

  private handleVoteRequest(request: InboundRequest, nowMs: number): VoteResponseData {
    const data = request.data as VoteRequestData;
    if (!this.hasValidClusterId(data.clusterId))
      return this.voteResponse(request.apiVersion, Errors.INCONSISTENT_CLUSTER_ID.code, 0, false);
    const partition = singlePartition(data.topics);
    if (
      partition === undefined ||
      !this.isReplicatedTopic(data.topics) ||
      partition.partitionIndex !== METADATA_PARTITION_INDEX
    ) {
      return this.voteResponse(request.apiVersion, Errors.INVALID_REQUEST.code, 0, false);
    }
    const candidateEpoch = partition.replicaEpoch;
    const lastOffset = Number(partition.lastOffset);
    const lastEpoch = partition.lastOffsetEpoch;
    const preVote = partition.preVote;
    const epochRuleBroken = preVote ? lastEpoch > candidateEpoch : lastEpoch >= candidateEpoch;
    if (lastOffset < 0 || lastEpoch < 0 || epochRuleBroken || !Number.isSafeInteger(lastOffset)) {
      return this.voteResponse(request.apiVersion, Errors.NONE.code, Errors.INVALID_REQUEST.code, false);
    }
    if (candidateEpoch < this.quorum.epoch())
      return this.voteResponse(request.apiVersion, Errors.NONE.code, Errors.FENCED_LEADER_EPOCH.code, false);
    if (!preVote && candidateEpoch > this.quorum.epoch())
      this.transitionToUnattached(candidateEpoch, undefined, nowMs);
    if (!this.isValidVoterKey(data.voterId, partition.voterDirectoryId)) {
      return this.voteResponse(request.apiVersion, Errors.NONE.code, Errors.INVALID_VOTER_KEY.code, false);
    }
    const candidateKey = ReplicaKey.of(partition.replicaId, partition.replicaDirectoryId);
    const ours: OffsetAndEpoch = { offset: this.log.endOffset(), epoch: this.log.lastFetchedEpoch() };
    const isLogUpToDate = compareOffsetAndEpoch({ offset: lastOffset, epoch: lastEpoch }, ours) >= 0;
    const voteGranted = this.quorum.state().canGrantVote(candidateKey, isLogUpToDate, preVote);
    if (
      voteGranted &&
      !preVote &&
      (this.quorum.isUnattachedNotVoted() || this.quorum.isProspectiveNotVoted())
    ) {
      const previous = this.quorum.state();
      this.quorum.transitionToUnattachedVotedState(candidateEpoch, candidateKey, nowMs);
      this.onStateChanged(previous, nowMs);
    }
    this.logger.debug(
      { remoteNodeId: candidateKey.id, epoch: candidateEpoch, preVote, voteGranted, isLogUpToDate },
      'vote request handled',
    );
    return this.voteResponse(request.apiVersion, Errors.NONE.code, Errors.NONE.code, voteGranted);
  }

  /** A request naming a voter key must name ours (KIP-853); -1 means "not given". */
  private isValidVoterKey(voterId: number, voterDirectoryId: Uuid): boolean {
    if (voterId < 0) return true;
    const local = this.quorum.localReplicaKey();
    return local?.matches(ReplicaKey.of(voterId, voterDirectoryId)) === true;
  }

  private quorumEpochResponse(
    apiVersion: number,
    errorCode: number,
    partitionErrorCode: number,
  ): BeginQuorumEpochResponseData {
    return buildQuorumEpochResponse({
      topic: this.topic,
      apiVersion,
      errorCode,
      partitionErrorCode,
      leader: this.quorum.leaderAndEpoch(),
      leaderEndpoints: this.quorum.state().leaderEndpoints(),
      listenerName: this.listenerName,
    });
  }

  private handleBeginQuorumEpochRequest(
    request: InboundRequest,
    nowMs: number,
  ): BeginQuorumEpochResponseData {
    const data = request.data as BeginQuorumEpochRequestData;
    if (!this.hasValidClusterId(data.clusterId))
      return this.quorumEpochResponse(request.apiVersion, Errors.INCONSISTENT_CLUSTER_ID.code, 0);
    const partition = singlePartition(data.topics);
    if (partition === undefined || !this.isReplicatedTopic(data.topics))
      return this.quorumEpochResponse(request.apiVersion, Errors.INVALID_REQUEST.code, 0);
    if (partition.leaderEpoch < this.quorum.epoch()) {
      return this.quorumEpochResponse(request.apiVersion, Errors.NONE.code, Errors.FENCED_LEADER_EPOCH.code);
    }
    if (!this.isValidVoterKey(data.voterId, partition.voterDirectoryId)) {
      return this.quorumEpochResponse(request.apiVersion, Errors.NONE.code, Errors.INVALID_VOTER_KEY.code);
    }
    if (partition.leaderId === this.options.nodeId || partition.leaderId < 0) {
      return this.quorumEpochResponse(request.apiVersion, Errors.NONE.code, Errors.INVALID_REQUEST.code);
    }
    this.maybeTransition(
      partition.leaderId,
      partition.leaderEpoch,
      endpointsFromListeners(data.leaderEndpoints),
      nowMs,
    );
    return this.quorumEpochResponse(request.apiVersion, Errors.NONE.code, Errors.NONE.code);
  }

  private handleEndQuorumEpochRequest(request: InboundRequest, nowMs: number): EndQuorumEpochResponseData {
    const data = request.data as EndQuorumEpochRequestData;
    if (!this.hasValidClusterId(data.clusterId))
      return this.quorumEpochResponse(request.apiVersion, Errors.INCONSISTENT_CLUSTER_ID.code, 0);
    const partition = singlePartition(data.topics);
    if (partition === undefined || !this.isReplicatedTopic(data.topics))
      return this.quorumEpochResponse(request.apiVersion, Errors.INVALID_REQUEST.code, 0);
    if (partition.leaderEpoch < this.quorum.epoch()) {
      return this.quorumEpochResponse(request.apiVersion, Errors.NONE.code, Errors.FENCED_LEADER_EPOCH.code);
    }
    if (partition.leaderId === this.options.nodeId || partition.leaderId < 0) {
      return this.quorumEpochResponse(request.apiVersion, Errors.NONE.code, Errors.INVALID_REQUEST.code);
    }
    this.maybeTransition(
      partition.leaderId,
      partition.leaderEpoch,
      endpointsFromListeners(data.leaderEndpoints),
      nowMs,
    );
    const state = this.quorum.state();
    if (state instanceof FollowerState && state.leaderId === partition.leaderId && this.quorum.isVoter()) {
      const successors =
        request.apiVersion >= 1
          ? partition.preferredCandidates.map((candidate) =>
              ReplicaKey.of(candidate.candidateId, candidate.candidateDirectoryId),
            )
          : partition.preferredSuccessors.map((id) => ReplicaKey.of(id));
      const backoffMs = this.endEpochElectionBackoffMs(successors);
      this.logger.debug({ epoch: state.epoch, backoffMs }, 'leader resigned: overriding the fetch timeout');
      state.overrideFetchTimeout(nowMs, backoffMs);
    }
    return this.quorumEpochResponse(request.apiVersion, Errors.NONE.code, Errors.NONE.code);
  }

  /** The most up-to-date successor campaigns at once; the others wait exponentially longer (KIP-595). */
  private endEpochElectionBackoffMs(successors: readonly ReplicaKey[]): number {
    const local = this.quorum.localReplicaKeyOrThrow();
    const position = successors.findIndex((key) => key.matches(local));
    if (position < 0) return this.config.electionBackoffMaxMs;
    return strictExponentialElectionBackoffMs(position, successors.length, this.config.electionBackoffMaxMs);
  }

  /** FENCED/UNKNOWN epoch, NOT_LEADER_OR_FOLLOWER, or BROKER_NOT_AVAILABLE while shutting down. */
  private validateLeaderOnlyRequest(requestEpoch: number): number {
    const epoch = this.quorum.epoch();
    if (requestEpoch < epoch) return Errors.FENCED_LEADER_EPOCH.code;
    if (requestEpoch > epoch) return Errors.UNKNOWN_LEADER_EPOCH.code;
    if (!this.quorum.isLeader()) return Errors.NOT_LEADER_OR_FOLLOWER.code;
    if (this.shutdownDeadlineMs !== undefined) return Errors.BROKER_NOT_AVAILABLE.code;
    return Errors.NONE.code;
  }

  private fetchErrorResponse(
    apiVersion: number,
    errorCode: number,
    partitionErrorCode?: number,
  ): FetchResponseData {
    if (partitionErrorCode === undefined) {
      return buildFetchResponse({
        topic: this.topic,
        apiVersion,
        errorCode,
        leaderEndpoints: Endpoints.EMPTY,
        listenerName: this.listenerName,
      });
    }
    return buildFetchResponse({
      topic: this.topic,
      apiVersion,
      errorCode: Errors.NONE.code,
      partition: {
        errorCode: partitionErrorCode,
        highWatermark: this.quorum.highWatermark(),
        logStartOffset: this.log.startOffset(),
        leader: this.quorum.leaderAndEpoch(),
        records: null,
      },
      leaderEndpoints: this.quorum.state().leaderEndpoints(),
      listenerName: this.listenerName,
    });
  }

  private handleFetchRequest(request: InboundRequest, nowMs: number): void {
    const data = request.data as FetchRequestData;
    if (!this.hasValidClusterId(data.clusterId)) {
      this.network.sendResponse(
        request,
        this.fetchErrorResponse(request.apiVersion, Errors.INCONSISTENT_CLUSTER_ID.code),
      );
      return;
    }
    const topic = data.topics[0];
    const partition = singlePartition(data.topics);
    const topicMatches =
      request.apiVersion >= 13
        ? topic?.topicId.equals(this.topic.topicId) === true
        : topic?.topic === this.topic.name;
    if (partition === undefined || !topicMatches || partition.partition !== METADATA_PARTITION_INDEX) {
      this.network.sendResponse(
        request,
        this.fetchErrorResponse(request.apiVersion, Errors.INVALID_REQUEST.code),
      );
      return;
    }
    const fetchOffset = Number(partition.fetchOffset);
    const replicaId = request.apiVersion >= 15 ? data.replicaState.replicaId : data.replicaId;
    const invalid =
      data.maxWaitMs < 0 ||
      fetchOffset < 0 ||
      !Number.isSafeInteger(fetchOffset) ||
      partition.lastFetchedEpoch < 0 ||
      partition.lastFetchedEpoch > partition.currentLeaderEpoch ||
      (replicaId === this.options.nodeId && replicaId !== undefined);
    if (invalid) {
      this.network.sendResponse(
        request,
        this.fetchErrorResponse(request.apiVersion, Errors.NONE.code, Errors.INVALID_REQUEST.code),
      );
      return;
    }
    const errorCode = this.validateLeaderOnlyRequest(partition.currentLeaderEpoch);
    if (errorCode !== Errors.NONE.code) {
      this.network.sendResponse(
        request,
        this.fetchErrorResponse(request.apiVersion, Errors.NONE.code, errorCode),
      );
      return;
    }
    const replicaKey = replicaId >= 0 ? ReplicaKey.of(replicaId, partition.replicaDirectoryId) : undefined;
    const leader = this.quorum.leaderStateOrThrow();
    if (replicaKey !== undefined) leader.updateCheckQuorumForFollowingVoter(replicaKey, nowMs);
    const parked: ParkedFetch = {
      request,
      replicaKey,
      fetchOffset,
      lastFetchedEpoch: partition.lastFetchedEpoch,
      maxBytes: Math.max(1, Math.min(data.maxBytes, this.config.fetchMaxBytes)),
      epoch: leader.epoch,
      deadlineMs: nowMs + Math.max(0, data.maxWaitMs),
    };
    const result = this.fetchResult(parked, nowMs);
    const followerHighWatermark = partition.highWatermark;
    const followerBehind =
      result.highWatermark !== undefined && followerHighWatermark < BigInt(result.highWatermark);
    const respondNow =
      data.maxWaitMs === 0 ||
      result.errorCode !== Errors.NONE.code ||
      (result.records !== null && result.records.length > 0) ||
      result.divergingEpoch !== undefined ||
      result.snapshotId !== undefined ||
      (request.apiVersion >= 18 && followerBehind);
    if (respondNow || this.parkedFetches.length >= MAX_PARKED_FETCHES) {
      this.network.sendResponse(request, this.fetchResponse(parked, result));
    } else {
      // The empty answer is built only if the wait runs out: new data or a new HWM answers it anew.
      this.parkedFetches.push({ ...parked, emptyResult: result });
    }
  }

  /** Answers a fetch from the leader's log: snapshot id, divergence, or records from the offset. */
  private tryCompleteFetch(fetch: ParkedFetch, nowMs: number): FetchResponseData {
    return this.fetchResponse(fetch, this.fetchResult(fetch, nowMs));
  }

  private fetchResponse(fetch: ParkedFetch, result: FetchPartitionResult): FetchResponseData {
    return buildFetchResponse({
      topic: this.topic,
      apiVersion: fetch.request.apiVersion,
      errorCode: Errors.NONE.code,
      partition: result,
      leaderEndpoints: this.localEndpoints,
      listenerName: this.listenerName,
    });
  }

  /** The partition answer to a fetch; records the follower's progress (which may move the HWM). */
  private fetchResult(fetch: ParkedFetch, nowMs: number): FetchPartitionResult {
    const leader = this.quorum.leaderStateOrThrow();
    const base = {
      errorCode: Errors.NONE.code,
      logStartOffset: this.log.startOffset(),
      leader: leader.leaderAndEpoch(),
      records: null,
    };
    let result: FetchPartitionResult;
    const latestSnapshot = this.log.latestSnapshotId();
    if (
      fetch.fetchOffset === 0 &&
      latestSnapshot !== undefined &&
      !(latestSnapshot.offset === 0 && latestSnapshot.epoch === 0)
    ) {
      result = { ...base, highWatermark: leader.highWatermark(), snapshotId: latestSnapshot };
    } else {
      const validation = this.log.validateOffsetAndEpoch(fetch.fetchOffset, fetch.lastFetchedEpoch);
      if (validation.kind === 'diverging') {
        result = {
          ...base,
          highWatermark: leader.highWatermark(),
          divergingEpoch: validation.offsetAndEpoch,
        };
      } else if (validation.kind === 'snapshot') {
        result = { ...base, highWatermark: leader.highWatermark(), snapshotId: validation.offsetAndEpoch };
      } else {
        // A caught-up follower (the usual long poll) would read nothing: skip the log read.
        const records =
          fetch.fetchOffset >= this.log.endOffset()
            ? EMPTY_RECORDS
            : recordsToBuffer(this.log.read(fetch.fetchOffset, 'uncommitted', fetch.maxBytes).records);
        if (
          fetch.replicaKey !== undefined &&
          leader.updateReplicaState(fetch.replicaKey, nowMs, fetch.fetchOffset, this.log.endOffset())
        ) {
          this.onLeaderHighWatermarkChanged(leader, nowMs, fetch);
        }
        result = { ...base, highWatermark: leader.highWatermark(), records };
      }
    }
    return result;
  }

  /** Long-polling fetches whose wait ran out get the empty answer computed when they were parked. */
  private expireParkedFetches(nowMs: number): number {
    let nextDeadlineMs = Number.POSITIVE_INFINITY;
    const waiting: WaitingFetch[] = [];
    for (const fetch of this.parkedFetches) {
      if (nowMs >= fetch.deadlineMs) {
        this.network.sendResponse(fetch.request, this.fetchResponse(fetch, fetch.emptyResult));
      } else {
        waiting.push(fetch);
        nextDeadlineMs = Math.min(nextDeadlineMs, fetch.deadlineMs - nowMs);
      }
    }
    this.parkedFetches = waiting;
    return nextDeadlineMs;
  }

  /** New data or a new high watermark: parked fetches are answered now. */
  private completeParkedFetches(nowMs: number, except?: ParkedFetch): void {
    if (this.parkedFetches.length === 0 || !this.quorum.isLeader()) return;
    const parked = this.parkedFetches;
    this.parkedFetches = [];
    for (const fetch of parked) {
      if (fetch === except) continue;
      this.network.sendResponse(fetch.request, this.tryCompleteFetch(fetch, nowMs));
    }
  }

  private completeParkedFetchesWithError(_nowMs: number): void {
    const parked = this.parkedFetches;
    this.parkedFetches = [];
    for (const fetch of parked) {
      this.network.sendResponse(
        fetch.request,
        this.fetchErrorResponse(
          fetch.request.apiVersion,
          Errors.NONE.code,
          Errors.NOT_LEADER_OR_FOLLOWER.code,
        ),
      );
    }
  }

  private handleFetchSnapshotRequest(request: InboundRequest, nowMs: number): FetchSnapshotResponseData {
    const data = request.data as FetchSnapshotRequestData;
    const respond = (errorCode: number, partitionErrorCode?: number): FetchSnapshotResponseData =>
      buildFetchSnapshotResponse({
        topic: this.topic,
        apiVersion: request.apiVersion,
        errorCode,
        ...(partitionErrorCode === undefined ? {} : { partitionErrorCode }),
        leader: this.quorum.leaderAndEpoch(),
        leaderEndpoints: this.quorum.state().leaderEndpoints(),
        listenerName: this.listenerName,
      });
    if (!this.hasValidClusterId(data.clusterId)) return respond(Errors.INCONSISTENT_CLUSTER_ID.code);
    const partition = singlePartition(data.topics);
    if (partition === undefined) return respond(Errors.INVALID_REQUEST.code);
    if (data.topics[0]?.name !== this.topic.name || partition.partition !== METADATA_PARTITION_INDEX) {
      return respond(Errors.NONE.code, Errors.UNKNOWN_TOPIC_OR_PARTITION.code);
    }
    const errorCode = this.validateLeaderOnlyRequest(partition.currentLeaderEpoch);
    if (errorCode !== Errors.NONE.code) return respond(Errors.NONE.code, errorCode);
    const snapshotId = { offset: Number(partition.snapshotId.endOffset), epoch: partition.snapshotId.epoch };
    const snapshot = this.log.readSnapshot(snapshotId);
    if (snapshot === undefined) return respond(Errors.NONE.code, Errors.SNAPSHOT_NOT_FOUND.code);
    {
      const size = snapshot.sizeInBytes();
      const position = Number(partition.position);
      if (!Number.isSafeInteger(position) || position < 0 || position >= size) {
        return respond(Errors.NONE.code, Errors.POSITION_OUT_OF_RANGE.code);
      }
      if (data.replicaId >= 0) {
        this.quorum
          .leaderStateOrThrow()
          .updateCheckQuorumForFollowingVoter(
            ReplicaKey.of(data.replicaId, partition.replicaDirectoryId),
            nowMs,
          );
      }
      const maxBytes = Math.max(1, Math.min(data.maxBytes, this.config.fetchSnapshotMaxBytes));
      const bytes = recordsToBuffer(snapshot.slice(position, maxBytes)) ?? Buffer.alloc(0);
      return buildFetchSnapshotResponse({
        topic: this.topic,
        apiVersion: request.apiVersion,
        errorCode: Errors.NONE.code,
        leader: this.quorum.leaderAndEpoch(),
        snapshotId,
        sizeInBytes: size,
        position,
        bytes,
        leaderEndpoints: this.localEndpoints,
        listenerName: this.listenerName,
      });
    }
  }

  private handleDescribeQuorumRequest(request: InboundRequest, nowMs: number) {
    const data = request.data as DescribeQuorumRequestData;
    const partition = singlePartition(data.topics);
    if (
      partition === undefined ||
      !this.isReplicatedTopic(data.topics) ||
      partition.partitionIndex !== METADATA_PARTITION_INDEX
    ) {
      return buildDescribeQuorumResponse({
        topic: this.topic,
        apiVersion: request.apiVersion,
        errorCode: Errors.NONE.code,
        partitionErrorCode: Errors.UNKNOWN_TOPIC_OR_PARTITION.code,
      });
    }
    if (!this.quorum.isLeader()) {
      return buildDescribeQuorumResponse({
        topic: this.topic,
        apiVersion: request.apiVersion,
        errorCode: Errors.NONE.code,
        partitionErrorCode: Errors.NOT_LEADER_OR_FOLLOWER.code,
      });
    }
    const leader = this.quorum.leaderStateOrThrow();
    const toReplica = (state: {
      replicaKey: ReplicaKey;
      endOffset: number | undefined;
      lastFetchTimestampMs: number;
      lastCaughtUpTimestampMs: number;
    }): DescribeQuorumReplica => ({
      replicaId: state.replicaKey.id,
      replicaDirectoryId: state.replicaKey.directoryIdOrZero(),
      logEndOffset: BigInt(state.endOffset ?? -1),
      lastFetchTimestamp: BigInt(state.lastFetchTimestampMs),
      lastCaughtUpTimestamp: BigInt(state.lastCaughtUpTimestampMs),
    });
    return buildDescribeQuorumResponse({
      topic: this.topic,
      apiVersion: request.apiVersion,
      errorCode: Errors.NONE.code,
      leader: leader.leaderAndEpoch(),
      highWatermark: leader.highWatermark() ?? -1,
      voters: leader.describeVoters().map(toReplica),
      observers: leader.describeObservers(nowMs).map(toReplica),
      nodes: this.options.voters
        .voterNodes()
        .filter((node) => !node.listeners.isEmpty())
        .map((node) => ({ nodeId: node.voterKey.id, listeners: listenersOf(node.listeners) })),
    });
  }

  // --- outbound requests and responses ------------------------------------------------------

  private sendRequest(
    destinationId: number,
    apiKey: number,
    apiVersion: number,
    data: unknown,
    epoch: number,
    preVote: boolean,
    nowMs: number,
  ): void {
    const correlationId = this.network.newCorrelationId();
    this.network.send({ correlationId, apiKey, apiVersion, data, createdTimeMs: nowMs, destinationId });
    this.requestManager.onRequestSent(destinationId, correlationId, nowMs);
    this.outstanding.set(destinationId, { correlationId, apiKey, epoch, preVote });
  }

  private sendBeginQuorumEpoch(leader: LeaderState, voterId: number, nowMs: number): void {
    const voterKey = this.options.voters.voterNode(voterId)?.voterKey ?? ReplicaKey.of(voterId);
    const data = buildBeginQuorumEpochRequest({
      topic: this.topic,
      clusterId: this.clusterId(),
      leaderId: leader.localKey.id,
      epoch: leader.epoch,
      voterKey,
      leaderEndpoints: this.localEndpoints,
    });
    this.sendRequest(
      voterId,
      RaftApiKey.BEGIN_QUORUM_EPOCH,
      this.rpcVersions.beginQuorumEpoch,
      data,
      leader.epoch,
      false,
      nowMs,
    );
  }

  private sendFetchOrFetchSnapshot(follower: FollowerState, destinationId: number, nowMs: number): void {
    const snapshot = follower.fetchingSnapshot;
    if (snapshot === undefined || destinationId !== follower.leaderId) {
      this.sendFetch(destinationId, follower.epoch, nowMs);
      return;
    }
    const data = buildFetchSnapshotRequest({
      topic: this.topic,
      clusterId: this.clusterId(),
      replicaKey: this.quorum.localReplicaKey(),
      epoch: follower.epoch,
      snapshotId: snapshot.snapshotId,
      position: snapshot.sizeInBytes(),
      maxBytes: this.config.fetchSnapshotMaxBytes,
    });
    this.sendRequest(
      destinationId,
      RaftApiKey.FETCH_SNAPSHOT,
      this.rpcVersions.fetchSnapshot,
      data,
      follower.epoch,
      false,
      nowMs,
    );
  }

  private sendFetch(destinationId: number, epoch: number, nowMs: number): void {
    const data = buildFetchRequest({
      topic: this.topic,
      clusterId: this.clusterId(),
      replicaKey: this.quorum.localReplicaKey(),
      epoch,
      fetchOffset: this.log.endOffset(),
      lastFetchedEpoch: this.log.lastFetchedEpoch(),
      maxWaitMs: this.config.fetchMaxWaitMs,
      maxBytes: this.config.fetchMaxBytes,
      highWatermark: this.quorum.highWatermark(),
      apiVersion: this.rpcVersions.fetch,
    });
    this.sendRequest(destinationId, RaftApiKey.FETCH, this.rpcVersions.fetch, data, epoch, false, nowMs);
  }

  private handleInboundResponse(response: InboundResponse, nowMs: number): void {
    const sourceId = response.sourceId;
    if (!this.requestManager.isResponseExpected(sourceId, response.correlationId)) {
      this.logger.debug(
        { remoteNodeId: sourceId, correlationId: response.correlationId },
        'ignoring an unexpected response',
      );
      return;
    }
    const context = this.outstanding.get(sourceId);
    this.outstanding.delete(sourceId);
    let success: boolean;
    switch (response.apiKey) {
      case RaftApiKey.VOTE:
        success = this.handleVoteResponse(response, context, nowMs);
        break;
      case RaftApiKey.BEGIN_QUORUM_EPOCH:
        success = this.handleQuorumEpochResponse(response, nowMs, false);
        break;
      case RaftApiKey.END_QUORUM_EPOCH:
        success = this.handleQuorumEpochResponse(response, nowMs, true);
        break;
      case RaftApiKey.FETCH:
        success = this.handleFetchResponse(response, nowMs);
        break;
      case RaftApiKey.FETCH_SNAPSHOT:
        success = this.handleFetchSnapshotResponse(response, nowMs);
        break;
      default:
        success = false;
    }
    this.requestManager.onResponseResult(sourceId, response.correlationId, success, nowMs);
  }

  private handleVoteResponse(
    response: InboundResponse,
    context: OutstandingRequest | undefined,
    nowMs: number,
  ): boolean {
    const data = response.data as VoteResponseData;
    const topLevelError = topLevelErrorCode(data);
    const isOurPreVote =
      context?.preVote === true && this.quorum.isProspective() && context.epoch === this.quorum.epoch();
    if (topLevelError === Errors.UNSUPPORTED_VERSION.code && isOurPreVote) {
      // The voter predates KIP-996: skip the pre-vote as Kafka does.
      const previous = this.quorum.state();
      this.quorum.transitionToCandidate(nowMs);
      this.onStateChanged(previous, nowMs);
      return true;
    }
    if (topLevelError !== Errors.NONE.code) return false;
    const partition = singlePartition(data.topics);
    if (partition === undefined || !this.isReplicatedTopic(data.topics)) return false;
    if (partition.leaderEpoch < this.quorum.epoch()) {
      // Stale, except our pre-vote: a voter answers it at its own (possibly older) epoch.
      const isOurPreVoteAnswer =
        context?.preVote === true &&
        context.epoch === this.quorum.epoch() &&
        partition.errorCode === Errors.NONE.code;
      if (isOurPreVoteAnswer) this.recordVote(response.sourceId, context, partition.voteGranted, nowMs);
      return true;
    }
    const leaderId = partition.leaderId >= 0 ? partition.leaderId : undefined;
    const endpoints =
      leaderId === undefined
        ? Endpoints.EMPTY
        : endpointsFromNodeEndpoints(data.nodeEndpoints, leaderId, this.listenerName);
    const handled = this.maybeHandleCommonResponse(
      partition.errorCode,
      leaderId,
      partition.leaderEpoch,
      endpoints,
      nowMs,
    );
    if (handled !== undefined) return handled;
    if (partition.errorCode !== Errors.NONE.code) return false;
    this.recordVote(response.sourceId, context, partition.voteGranted, nowMs);
    return true;
  }

  private recordVote(
    voterId: number,
    context: OutstandingRequest | undefined,
    granted: boolean,
    nowMs: number,
  ): void {
    if (context === undefined || context.epoch !== this.quorum.epoch()) return;
    if (context.preVote && this.quorum.isProspective()) {
      const election = this.quorum.prospectiveStateOrThrow().epochElection;
      if (!election.isVoter(voterId)) return;
      election.recordVote(voterId, granted);
      if (election.isVoteGranted()) this.maybeTransitionToCandidate(nowMs);
      else if (election.isVoteRejected()) this.prospectiveTransitionAfterElectionLoss(nowMs);
    } else if (!context.preVote && this.quorum.isCandidate()) {
      const election = this.quorum.candidateStateOrThrow().epochElection;
      if (!election.isVoter(voterId)) return;
      election.recordVote(voterId, granted);
      this.maybeTransitionToLeader(nowMs);
    }
  }

  private handleQuorumEpochResponse(response: InboundResponse, nowMs: number, isEnd: boolean): boolean {
    const data = response.data as BeginQuorumEpochResponseData | EndQuorumEpochResponseData;
    if (topLevelErrorCode(data) !== Errors.NONE.code) return false;
    const partition = singlePartition(data.topics);
    if (partition === undefined || !this.isReplicatedTopic(data.topics)) return false;
    const leaderId = partition.leaderId >= 0 ? partition.leaderId : undefined;
    const endpoints =
      leaderId === undefined
        ? Endpoints.EMPTY
        : endpointsFromNodeEndpoints(data.nodeEndpoints, leaderId, this.listenerName);
    if (partition.errorCode === Errors.NONE.code && isEnd && this.quorum.isResigned()) {
      const resigned = this.quorum.resignedStateOrThrow();
      if (partition.leaderEpoch === resigned.epoch) {
        resigned.acknowledgeResignation(response.sourceId);
        return true;
      }
    }
    const handled = this.maybeHandleCommonResponse(
      partition.errorCode,
      leaderId,
      partition.leaderEpoch,
      endpoints,
      nowMs,
    );
    if (handled !== undefined) return handled;
    return partition.errorCode === Errors.NONE.code;
  }

  /**
   * A fetch to our leader was refused as BROKER_NOT_AVAILABLE (connection refused or reset: its
   * process is gone). After a few in a row, a voter brings its election forward to a random delay
   * in [0, election timeout) instead of waiting out the whole fetch timeout (a deliberate
   * difference from Kafka, README). Safe: it only starts a pre-vote, which a follower still
   * fetching from a live leader rejects; the random delay keeps followers from splitting the vote.
   */
  private onLeaderUnreachable(sourceId: number, nowMs: number): void {
    const state = this.quorum.state();
    if (!(state instanceof FollowerState) || state.leaderId !== sourceId || !this.quorum.isVoter()) return;
    if (state.recordUnreachableLeaderFetch() !== UNREACHABLE_LEADER_FETCHES_FOR_EARLY_ELECTION) return;
    const delayMs = this.options.random.nextInt(this.config.electionTimeoutMs);
    this.logger.info(
      { epoch: state.epoch, leaderId: state.leaderId, delayMs },
      'leader unreachable: bringing the election forward',
    );
    state.shortenFetchTimeout(nowMs, delayMs);
  }

  private handleFetchResponse(response: InboundResponse, nowMs: number): boolean {
    const data = response.data as FetchResponseData;
    const topLevelError = topLevelErrorCode(data);
    if (topLevelError !== Errors.NONE.code) {
      if (topLevelError === Errors.BROKER_NOT_AVAILABLE.code)
        this.onLeaderUnreachable(response.sourceId, nowMs);
      return false;
    }
    const partition = singlePartition(data.responses);
    if (partition === undefined || !this.isReplicatedTopic(data.responses)) return false;
    const leaderId = partition.currentLeader.leaderId >= 0 ? partition.currentLeader.leaderId : undefined;
    const epoch = partition.currentLeader.leaderEpoch;
    const endpoints =
      leaderId === undefined
        ? Endpoints.EMPTY
        : endpointsFromNodeEndpoints(data.nodeEndpoints, leaderId, this.listenerName);
    const handled = this.maybeHandleCommonResponse(partition.errorCode, leaderId, epoch, endpoints, nowMs);
    if (handled !== undefined) return handled;
    const state = this.quorum.state();
    if (!(state instanceof FollowerState) || state.leaderId !== response.sourceId) {
      // An answer from a voter we asked to discover the leader, naming nobody new.
      return partition.errorCode === Errors.NONE.code;
    }
    if (partition.errorCode !== Errors.NONE.code) return false;
    if (partition.divergingEpoch.epoch >= 0 && partition.divergingEpoch.endOffset >= 0n) {
      this.truncateOnDivergence(state, {
        offset: Number(partition.divergingEpoch.endOffset),
        epoch: partition.divergingEpoch.epoch,
      });
    } else if (partition.snapshotId.epoch >= 0 && partition.snapshotId.endOffset >= 0n) {
      this.startSnapshotFetch(state, {
        offset: Number(partition.snapshotId.endOffset),
        epoch: partition.snapshotId.epoch,
      });
    } else {
      if (!this.appendAsFollower(state, partition.records)) return false;
      this.updateFollowerHighWatermark(state, Number(partition.highWatermark));
    }
    state.resetFetchTimeoutForSuccessfulFetch(nowMs);
    return true;
  }

  /** Kafka's `truncateToEndOffset`: to the leader's end of the diverging epoch, or our end for the largest epoch below it. */
  private truncateOnDivergence(state: FollowerState, diverging: OffsetAndEpoch): void {
    let truncationOffset: number;
    if (diverging.epoch === 0) {
      truncationOffset = Math.min(diverging.offset, this.log.endOffset());
    } else {
      const local = this.log.endOffsetForEpoch(diverging.epoch);
      truncationOffset =
        local.epoch === diverging.epoch ? Math.min(local.offset, diverging.offset) : local.offset;
    }
    const highWatermark = state.highWatermark();
    if (highWatermark !== undefined && truncationOffset < highWatermark) {
      throw new RaftLogStateError(
        `leader asked to truncate to ${truncationOffset}, below the high watermark ${highWatermark}: committed data would be lost`,
      );
    }
    this.logger.info({ offset: truncationOffset, epoch: diverging.epoch }, 'truncating diverging log');
    this.log.truncateTo(truncationOffset);
  }

  private startSnapshotFetch(state: FollowerState, snapshotId: OffsetAndEpoch): void {
    state.fetchingSnapshot?.close();
    state.fetchingSnapshot = undefined;
    const writer = this.log.createNewSnapshotUnchecked(snapshotId);
    if (writer !== undefined) {
      this.logger.info(
        { offset: snapshotId.offset, epoch: snapshotId.epoch },
        'fetching snapshot from the leader',
      );
      state.fetchingSnapshot = writer;
      return;
    }
    if (this.log.readSnapshot(snapshotId) !== undefined) {
      this.installFetchedSnapshot(state, snapshotId);
    } else {
      this.logger.warn(
        { offset: snapshotId.offset, epoch: snapshotId.epoch },
        'cannot create the snapshot the leader named',
      );
    }
  }

  /**
   * Appends fetched records. Records that fail validation (bad CRC, offsets that do not follow
   * the log end) came from the network, not from us: like Kafka, log them and fetch again after
   * the backoff instead of stopping the node. Returns false when nothing could be appended.
   */
  private appendAsFollower(state: FollowerState, bytes: Buffer | null): boolean {
    if (bytes === null || bytes.length === 0) return true;
    const records = MemoryRecords.readableRecords(bytes);
    if (records.validBytes() === 0) return true;
    let info: LogAppendInfo;
    try {
      info = this.log.appendAsFollower(records, state.epoch);
    } catch (error) {
      if (!isRejectedRecordsError(error)) throw error;
      this.logger.warn(
        { err: error, offset: this.log.endOffset(), leaderId: state.leaderId },
        'fetched records rejected',
      );
      return false;
    }
    if (this.logger.isLevelEnabled('trace')) {
      this.logger.trace({ offset: info.firstOffset, lastOffset: info.lastOffset }, 'appended as follower');
    }
    return true;
  }

  private updateFollowerHighWatermark(state: FollowerState, leaderHighWatermark: number): void {
    if (leaderHighWatermark < 0) return;
    const highWatermark = Math.min(leaderHighWatermark, this.log.endOffset());
    if (state.updateHighWatermark(highWatermark)) this.log.updateHighWatermark(highWatermark);
  }

  private handleFetchSnapshotResponse(response: InboundResponse, nowMs: number): boolean {
    const data = response.data as FetchSnapshotResponseData;
    if (topLevelErrorCode(data) !== Errors.NONE.code) return false;
    const partition = singlePartition(data.topics);
    if (partition === undefined || !this.isReplicatedTopic(data.topics)) return false;
    const leaderId = partition.currentLeader.leaderId >= 0 ? partition.currentLeader.leaderId : undefined;
    const endpoints =
      leaderId === undefined
        ? Endpoints.EMPTY
        : endpointsFromNodeEndpoints(data.nodeEndpoints, leaderId, this.listenerName);
    const handled = this.maybeHandleCommonResponse(
      partition.errorCode,
      leaderId,
      partition.currentLeader.leaderEpoch,
      endpoints,
      nowMs,
    );
    if (handled !== undefined) return handled;
    const state = this.quorum.state();
    if (!(state instanceof FollowerState) || state.fetchingSnapshot === undefined) return true;
    const writer = state.fetchingSnapshot;
    if (
      partition.errorCode === Errors.SNAPSHOT_NOT_FOUND.code ||
      partition.errorCode === Errors.POSITION_OUT_OF_RANGE.code
    ) {
      // The leader no longer has it (or we asked for a bad position): start over with a Fetch.
      writer.close();
      state.fetchingSnapshot = undefined;
      return true;
    }
    if (partition.errorCode !== Errors.NONE.code) return false;
    const snapshotId = { offset: Number(partition.snapshotId.endOffset), epoch: partition.snapshotId.epoch };
    if (snapshotId.offset !== writer.snapshotId.offset || snapshotId.epoch !== writer.snapshotId.epoch)
      return true;
    if (Number(partition.position) !== writer.sizeInBytes()) return true;
    const size = Number(partition.size);
    if (writer.sizeInBytes() + partition.unalignedRecords.length > size) {
      // The leader's chunk overruns the size it announced: start the download over.
      this.logger.warn(
        { offset: snapshotId.offset, epoch: snapshotId.epoch, size },
        'snapshot chunk overruns its size',
      );
      writer.close();
      state.fetchingSnapshot = undefined;
      return false;
    }
    writer.appendUnaligned(partition.unalignedRecords);
    if (writer.sizeInBytes() === size) {
      writer.freeze();
      state.fetchingSnapshot = undefined;
      this.installFetchedSnapshot(state, snapshotId);
    }
    state.resetFetchTimeoutForSuccessfulFetch(nowMs);
    return true;
  }

  private installFetchedSnapshot(state: FollowerState, snapshotId: OffsetAndEpoch): void {
    // The log replaces itself with a snapshot past its end even under an uncommitted tail from a
    // newer epoch (sim seed 705): see RaftLog.truncateToLatestSnapshot.
    const replaced = this.log.truncateToLatestSnapshot();
    // Not replaced, yet consistent: installed before (a retry), or the log already ends exactly
    // at the snapshot in its epoch.
    const alreadyCovered =
      this.log.startOffset() === snapshotId.offset ||
      (this.log.endOffset() === snapshotId.offset && this.log.lastFetchedEpoch() === snapshotId.epoch);
    if (!replaced && !alreadyCovered) {
      throw new RaftLogStateError(
        `fetched snapshot ${snapshotId.offset}-${snapshotId.epoch} did not replace the log ending at ${this.log.endOffset()}`,
      );
    }
    this.logger.info(
      { offset: snapshotId.offset, epoch: snapshotId.epoch },
      'installed snapshot from the leader',
    );
    if (state.updateHighWatermark(snapshotId.offset)) this.log.updateHighWatermark(snapshotId.offset);
  }

  // --- leader write path --------------------------------------------------------------------

  private maybeAppendBatches(leader: LeaderState, nowMs: number): void {
    if (!leader.accumulator.needsDrain(nowMs)) return;
    const batches = leader.accumulator.drain(nowMs);
    if (batches.length === 0) return;
    for (const batch of batches) {
      const builder = new MemoryRecordsBuilder({
        baseOffset: batch.baseOffset,
        partitionLeaderEpoch: leader.epoch,
      });
      for (const value of batch.records) builder.append({ timestamp: batch.appendTimeMs, value });
      const info = this.log.appendAsLeader(builder.build(), leader.epoch);
      invariant(
        info.firstOffset === batch.baseOffset && info.lastOffset === batch.lastOffset,
        () =>
          `appended [${info.firstOffset}, ${info.lastOffset}], accumulator assigned [${batch.baseOffset}, ${batch.lastOffset}]`,
      );
      // Only the commit-latency metric reads these: past the bound the oldest sample is dropped.
      if (this.pendingCommits.length >= MAX_PENDING_COMMITS) this.pendingCommits.shift();
      this.pendingCommits.push({ lastOffset: batch.lastOffset, appendTimeMs: batch.appendTimeMs });
    }
    this.completeParkedFetches(nowMs);
  }

  private onLeaderHighWatermarkChanged(leader: LeaderState, nowMs: number, except?: ParkedFetch): void {
    const highWatermark = leader.highWatermark();
    if (highWatermark === undefined) return;
    this.log.updateHighWatermark(highWatermark);
    while (
      this.pendingCommits.length > 0 &&
      (this.pendingCommits[0] as PendingCommit).lastOffset < highWatermark
    ) {
      const commit = this.pendingCommits.shift() as PendingCommit;
      const latencyMs = Math.max(0, nowMs - commit.appendTimeMs);
      this.committedBatches += 1;
      this.commitLatencyTotalMs += latencyMs;
      this.commitLatencyMaxMs = Math.max(this.commitLatencyMaxMs ?? 0, latencyMs);
    }
    this.completeParkedFetches(nowMs, except);
  }

  // --- listeners ----------------------------------------------------------------------------

  private pollListeners(): void {
    for (const { listener, register } of this.pendingRegistrations.splice(0)) {
      if (register && !this.listeners.has(listener))
        this.listeners.set(listener, new ListenerContext(listener));
      if (!register) this.listeners.delete(listener);
    }
    const highWatermark = this.quorum.highWatermark();
    for (const context of this.listeners.values()) {
      if (highWatermark !== undefined) this.maybeFireHandleCommit(context, highWatermark);
      this.maybeFireLeaderChange(context);
    }
  }

  private maybeFireHandleCommit(context: ListenerContext, highWatermark: number): void {
    if (context.lastSent !== undefined) return;
    const latest = this.log.latestSnapshotId();
    const behindLogStart = context.nextOffset === -1 || context.nextOffset < this.log.startOffset();
    if (behindLogStart && latest !== undefined && context.nextOffset < latest.offset) {
      const raw = this.log.readSnapshot(latest);
      invariant(raw !== undefined, () => `latest snapshot ${latest.offset}-${latest.epoch} cannot be read`);
      context.nextOffset = latest.offset;
      this.logger.info({ offset: latest.offset, epoch: latest.epoch }, 'listener loads snapshot');
      context.listener.handleLoadSnapshot(new RecordsSnapshotReader(raw));
    } else if (context.nextOffset === -1) {
      invariant(
        this.log.startOffset() === 0,
        () => `log starts at ${this.log.startOffset()} without a snapshot`,
      );
      context.nextOffset = 0;
    }
    invariant(
      context.nextOffset >= this.log.startOffset(),
      () => `listener at ${context.nextOffset} is behind the log start ${this.log.startOffset()}`,
    );
    if (context.nextOffset >= highWatermark) return;
    const info = this.log.read(context.nextOffset, 'committed');
    if (info.records.sizeInBytes() === 0) return;
    const reader = new RecordsBatchReader({
      baseOffset: context.nextOffset,
      records: info.records,
      highWatermark,
      onClose: (closed) => context.onReaderClosed(closed),
    });
    context.lastSent = reader;
    context.listener.handleCommit(reader);
  }

  /** KAFKA-15345: a new leader tells its listener only once it has read up to the epoch start. */
  private maybeFireLeaderChange(context: ListenerContext): void {
    if (this.quorum.isResigned()) return;
    const current = this.quorum.leaderAndEpoch();
    if (!context.shouldFireLeaderChange(current)) return;
    if (this.quorum.isLeader()) {
      const leader = this.quorum.leaderStateOrThrow();
      if (context.nextOffset <= leader.epochStartOffset) return;
    }
    context.fireLeaderChange(current);
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
    if (this.shutdownDeadlineMs === undefined || this.shutdownComplete) return;
    const leaderId = this.quorum.leaderId();
    const done =
      this.quorum.isObserver() ||
      this.quorum.isOnlyVoter() ||
      (leaderId !== undefined && leaderId !== this.options.nodeId) ||
      nowMs >= this.shutdownDeadlineMs;
    if (!done) return;
    this.shutdownComplete = true;
    this.logger.info({ epoch: this.quorum.epoch() }, 'graceful shutdown complete');
    for (const context of this.listeners.values()) context.listener.beginShutdown?.();
  }
}

/**
 * Kafka's strict exponential successor backoff: position 0 waits nothing; position p waits
 * `min(max, (max >> (n - 1)) << (p - 1))`.
 */
export function strictExponentialElectionBackoffMs(
  position: number,
  successorCount: number,
  maxMs: number,
): number {
  if (position <= 0) return 0;
  if (position >= successorCount) return maxMs;
  return Math.min(maxMs, Math.floor(maxMs / 2 ** (successorCount - 1)) * 2 ** (position - 1));
}

/** Errors a log raises for records that are corrupt or do not follow its end (bad input, not a bug). */
const REJECTED_RECORDS_ERROR_CODES: ReadonlySet<string> = new Set([
  'CORRUPT_RECORD',
  'CORRUPT_MESSAGE',
  'INVALID_RECORD',
]);

function isRejectedRecordsError(error: unknown): boolean {
  return KRaftError.isInstance(error) && REJECTED_RECORDS_ERROR_CODES.has(error.code);
}

function firstBatchBaseOffset(records: Records): number | undefined {
  if (records instanceof MemoryRecords) return records.firstBatch()?.baseOffset;
  for (const batch of records.batches()) return batch.baseOffset;
  return undefined;
}

/** Copies records into one Buffer for a response (a MemoryRecords is a view already). */
/** Shared, never written: the records of a fetch at the log end. */
const EMPTY_RECORDS = Buffer.alloc(0);

function recordsToBuffer(records: Records): Buffer | null {
  if (records instanceof MemoryRecords) return records.buffer();
  const size = records.sizeInBytes();
  if (size === 0) return Buffer.alloc(0);
  const bytes = Buffer.allocUnsafe(size);
  const read = (records as FileRecords).readInto(bytes, 0);
  invariant(read === size, () => `read ${read} of ${size} record bytes`);
  return bytes;
}
