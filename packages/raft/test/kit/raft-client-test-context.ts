import type { Logger } from '@kraft/protocol';
import {
  apiKeyFor,
  type BeginQuorumEpochResponseData,
  type DescribeQuorumResponseData,
  type EndQuorumEpochResponseData,
  Errors,
  type FetchResponseData,
  type FetchSnapshotResponseData,
  KRaftError,
  Uuid,
  type VoteResponseData,
} from '@kraft/protocol';
import { type Batch, type MemoryRecords, MemoryRecordsBuilder } from '@kraft/records';
import { ElectionState } from '../../src/election-state.js';
import { Endpoints } from '../../src/endpoints.js';
import {
  DEFAULT_RPC_VERSIONS,
  KafkaRaftClient,
  RaftApiKey,
  type RpcVersions,
} from '../../src/kafka-raft-client.js';
import type { InboundRequest, NodeAddress, OutboundRequest } from '../../src/ports/network-channel.js';
import type { OffsetAndEpoch, RaftLog } from '../../src/ports/raft-log.js';
import type { Random } from '../../src/ports/random.js';
import type { QuorumConfig } from '../../src/quorum-config.js';
import type { BatchReader, LeaderAndEpoch, Listener, SnapshotReader } from '../../src/raft-client.js';
import type { ElectionStateWrite, OperationCompletion, SnapshotInstall } from '../../src/raft-outbox.js';
import { ReplicaKey } from '../../src/replica-key.js';
import {
  buildBeginQuorumEpochRequest,
  buildEndQuorumEpochRequest,
  buildFetchRequest,
  buildFetchResponse,
  buildFetchSnapshotRequest,
  buildFetchSnapshotResponse,
  buildQuorumEpochResponse,
  buildVoteRequest,
  buildVoteResponse,
  METADATA_PARTITION_INDEX,
  METADATA_TOPIC,
  type ReplicatedTopic,
  singlePartition,
} from '../../src/rpc/raft-messages.js';
import { VoterSet } from '../../src/voter-set.js';
import { carryOutReadyAtOnce } from './carry-out-ready.js';
import { MockLog } from './mock-log.js';
import { MockNetworkChannel } from './mock-network-channel.js';
import { MockQuorumStateStore } from './mock-quorum-state-store.js';
import { MockTime } from './mock-time.js';

/** A failed expectation of the test context (kept free of any test framework). */
export class TestAssertionError extends KRaftError {
  constructor(message: string) {
    super('TEST_ASSERTION', message);
  }
}

function check(condition: boolean, message: () => string): asserts condition {
  if (!condition) throw new TestAssertionError(message());
}

/** Randomness a test controls: `nextInt` returns `mockNextInt(bound)` (0 by default: no jitter). */
export class MockableRandom implements Random {
  mockNextInt: (bound: number) => number = () => 0;

  nextInt(bound: number): number {
    const value = this.mockNextInt(bound);
    check(
      Number.isInteger(value) && value >= 0 && value < bound,
      () => `mocked nextInt(${bound}) returned ${value}`,
    );
    return value;
  }
}

/** A listener that records everything and closes each reader after reading it. */
export class MockListener implements Listener {
  readonly committedBatches: Batch[] = [];
  readonly loadedSnapshots: OffsetAndEpoch[] = [];
  readonly leaderChanges: LeaderAndEpoch[] = [];
  beganShutdown = false;
  /** When false, readers stay open (a listener still processing). */
  autoClose = true;
  readonly openReaders: BatchReader[] = [];

  handleCommit(reader: BatchReader): void {
    if (!this.autoClose) {
      this.openReaders.push(reader);
      return;
    }
    for (const batch of reader) this.committedBatches.push(batch);
    reader.close();
  }

  handleLoadSnapshot(reader: SnapshotReader): void {
    this.loadedSnapshots.push(reader.snapshotId);
    this.committedBatches.length = 0;
    reader.close();
  }

  handleLeaderChange(leader: LeaderAndEpoch): void {
    this.leaderChanges.push(leader);
  }

  beginShutdown(): void {
    this.beganShutdown = true;
  }

  /** The data record values committed so far, as strings. */
  committedValues(): string[] {
    return this.committedBatches.flatMap((batch) =>
      batch.records.map((record) => record.value?.toString() ?? ''),
    );
  }

  lastCommittedOffset(): number | undefined {
    return this.committedBatches.at(-1)?.lastOffset;
  }

  currentLeader(): LeaderAndEpoch | undefined {
    return this.leaderChanges.at(-1);
  }
}

type LogFactory = () => RaftLog;

/** The part of BeginQuorumEpoch and EndQuorumEpoch requests the epoch assertions read. */
interface QuorumEpochRequestData {
  readonly topics: readonly { readonly partitions: readonly { readonly leaderEpoch: number }[] }[];
}

/**
 * Kafka's `RaftClientTestContext`, in TypeScript: a KafkaRaftClient over a MockLog (or any
 * RaftLog from a factory: the real `@kraft/log` RaftLog on a MemoryFileSystem), a mock network
 * channel, mock time and a mockable random. `poll()` polls, performs the flush the client asks
 * for and carries out `client.ready()`, as the driver does: election writes are durable at once
 * (unless `holdElectionWrites()`), messages land in the mock channel in order.
 */
export class RaftClientTestContext {
  static readonly ELECTION_TIMEOUT_MS = 10_000;
  static readonly FETCH_TIMEOUT_MS = 50_000;
  static readonly ELECTION_BACKOFF_MAX_MS = 500;
  static readonly REQUEST_TIMEOUT_MS = 5_000;
  static readonly RETRY_BACKOFF_MS = 50;
  static readonly FETCH_MAX_WAIT_MS = 0;
  static readonly LINGER_MS = 0;

  readonly client: KafkaRaftClient;
  readonly log: RaftLog;
  readonly channel: MockNetworkChannel;
  readonly store: MockQuorumStateStore;
  readonly time: MockTime;
  readonly random: MockableRandom;
  readonly listener: MockListener;
  readonly localId: number | undefined;
  readonly localDirectoryId: Uuid;
  readonly voters: VoterSet;
  readonly rpcVersions: RpcVersions;
  /** The topic the client replicates; the request and response builders below use it too. */
  readonly topic: ReplicatedTopic;
  /** Completions of read barriers and leadership transfers, in the order `ready()` handed them out. */
  readonly completions: OperationCompletion[] = [];
  private pendingResponses: { request: InboundRequest; data: unknown }[] = [];
  /** While set, election writes wait for `completeElectionWrite()` (a slow quorum-state disk). */
  private electionWritesHeld = false;
  private heldElectionWrite: ElectionStateWrite | undefined;
  /** Downloaded snapshots `ready()` handed out, frozen by the next `poll()` (ADR 0039). */
  private readonly snapshotInstalls: SnapshotInstall[] = [];
  /** While set, `poll()` leaves them unfrozen until `completeSnapshotInstalls()` (a slow disk). */
  private snapshotInstallsHeld = false;

  constructor(options: {
    client: KafkaRaftClient;
    log: RaftLog;
    channel: MockNetworkChannel;
    store: MockQuorumStateStore;
    time: MockTime;
    random: MockableRandom;
    listener: MockListener;
    localId: number | undefined;
    localDirectoryId: Uuid;
    voters: VoterSet;
    rpcVersions: RpcVersions;
    topic: ReplicatedTopic;
  }) {
    this.client = options.client;
    this.log = options.log;
    this.channel = options.channel;
    this.store = options.store;
    this.time = options.time;
    this.random = options.random;
    this.listener = options.listener;
    this.localId = options.localId;
    this.localDirectoryId = options.localDirectoryId;
    this.voters = options.voters;
    this.rpcVersions = options.rpcVersions;
    this.topic = options.topic;
  }

  static builder(localId: number | undefined, voterIds: Iterable<number>): RaftClientTestContextBuilder {
    return new RaftClientTestContextBuilder(localId, [...voterIds]);
  }

  // --- driving ------------------------------------------------------------------------------

  /** One driver iteration: poll, then flush if asked (and report it), then poll listeners again. */
  async poll(): Promise<number> {
    let deadline = this.client.poll(this.time.milliseconds());
    this.carryOutReady();
    if (!this.snapshotInstallsHeld && this.snapshotInstalls.length > 0) {
      // As the driver's next turn: report the freeze, then poll (the listeners load the snapshot).
      await this.completeSnapshotInstalls();
      deadline = this.client.poll(this.time.milliseconds());
      this.carryOutReady();
    }
    if (this.client.needsFlush()) {
      const flushed = await this.log.flush();
      this.client.onLogFlushed(flushed, this.time.milliseconds());
      this.carryOutReady();
    }
    return deadline;
  }

  /**
   * What the driver does after each call into the client: starts the election write `ready()`
   * names (durable at once in the mock store, and reported, unless writes are held) and puts the
   * messages free to leave into the mock channel, until the client has nothing more to hand out.
   */
  carryOutReady(): void {
    carryOutReadyAtOnce(
      this.client,
      this.store,
      this.channel,
      this.time.milliseconds(),
      (write) => {
        if (this.electionWritesHeld) this.heldElectionWrite = write;
        return this.electionWritesHeld;
      },
      this.completions,
      this.snapshotInstalls,
    );
  }

  /** Downloaded snapshots wait, unfrozen, for `completeSnapshotInstalls()`: a slow snapshot disk. */
  holdSnapshotInstalls(): void {
    this.snapshotInstallsHeld = true;
  }

  /** How many downloaded snapshots wait for their freeze. */
  pendingSnapshotInstallCount(): number {
    return this.snapshotInstalls.length;
  }

  /** Freezes every downloaded snapshot handed out, reports each, and stops holding them. */
  async completeSnapshotInstalls(): Promise<void> {
    this.snapshotInstallsHeld = false;
    while (this.snapshotInstalls.length > 0) {
      const install = this.snapshotInstalls.shift() as SnapshotInstall;
      await this.log.freezeFetchedSnapshot(install.writer);
      this.client.onSnapshotInstallDurable(install.id, this.time.milliseconds());
      this.carryOutReady();
    }
  }

  /** Election writes from now on wait for `completeElectionWrite()`: a slow quorum-state disk. */
  holdElectionWrites(): void {
    this.electionWritesHeld = true;
  }

  /** Finishes the held election write (durable, reported) and lets writes complete at once again. */
  completeElectionWrite(): void {
    this.electionWritesHeld = false;
    const write = this.heldElectionWrite;
    check(write !== undefined, () => 'no election write is held');
    this.heldElectionWrite = undefined;
    void this.store.writeElectionState(write.data, write.dataVersion);
    this.client.onElectionStatePersisted(write.id, this.time.milliseconds());
    this.carryOutReady();
  }

  /** Polls until `condition` holds, advancing no time; fails after `maxPolls`. */
  async pollUntil(condition: () => boolean, maxPolls = 100): Promise<void> {
    for (let poll = 0; poll < maxPolls; poll += 1) {
      if (condition()) return;
      await this.poll();
    }
    check(condition(), () => `condition not reached after ${maxPolls} polls`);
  }

  sleep(durationMs: number): void {
    this.time.sleep(durationMs);
  }

  // --- delivering ---------------------------------------------------------------------------

  deliverRequest(apiKey: number, data: unknown, sourceId: number, apiVersion?: number): InboundRequest {
    const version = apiVersion ?? this.defaultVersion(apiKey);
    const request: InboundRequest = {
      correlationId: this.channel.newCorrelationId(),
      apiKey,
      apiVersion: version,
      data: roundTrip(apiKeyFor(apiKey)?.request, data, version),
      createdTimeMs: this.time.milliseconds(),
      sourceId,
    };
    this.client.handleRequest(request, this.time.milliseconds());
    return request;
  }

  deliverResponse(request: OutboundRequest, data: unknown): void {
    this.client.handleResponse(
      {
        correlationId: request.correlationId,
        apiKey: request.apiKey,
        sourceId: request.destinationId,
        data: isSyntheticError(data)
          ? data
          : roundTrip(apiKeyFor(request.apiKey)?.response, data, request.apiVersion),
        receivedTimeMs: this.time.milliseconds(),
      },
      this.time.milliseconds(),
    );
  }

  /**
   * Voter `voterId` fetches at `fetchOffset` in `epoch` (maxWaitMs 0: answered at once unless
   * given). Its last fetched epoch is what a voter holding this node's log up to `fetchOffset`
   * would send: 0 at the log start, else `epoch` capped at this node's last epoch.
   */
  deliverVoterFetch(voterId: number, epoch: number, fetchOffset: number, maxWaitMs = 0): InboundRequest {
    const lastFetchedEpoch = fetchOffset === 0 ? 0 : Math.min(epoch, this.log.lastFetchedEpoch());
    return this.deliverRequest(
      RaftApiKey.FETCH,
      this.fetchRequest({ epoch, replicaId: voterId, fetchOffset, lastFetchedEpoch, maxWaitMs }),
      voterId,
    );
  }

  private defaultVersion(apiKey: number): number {
    switch (apiKey) {
      case RaftApiKey.FETCH:
        return this.rpcVersions.fetch;
      case RaftApiKey.VOTE:
        return this.rpcVersions.vote;
      case RaftApiKey.BEGIN_QUORUM_EPOCH:
        return this.rpcVersions.beginQuorumEpoch;
      case RaftApiKey.END_QUORUM_EPOCH:
        return this.rpcVersions.endQuorumEpoch;
      case RaftApiKey.FETCH_SNAPSHOT:
        return this.rpcVersions.fetchSnapshot;
      default:
        return 2;
    }
  }

  // --- request and response builders --------------------------------------------------------

  voteRequest(options: {
    epoch: number;
    candidateId: number;
    lastEpoch: number;
    lastOffset: number;
    preVote?: boolean;
    candidateDirectoryId?: Uuid;
  }) {
    return buildVoteRequest({
      topic: this.topic,
      clusterId: null,
      candidateKey: ReplicaKey.of(options.candidateId, options.candidateDirectoryId),
      voterKey: ReplicaKey.of(this.localId ?? -1, this.localDirectoryId),
      epoch: options.epoch,
      lastEpoch: options.lastEpoch,
      lastOffset: options.lastOffset,
      preVote: options.preVote ?? false,
    });
  }

  voteResponse(options: {
    granted: boolean;
    epoch: number;
    leaderId?: number;
    errorCode?: number;
  }): VoteResponseData {
    return buildVoteResponse({
      topic: this.topic,
      apiVersion: this.rpcVersions.vote,
      errorCode: Errors.NONE.code,
      partitionErrorCode: options.errorCode ?? Errors.NONE.code,
      leader: { leaderId: options.leaderId, epoch: options.epoch },
      voteGranted: options.granted,
      leaderEndpoints: Endpoints.EMPTY,
      listenerName: 'CONTROLLER',
    });
  }

  beginEpochRequest(epoch: number, leaderId: number) {
    return buildBeginQuorumEpochRequest({
      topic: this.topic,
      clusterId: null,
      leaderId,
      epoch,
      voterKey: ReplicaKey.of(this.localId ?? -1, this.localDirectoryId),
      leaderEndpoints: Endpoints.EMPTY,
    });
  }

  endEpochRequest(epoch: number, leaderId: number, preferredSuccessors: readonly number[]) {
    return buildEndQuorumEpochRequest({
      topic: this.topic,
      clusterId: null,
      leaderId,
      epoch,
      preferredSuccessors: preferredSuccessors.map((id) => ReplicaKey.of(id)),
      leaderEndpoints: Endpoints.EMPTY,
    });
  }

  quorumEpochResponse(
    epoch: number,
    leaderId: number | undefined,
    errorCode = Errors.NONE.code,
  ): BeginQuorumEpochResponseData {
    return buildQuorumEpochResponse({
      topic: this.topic,
      apiVersion: this.rpcVersions.beginQuorumEpoch,
      errorCode: Errors.NONE.code,
      partitionErrorCode: errorCode,
      leader: { leaderId, epoch },
      leaderEndpoints: Endpoints.EMPTY,
      listenerName: 'CONTROLLER',
    });
  }

  fetchRequest(options: {
    epoch: number;
    replicaId: number;
    fetchOffset: number;
    lastFetchedEpoch: number;
    maxWaitMs?: number;
    replicaDirectoryId?: Uuid;
    clusterId?: string | null;
    /**
     * The high watermark the follower knows (Fetch v18; undefined: none): by default the client's
     * own, as a caught-up follower's.
     */
    highWatermark?: number | undefined;
  }) {
    return buildFetchRequest({
      topic: this.topic,
      clusterId: options.clusterId ?? null,
      replicaKey: ReplicaKey.of(options.replicaId, options.replicaDirectoryId),
      epoch: options.epoch,
      fetchOffset: options.fetchOffset,
      lastFetchedEpoch: options.lastFetchedEpoch,
      maxWaitMs: options.maxWaitMs ?? 0,
      maxBytes: 8 * 1024 * 1024,
      highWatermark: 'highWatermark' in options ? options.highWatermark : this.client.highWatermark(),
      apiVersion: this.rpcVersions.fetch,
    });
  }

  fetchResponse(options: {
    epoch: number;
    leaderId: number;
    records?: MemoryRecords;
    highWatermark: number;
    errorCode?: number;
    divergingEpoch?: OffsetAndEpoch;
    snapshotId?: OffsetAndEpoch;
  }): FetchResponseData {
    return buildFetchResponse({
      topic: this.topic,
      apiVersion: this.rpcVersions.fetch,
      errorCode: Errors.NONE.code,
      partition: {
        errorCode: options.errorCode ?? Errors.NONE.code,
        highWatermark: options.highWatermark,
        logStartOffset: 0,
        leader: { leaderId: options.leaderId, epoch: options.epoch },
        ...(options.divergingEpoch === undefined ? {} : { divergingEpoch: options.divergingEpoch }),
        ...(options.snapshotId === undefined ? {} : { snapshotId: options.snapshotId }),
        records: options.records?.buffer() ?? Buffer.alloc(0),
      },
      leaderEndpoints: Endpoints.EMPTY,
      listenerName: 'CONTROLLER',
    });
  }

  fetchSnapshotRequest(options: {
    epoch: number;
    replicaId: number;
    snapshotId: OffsetAndEpoch;
    position: number;
    maxBytes?: number;
  }) {
    return buildFetchSnapshotRequest({
      topic: this.topic,
      clusterId: null,
      replicaKey: ReplicaKey.of(options.replicaId),
      epoch: options.epoch,
      snapshotId: options.snapshotId,
      position: options.position,
      maxBytes: options.maxBytes ?? 0x7fffffff,
    });
  }

  fetchSnapshotResponse(options: {
    epoch: number;
    leaderId: number;
    snapshotId: OffsetAndEpoch;
    size: number;
    position: number;
    bytes: Buffer;
    errorCode?: number;
  }): FetchSnapshotResponseData {
    return buildFetchSnapshotResponse({
      topic: this.topic,
      apiVersion: this.rpcVersions.fetchSnapshot,
      errorCode: Errors.NONE.code,
      partitionErrorCode: options.errorCode ?? Errors.NONE.code,
      leader: { leaderId: options.leaderId, epoch: options.epoch },
      snapshotId: options.snapshotId,
      sizeInBytes: options.size,
      position: options.position,
      bytes: options.bytes,
      leaderEndpoints: Endpoints.EMPTY,
      listenerName: 'CONTROLLER',
    });
  }

  describeQuorumRequest() {
    return {
      topics: [{ topicName: this.topic.name, partitions: [{ partitionIndex: METADATA_PARTITION_INDEX }] }],
    };
  }

  // --- sent messages ------------------------------------------------------------------------

  /** Removes and returns the requests sent so far of `apiKey`. */
  sentRequests(apiKey: number): OutboundRequest[] {
    this.carryOutReady();
    return this.channel.drainSendQueue(apiKey);
  }

  /** Removes and returns the responses sent so far for requests of `apiKey`. */
  sentResponses(apiKey: number): { request: InboundRequest; data: unknown }[] {
    this.carryOutReady();
    this.pendingResponses.push(...this.channel.drainSentResponses());
    const matching = this.pendingResponses.filter((sent) => sent.request.apiKey === apiKey);
    this.pendingResponses = this.pendingResponses.filter((sent) => sent.request.apiKey !== apiKey);
    return matching;
  }

  /** Asserts exactly one response of `apiKey` was sent and returns its data. */
  singleSentResponse<T>(apiKey: number): T {
    const responses = this.sentResponses(apiKey);
    check(responses.length === 1, () => `expected one response for api ${apiKey}, got ${responses.length}`);
    return (responses[0] as { data: unknown }).data as T;
  }

  assertSentVoteResponse(options: {
    errorCode?: number;
    epoch: number;
    leaderId?: number;
    voteGranted: boolean;
  }): void {
    const data = this.singleSentResponse<VoteResponseData>(RaftApiKey.VOTE);
    check(data.errorCode === Errors.NONE.code, () => `vote response has top-level error ${data.errorCode}`);
    const partition = singlePartition(data.topics);
    check(partition !== undefined, () => 'vote response has no partition');
    const expected = {
      errorCode: options.errorCode ?? Errors.NONE.code,
      leaderEpoch: options.epoch,
      leaderId: options.leaderId ?? -1,
      voteGranted: options.voteGranted,
    };
    const actual = {
      errorCode: partition.errorCode,
      leaderEpoch: partition.leaderEpoch,
      leaderId: partition.leaderId,
      voteGranted: partition.voteGranted,
    };
    check(
      JSON.stringify(actual) === JSON.stringify(expected),
      () => `vote response ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`,
    );
  }

  /** Asserts vote requests to every other voter and returns them. */
  assertSentVoteRequests(options: {
    epoch: number;
    lastEpoch: number;
    lastOffset: number;
    preVote: boolean;
    count: number;
  }): OutboundRequest[] {
    const requests = this.sentRequests(RaftApiKey.VOTE);
    check(
      requests.length === options.count,
      () => `expected ${options.count} vote requests, got ${requests.length}`,
    );
    for (const request of requests) {
      const partition = singlePartition((request.data as ReturnType<typeof buildVoteRequest>).topics);
      check(partition !== undefined, () => 'vote request without partition');
      const actual = [
        partition.replicaEpoch,
        partition.lastOffsetEpoch,
        Number(partition.lastOffset),
        partition.preVote,
      ];
      const expected = [options.epoch, options.lastEpoch, options.lastOffset, options.preVote];
      check(
        JSON.stringify(actual) === JSON.stringify(expected),
        () => `vote request ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`,
      );
    }
    return requests;
  }

  assertSentFetchRequest(options: {
    epoch: number;
    fetchOffset: number;
    lastFetchedEpoch: number;
  }): OutboundRequest {
    const requests = this.sentRequests(RaftApiKey.FETCH);
    check(requests.length === 1, () => `expected one fetch request, got ${requests.length}`);
    const request = requests[0] as OutboundRequest;
    const partition = singlePartition((request.data as ReturnType<typeof buildFetchRequest>).topics);
    check(partition !== undefined, () => 'fetch request without partition');
    const actual = [partition.currentLeaderEpoch, Number(partition.fetchOffset), partition.lastFetchedEpoch];
    const expected = [options.epoch, options.fetchOffset, options.lastFetchedEpoch];
    check(
      JSON.stringify(actual) === JSON.stringify(expected),
      () => `fetch request ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`,
    );
    return request;
  }

  /** The single Fetch response's partition; checks its error, epoch and leader. */
  assertSentFetchPartitionResponse(options: { errorCode?: number; epoch: number; leaderId?: number }) {
    const data = this.singleSentResponse<FetchResponseData>(RaftApiKey.FETCH);
    check(data.errorCode === Errors.NONE.code, () => `fetch response has top-level error ${data.errorCode}`);
    const partition = singlePartition(data.responses);
    check(partition !== undefined, () => 'fetch response has no partition');
    const actual = [
      partition.errorCode,
      partition.currentLeader.leaderEpoch,
      partition.currentLeader.leaderId,
    ];
    const expected = [options.errorCode ?? Errors.NONE.code, options.epoch, options.leaderId ?? -1];
    check(
      JSON.stringify(actual) === JSON.stringify(expected),
      () => `fetch response ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`,
    );
    return partition;
  }

  assertSentBeginQuorumEpochRequests(epoch: number, destinations: readonly number[]): OutboundRequest[] {
    return this.assertSentQuorumEpochRequests(
      RaftApiKey.BEGIN_QUORUM_EPOCH,
      'BeginQuorumEpoch',
      epoch,
      destinations,
    );
  }

  assertSentEndQuorumEpochRequests(epoch: number, destinations: readonly number[]): OutboundRequest[] {
    return this.assertSentQuorumEpochRequests(
      RaftApiKey.END_QUORUM_EPOCH,
      'EndQuorumEpoch',
      epoch,
      destinations,
    );
  }

  /** The sent Begin/EndQuorumEpoch requests go to exactly `destinations`, each for `epoch`. */
  private assertSentQuorumEpochRequests(
    apiKey: number,
    label: string,
    epoch: number,
    destinations: readonly number[],
  ): OutboundRequest[] {
    const requests = this.sentRequests(apiKey);
    const ids = requests.map((request) => request.destinationId).sort((left, right) => left - right);
    check(
      JSON.stringify(ids) === JSON.stringify([...destinations].sort((left, right) => left - right)),
      () => `${label} sent to ${ids}, expected ${destinations}`,
    );
    for (const request of requests) {
      // Both requests carry topics → partitions → leaderEpoch.
      const partition = singlePartition((request.data as QuorumEpochRequestData).topics);
      check(
        partition?.leaderEpoch === epoch,
        () => `${label} epoch ${partition?.leaderEpoch}, expected ${epoch}`,
      );
    }
    return requests;
  }

  assertSentQuorumEpochResponse(
    apiKey: number,
    options: { errorCode?: number; epoch: number; leaderId?: number },
  ): void {
    const data = this.singleSentResponse<BeginQuorumEpochResponseData | EndQuorumEpochResponseData>(apiKey);
    const partition = singlePartition(data.topics);
    check(partition !== undefined, () => `response has no partition (top-level error ${data.errorCode})`);
    const actual = [partition.errorCode, partition.leaderEpoch, partition.leaderId];
    const expected = [options.errorCode ?? Errors.NONE.code, options.epoch, options.leaderId ?? -1];
    check(
      JSON.stringify(actual) === JSON.stringify(expected),
      () => `response ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}`,
    );
  }

  assertSentDescribeQuorumResponse(): DescribeQuorumResponseData {
    return this.singleSentResponse<DescribeQuorumResponseData>(RaftApiKey.DESCRIBE_QUORUM);
  }

  assertSentFetchSnapshotResponse(): FetchSnapshotResponseData {
    return this.singleSentResponse<FetchSnapshotResponseData>(RaftApiKey.FETCH_SNAPSHOT);
  }

  /** The completion of read barrier or leadership transfer `id`, once `ready()` handed it out. */
  completion(id: number): OperationCompletion | undefined {
    return this.completions.find((completion) => completion.id === id);
  }

  // --- persisted election -------------------------------------------------------------------

  storedElection(): ElectionState | undefined {
    this.carryOutReady();
    const data = this.store.readElectionState();
    return data === undefined ? undefined : ElectionState.fromQuorumStateData(data);
  }

  assertElectedLeader(epoch: number, leaderId: number): void {
    const election = this.storedElection();
    check(
      election?.epoch === epoch && election.leaderId === leaderId,
      () => `stored ${election?.toString()}, expected leader ${leaderId} in epoch ${epoch}`,
    );
    const current = this.client.leaderAndEpoch();
    check(
      current.epoch === epoch && current.leaderId === leaderId,
      () => `current ${JSON.stringify(current)}, expected leader ${leaderId} in epoch ${epoch}`,
    );
  }

  assertVotedCandidate(epoch: number, candidateId: number): void {
    const election = this.storedElection();
    check(
      election?.epoch === epoch && election.votedKey?.id === candidateId && election.leaderId === undefined,
      () => `stored ${election?.toString()}, expected a vote for ${candidateId} in epoch ${epoch}`,
    );
  }

  assertUnknownLeader(epoch: number): void {
    const current = this.client.leaderAndEpoch();
    check(
      current.epoch === epoch && current.leaderId === undefined,
      () => `current ${JSON.stringify(current)}, expected no leader in epoch ${epoch}`,
    );
  }

  // --- scenarios ----------------------------------------------------------------------------

  /**
   * Follower helper: checks the one Fetch sent (as `assertSentFetchRequest`), answers it with
   * the leader's `response` (as `fetchResponse`) and returns the request it answered.
   */
  answerFetch(
    expected: { epoch: number; fetchOffset: number; lastFetchedEpoch: number },
    response: Parameters<RaftClientTestContext['fetchResponse']>[0],
  ): OutboundRequest {
    const request = this.assertSentFetchRequest(expected);
    this.deliverResponse(request, this.fetchResponse(response));
    return request;
  }

  /**
   * Follower helper, from an empty log: the first Fetch is answered with the leader's
   * `snapshotId`, and the poll after it starts the download (a FetchSnapshot is sent).
   */
  async startSnapshotDownload(
    epoch: number,
    leaderId: number,
    snapshotId: OffsetAndEpoch,
    highWatermark = snapshotId.offset,
  ): Promise<void> {
    await this.poll();
    this.answerFetch(
      { epoch, fetchOffset: 0, lastFetchedEpoch: 0 },
      { epoch, leaderId, highWatermark, snapshotId },
    );
    await this.poll();
  }

  /**
   * Follower helper: answers each FetchSnapshot with the next `chunkBytes` of `bytes`, polling
   * after each, until the whole snapshot is sent.
   */
  async downloadSnapshot(
    epoch: number,
    leaderId: number,
    snapshotId: OffsetAndEpoch,
    bytes: Buffer,
    chunkBytes = bytes.length,
  ): Promise<void> {
    let position = 0;
    while (position < bytes.length) {
      const [request] = this.sentRequests(RaftApiKey.FETCH_SNAPSHOT);
      check(request !== undefined, () => `no FetchSnapshot request at position ${position}`);
      const chunk = bytes.subarray(position, position + chunkBytes);
      this.deliverResponse(
        request,
        this.fetchSnapshotResponse({
          epoch,
          leaderId,
          snapshotId,
          size: bytes.length,
          position,
          bytes: chunk,
        }),
      );
      position += chunk.length;
      await this.poll();
    }
  }

  /**
   * From Unattached (voter): times out the election, wins the pre-vote and the vote, and returns
   * the new epoch. Drains every message sent on the way.
   */
  async becomeLeader(): Promise<number> {
    const epoch = this.client.leaderAndEpoch().epoch;
    this.sleep(RaftClientTestContext.ELECTION_TIMEOUT_MS * 2);
    await this.poll();
    const otherVoters = this.voters.voterIds().filter((id) => id !== this.localId);
    if (!this.client.quorumState().isLeader()) {
      const preVotes = this.sentRequests(RaftApiKey.VOTE);
      for (const request of preVotes)
        this.deliverResponse(request, this.voteResponse({ granted: true, epoch }));
      await this.poll();
      const votes = this.sentRequests(RaftApiKey.VOTE);
      for (const request of votes)
        this.deliverResponse(request, this.voteResponse({ granted: true, epoch: epoch + 1 }));
      await this.poll();
    }
    check(
      this.client.quorumState().isLeader(),
      () => `not leader after the election (voters ${otherVoters})`,
    );
    this.carryOutReady();
    this.channel.drainSendQueue();
    this.channel.drainSentResponses();
    return this.client.leaderAndEpoch().epoch;
  }

  /** Leader helper: a Fetch from each other voter at the log end, so the HWM reaches it. */
  async advanceHighWatermarkAsLeader(): Promise<void> {
    const epoch = this.client.leaderAndEpoch().epoch;
    await this.poll();
    const endOffset = this.log.endOffset();
    for (const voterId of this.voters.voterIds()) {
      if (voterId === this.localId) continue;
      this.deliverRequest(
        RaftApiKey.FETCH,
        this.fetchRequest({
          epoch,
          replicaId: voterId,
          fetchOffset: endOffset,
          lastFetchedEpoch: this.log.lastFetchedEpoch(),
        }),
        voterId,
      );
    }
    await this.poll();
    this.sentResponses(RaftApiKey.FETCH);
  }

  /**
   * Leader helper for three voters (this node and voters 1 and 2): becomes leader, commits the
   * epoch start, appends one data batch and lets voter 1 fetch it, so the high watermark covers
   * it. Voter 1 then holds the whole log; voter 2 lags one batch behind, at `laggingOffset`.
   * Drains the responses sent on the way.
   */
  async becomeLeaderWithCommittedBatch(): Promise<{
    epoch: number;
    highWatermark: number;
    laggingOffset: number;
  }> {
    const epoch = await this.becomeLeader();
    await this.advanceHighWatermarkAsLeader();
    const laggingOffset = this.log.endOffset();
    this.client.scheduleAppend(epoch, [Buffer.from('a')]);
    await this.poll();
    this.deliverVoterFetch(1, epoch, this.log.endOffset());
    await this.poll();
    this.channel.drainSentResponses();
    const highWatermark = this.client.highWatermark();
    check(
      highWatermark === this.log.endOffset(),
      () => `high watermark ${highWatermark}, expected the log end ${this.log.endOffset()}`,
    );
    return { epoch, highWatermark, laggingOffset };
  }
}

/** Encodes and decodes `data` as the wire would, so the client sees what a transport hands it. */
function roundTrip(
  codec:
    | { write(data: unknown, version: number): Buffer; read(buffer: Buffer, version: number): unknown }
    | undefined,
  data: unknown,
  version: number,
): unknown {
  return codec === undefined ? data : codec.read(codec.write(data, version), version);
}

/** A transport's synthetic failure answer carries only an error code. */
function isSyntheticError(data: unknown): boolean {
  return typeof data === 'object' && data !== null && Object.keys(data).length === 1 && 'errorCode' in data;
}

/** Builds data records (one batch) for appending to a log or a fetch response. */
export function recordsOf(
  baseOffset: number,
  epoch: number,
  values: readonly string[],
  timestamp = 0,
): MemoryRecords {
  const builder = new MemoryRecordsBuilder({ baseOffset, partitionLeaderEpoch: epoch });
  for (const value of values) builder.append({ timestamp, value: Buffer.from(value) });
  return builder.build();
}

export class RaftClientTestContextBuilder {
  private readonly localId: number | undefined;
  private readonly voterIds: number[];
  private localDirectoryId: Uuid = Uuid.ZERO;
  private readonly store = new MockQuorumStateStore();
  private readonly time = new MockTime();
  private readonly random = new MockableRandom();
  private config: Partial<QuorumConfig> = {};
  private logFactory: LogFactory = () => new MockLog();
  private readonly logSetup: ((log: RaftLog) => void)[] = [];
  private rpcVersions: Partial<RpcVersions> = {};
  private clusterId: string | undefined;
  private logger: Logger | undefined;
  private kraftVersion: 0 | 1 = 0;
  private topic: ReplicatedTopic = METADATA_TOPIC;
  private listenerReadBufferBytes: number | undefined;
  private bootstrapServers: readonly NodeAddress[] = [];
  private localEndpoints: Endpoints | undefined;
  private autoJoin: boolean | undefined;

  constructor(localId: number | undefined, voterIds: number[]) {
    this.localId = localId;
    this.voterIds = voterIds;
  }

  withElectedLeader(epoch: number, leaderId: number): this {
    this.store.writeElectionState(
      ElectionState.withElectedLeader(epoch, leaderId, undefined, this.voterIds).toQuorumStateData(0),
      0,
    );
    return this;
  }

  withVotedCandidate(epoch: number, candidateId: number): this {
    this.store.writeElectionState(
      ElectionState.withVotedCandidate(epoch, ReplicaKey.of(candidateId), this.voterIds).toQuorumStateData(0),
      0,
    );
    return this;
  }

  withUnknownLeader(epoch: number): this {
    this.store.writeElectionState(
      ElectionState.withUnknownLeader(epoch, this.voterIds).toQuorumStateData(0),
      0,
    );
    return this;
  }

  withDirectoryId(directoryId: Uuid): this {
    this.localDirectoryId = directoryId;
    return this;
  }

  withConfig(config: Partial<QuorumConfig>): this {
    this.config = { ...this.config, ...config };
    return this;
  }

  withClusterId(clusterId: string): this {
    this.clusterId = clusterId;
    return this;
  }

  withRpcVersions(versions: Partial<RpcVersions>): this {
    this.rpcVersions = { ...this.rpcVersions, ...versions };
    return this;
  }

  /** The topic the client replicates (default `__cluster_metadata`). */
  withTopic(topic: ReplicatedTopic): this {
    this.topic = topic;
    return this;
  }

  /** The listener readers' refill buffer (KafkaRaftClientOptions.listenerReadBufferBytes). */
  withListenerReadBufferBytes(bytes: number): this {
    this.listenerReadBufferBytes = bytes;
    return this;
  }

  /** This node's own listeners (by default the static voter set's entry for it: none). */
  withLocalEndpoints(endpoints: Endpoints): this {
    this.localEndpoints = endpoints;
    return this;
  }

  withKRaftVersion(kraftVersion: 0 | 1): this {
    this.kraftVersion = kraftVersion;
    return this;
  }

  /** `controller.quorum.bootstrap.servers`: reached as ids -2, -3, ... in that order. */
  withBootstrapServers(servers: readonly NodeAddress[]): this {
    this.bootstrapServers = servers;
    return this;
  }

  /** `controller.quorum.auto.join.enable` (KafkaRaftClientOptions.autoJoin). */
  withAutoJoin(autoJoin: boolean): this {
    this.autoJoin = autoJoin;
    return this;
  }

  withLogger(logger: Logger): this {
    this.logger = logger;
    return this;
  }

  /** The log to run on: default MockLog; pass e.g. `() => RaftLog.open(...)` from @kraft/log. */
  withLogFactory(factory: LogFactory): this {
    this.logFactory = factory;
    return this;
  }

  /** Appends `values` as one batch of `epoch` to the log before the client starts (flushed). */
  appendToLog(epoch: number, values: readonly string[]): this {
    this.logSetup.push((log) => {
      log.initializeLeaderEpoch(epoch);
      log.appendAsLeader(recordsOf(log.endOffset(), epoch, values), epoch);
    });
    return this;
  }

  /** Runs arbitrary setup on the log before the client starts. */
  withLogSetup(setup: (log: RaftLog) => void): this {
    this.logSetup.push(setup);
    return this;
  }

  async build(): Promise<RaftClientTestContext> {
    const log = this.logFactory();
    for (const setup of this.logSetup) setup(log);
    if (log.lastFlushedOffset() < log.endOffset()) await log.flush();
    const channel = new MockNetworkChannel();
    const voters = VoterSet.fromIds(this.voterIds);
    const config: Partial<QuorumConfig> = {
      electionTimeoutMs: RaftClientTestContext.ELECTION_TIMEOUT_MS,
      fetchTimeoutMs: RaftClientTestContext.FETCH_TIMEOUT_MS,
      electionBackoffMaxMs: RaftClientTestContext.ELECTION_BACKOFF_MAX_MS,
      requestTimeoutMs: RaftClientTestContext.REQUEST_TIMEOUT_MS,
      retryBackoffMs: RaftClientTestContext.RETRY_BACKOFF_MS,
      fetchMaxWaitMs: RaftClientTestContext.FETCH_MAX_WAIT_MS,
      appendLingerMs: RaftClientTestContext.LINGER_MS,
      ...this.config,
    };
    const rpcVersions: RpcVersions = { ...DEFAULT_RPC_VERSIONS, ...this.rpcVersions };
    const client = new KafkaRaftClient({
      nodeId: this.localId,
      directoryId: this.localDirectoryId,
      ...(this.clusterId === undefined ? {} : { clusterId: this.clusterId }),
      voters,
      log,
      network: channel,
      quorumStateStore: this.store,
      random: this.random,
      config,
      rpcVersions,
      kraftVersion: this.kraftVersion,
      topic: this.topic,
      ...(this.listenerReadBufferBytes === undefined
        ? {}
        : { listenerReadBufferBytes: this.listenerReadBufferBytes }),
      ...(this.logger === undefined ? {} : { logger: this.logger }),
      ...(this.bootstrapServers.length === 0 ? {} : { bootstrapServers: this.bootstrapServers }),
      ...(this.localEndpoints === undefined ? {} : { localEndpoints: this.localEndpoints }),
      ...(this.autoJoin === undefined ? {} : { autoJoin: this.autoJoin }),
    });
    const listener = new MockListener();
    client.register(listener);
    client.initialize(this.time.milliseconds());
    const context = new RaftClientTestContext({
      client,
      log,
      channel,
      store: this.store,
      time: this.time,
      random: this.random,
      listener,
      localId: this.localId,
      localDirectoryId: this.localDirectoryId,
      voters,
      rpcVersions,
      topic: this.topic,
    });
    // What initialize recorded (a lone voter's election, a stored epoch behind the log).
    context.carryOutReady();
    return context;
  }
}
