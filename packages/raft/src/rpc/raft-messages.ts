/**
 * Builds and reads the KRaft RPC payloads (Kafka's `RaftUtil`): always one topic (by default
 * `__cluster_metadata`; Kafka's raft test server replicates `__raft_performance_test`), with one
 * partition 0. The data objects are `@kraft/protocol`'s plain
 * message data; the transport encodes them at the negotiated version.
 */
import {
  type ApiError,
  type BeginQuorumEpochRequestData,
  type BeginQuorumEpochResponseData,
  type DescribeQuorumResponseData,
  type EndQuorumEpochRequestData,
  type EndQuorumEpochResponseData,
  Errors,
  type FetchRequestData,
  type FetchResponseData,
  type FetchSnapshotRequestData,
  type FetchSnapshotResponseData,
  Uuid,
  type VoteRequestData,
  type VoteResponseData,
} from '@kraft/protocol';
import { Endpoints } from '../endpoints.js';
import type { OffsetAndEpoch } from '../ports/raft-log.js';
import type { LeaderAndEpoch } from '../raft-client.js';
import type { ReplicaKey } from '../replica-key.js';

/** The KRaft metadata log's topic name (Kafka's `Topic.CLUSTER_METADATA_TOPIC_NAME`). */
export const METADATA_TOPIC_NAME = '__cluster_metadata';
/** The metadata log's only partition; every raft RPC names this partition index. */
export const METADATA_PARTITION_INDEX = 0;
/** The metadata topic's fixed topic id (Kafka's `Uuid.METADATA_TOPIC_ID`), used by RPC versions that carry topic ids. */
export const METADATA_TOPIC_ID = Uuid.METADATA_TOPIC_ID;

/** The one topic a raft client replicates: its name and topic id travel in every RPC. */
export interface ReplicatedTopic {
  readonly name: string;
  readonly topicId: Uuid;
}

/** KRaft's metadata topic, the default. */
export const METADATA_TOPIC: ReplicatedTopic = Object.freeze({
  name: METADATA_TOPIC_NAME,
  topicId: METADATA_TOPIC_ID,
});

/** Kafka's `MAX_FETCH_WAIT_MS`. */
export const MAX_FETCH_WAIT_MS = 500;

type VotePartitionRequest = VoteRequestData['topics'][number]['partitions'][number];
type FetchPartitionResponse = FetchResponseData['responses'][number]['partitions'][number];
type FetchSnapshotPartitionResponse = FetchSnapshotResponseData['topics'][number]['partitions'][number];
type DescribeQuorumPartition = DescribeQuorumResponseData['topics'][number]['partitions'][number];
export type DescribeQuorumReplica = DescribeQuorumPartition['currentVoters'][number];

/** The one partition of a request or response, or undefined if the shape is not the metadata partition. */
export function singlePartition<P>(
  topics: readonly { partitions: readonly P[] }[] | undefined,
): P | undefined {
  if (topics === undefined || topics.length !== 1) return undefined;
  const partitions = topics[0]?.partitions;
  if (partitions === undefined || partitions.length !== 1) return undefined;
  return partitions[0];
}

export function topLevelErrorCode(data: unknown): number {
  const code = (data as { errorCode?: unknown } | undefined)?.errorCode;
  return typeof code === 'number' ? code : Errors.NONE.code;
}

/**
 * Endpoints of `nodeId` from a response's NodeEndpoints (listener = the one we used); empty when
 * the response names no leader (`nodeId` undefined) or carries no entry for it.
 */
export function endpointsFromNodeEndpoints(
  nodeEndpoints: readonly { nodeId: number; host: string; port: number }[] | undefined,
  nodeId: number | undefined,
  listenerName: string,
): Endpoints {
  if (nodeId === undefined) return Endpoints.EMPTY;
  const entry = nodeEndpoints?.find((endpoint) => endpoint.nodeId === nodeId);
  return entry === undefined
    ? Endpoints.EMPTY
    : Endpoints.fromEntries([[listenerName, { host: entry.host, port: entry.port }]]);
}

export function endpointsFromListeners(
  listeners: readonly { name: string; host: string; port: number }[] | undefined,
): Endpoints {
  if (listeners === undefined || listeners.length === 0) return Endpoints.EMPTY;
  return Endpoints.fromEntries(
    listeners.map((entry) => [entry.name, { host: entry.host, port: entry.port }] as const),
  );
}

export function listenersOf(endpoints: Endpoints): { name: string; host: string; port: number }[] {
  return [...endpoints.entries()].map(([name, address]) => ({
    name,
    host: address.host,
    port: address.port,
  }));
}

function nodeEndpointsFor(
  leaderId: number | undefined,
  endpoints: Endpoints,
  listenerName: string,
): { nodeId: number; host: string; port: number }[] {
  const address = endpoints.addressFor(listenerName);
  if (leaderId === undefined || address === undefined) return [];
  return [{ nodeId: leaderId, host: address.host, port: address.port }];
}

// --- Vote -------------------------------------------------------------------------------------

export function buildVoteRequest(options: {
  topic?: ReplicatedTopic;
  clusterId: string | null;
  candidateKey: ReplicaKey;
  voterKey: ReplicaKey;
  epoch: number;
  lastEpoch: number;
  lastOffset: number;
  preVote: boolean;
}): VoteRequestData {
  const partition: VotePartitionRequest = {
    partitionIndex: METADATA_PARTITION_INDEX,
    replicaEpoch: options.epoch,
    replicaId: options.candidateKey.id,
    replicaDirectoryId: options.candidateKey.directoryIdOrZero(),
    voterDirectoryId: options.voterKey.directoryIdOrZero(),
    lastOffsetEpoch: options.lastEpoch,
    lastOffset: BigInt(options.lastOffset),
    preVote: options.preVote,
  };
  return {
    clusterId: options.clusterId,
    voterId: options.voterKey.id,
    topics: [{ topicName: (options.topic ?? METADATA_TOPIC).name, partitions: [partition] }],
  };
}

export function buildVoteResponse(options: {
  topic?: ReplicatedTopic;
  /** The request's version: fields the version lacks are left at their defaults. */
  apiVersion: number;
  errorCode: number;
  partitionErrorCode?: number;
  leader: LeaderAndEpoch;
  voteGranted: boolean;
  leaderEndpoints: Endpoints;
  listenerName: string;
}): VoteResponseData {
  if (options.errorCode !== Errors.NONE.code)
    return { errorCode: options.errorCode, topics: [], nodeEndpoints: [] };
  return {
    errorCode: Errors.NONE.code,
    topics: [
      {
        topicName: (options.topic ?? METADATA_TOPIC).name,
        partitions: [
          {
            partitionIndex: METADATA_PARTITION_INDEX,
            errorCode: options.partitionErrorCode ?? Errors.NONE.code,
            leaderId: options.leader.leaderId ?? -1,
            leaderEpoch: options.leader.epoch,
            voteGranted: options.voteGranted,
          },
        ],
      },
    ],
    nodeEndpoints:
      options.apiVersion >= 1
        ? nodeEndpointsFor(options.leader.leaderId, options.leaderEndpoints, options.listenerName)
        : [],
  };
}

// --- BeginQuorumEpoch / EndQuorumEpoch -----------------------------------------------------------

export function buildBeginQuorumEpochRequest(options: {
  topic?: ReplicatedTopic;
  clusterId: string | null;
  leaderId: number;
  epoch: number;
  voterKey: ReplicaKey;
  leaderEndpoints: Endpoints;
}): BeginQuorumEpochRequestData {
  return {
    clusterId: options.clusterId,
    voterId: options.voterKey.id,
    topics: [
      {
        topicName: (options.topic ?? METADATA_TOPIC).name,
        partitions: [
          {
            partitionIndex: METADATA_PARTITION_INDEX,
            voterDirectoryId: options.voterKey.directoryIdOrZero(),
            leaderId: options.leaderId,
            leaderEpoch: options.epoch,
          },
        ],
      },
    ],
    leaderEndpoints: listenersOf(options.leaderEndpoints),
  };
}

/** BeginQuorumEpoch and EndQuorumEpoch responses share one shape. */
export function buildQuorumEpochResponse(options: {
  topic?: ReplicatedTopic;
  /** The request's version: fields the version lacks are left at their defaults. */
  apiVersion: number;
  errorCode: number;
  partitionErrorCode?: number;
  leader: LeaderAndEpoch;
  leaderEndpoints: Endpoints;
  listenerName: string;
}): BeginQuorumEpochResponseData & EndQuorumEpochResponseData {
  if (options.errorCode !== Errors.NONE.code)
    return { errorCode: options.errorCode, topics: [], nodeEndpoints: [] };
  return {
    errorCode: Errors.NONE.code,
    topics: [
      {
        topicName: (options.topic ?? METADATA_TOPIC).name,
        partitions: [
          {
            partitionIndex: METADATA_PARTITION_INDEX,
            errorCode: options.partitionErrorCode ?? Errors.NONE.code,
            leaderId: options.leader.leaderId ?? -1,
            leaderEpoch: options.leader.epoch,
          },
        ],
      },
    ],
    nodeEndpoints:
      options.apiVersion >= 1
        ? nodeEndpointsFor(options.leader.leaderId, options.leaderEndpoints, options.listenerName)
        : [],
  };
}

export function buildEndQuorumEpochRequest(options: {
  topic?: ReplicatedTopic;
  clusterId: string | null;
  leaderId: number;
  epoch: number;
  preferredSuccessors: readonly ReplicaKey[];
  leaderEndpoints: Endpoints;
}): EndQuorumEpochRequestData {
  return {
    clusterId: options.clusterId,
    topics: [
      {
        topicName: (options.topic ?? METADATA_TOPIC).name,
        partitions: [
          {
            partitionIndex: METADATA_PARTITION_INDEX,
            leaderId: options.leaderId,
            leaderEpoch: options.epoch,
            preferredSuccessors: options.preferredSuccessors.map((key) => key.id),
            preferredCandidates: options.preferredSuccessors.map((key) => ({
              candidateId: key.id,
              candidateDirectoryId: key.directoryIdOrZero(),
            })),
          },
        ],
      },
    ],
    leaderEndpoints: listenersOf(options.leaderEndpoints),
  };
}

// --- Fetch ------------------------------------------------------------------------------------

export function buildFetchRequest(options: {
  topic?: ReplicatedTopic;
  clusterId: string | null;
  replicaKey: ReplicaKey | undefined;
  epoch: number;
  fetchOffset: number;
  lastFetchedEpoch: number;
  maxWaitMs: number;
  maxBytes: number;
  highWatermark: number | undefined;
  /** From v15 the replica id moves from `replicaId` into the tagged `replicaState`. */
  apiVersion: number;
}): FetchRequestData {
  const replicaId = options.replicaKey?.id ?? -1;
  const inReplicaState = options.apiVersion >= 15;
  return {
    clusterId: options.clusterId,
    replicaId: inReplicaState ? -1 : replicaId,
    replicaState: { replicaId: inReplicaState ? replicaId : -1, replicaEpoch: -1n },
    maxWaitMs: options.maxWaitMs,
    minBytes: 0,
    maxBytes: options.maxBytes,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic: (options.topic ?? METADATA_TOPIC).name,
        topicId: (options.topic ?? METADATA_TOPIC).topicId,
        partitions: [
          {
            partition: METADATA_PARTITION_INDEX,
            currentLeaderEpoch: options.epoch,
            fetchOffset: BigInt(options.fetchOffset),
            lastFetchedEpoch: options.lastFetchedEpoch,
            logStartOffset: -1n,
            partitionMaxBytes: 0,
            replicaDirectoryId: options.replicaKey?.directoryIdOrZero() ?? Uuid.ZERO,
            // Kafka's follower: -1 while it knows no high watermark, so a v18 leader answers at
            // once instead of holding the fetch (the schema's default, Long.MAX_VALUE, means
            // "the follower does not take part", and left a restarted follower without one).
            highWatermark: BigInt(options.highWatermark ?? -1),
          },
        ],
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  };
}

export interface FetchPartitionResult {
  errorCode: number;
  highWatermark: number | undefined;
  logStartOffset: number;
  leader: LeaderAndEpoch;
  divergingEpoch?: OffsetAndEpoch;
  snapshotId?: OffsetAndEpoch;
  records: Buffer | null;
}

export function buildFetchResponse(options: {
  topic?: ReplicatedTopic;
  /** The request's version: fields the version lacks are left at their defaults. */
  apiVersion: number;
  errorCode: number;
  partition?: FetchPartitionResult;
  leaderEndpoints: Endpoints;
  listenerName: string;
}): FetchResponseData {
  const result = options.partition;
  if (options.errorCode !== Errors.NONE.code || result === undefined) {
    return {
      throttleTimeMs: 0,
      errorCode: options.errorCode,
      sessionId: 0,
      responses: [],
      nodeEndpoints: [],
    };
  }
  const partition: FetchPartitionResponse = {
    partitionIndex: METADATA_PARTITION_INDEX,
    errorCode: result.errorCode,
    highWatermark: BigInt(result.highWatermark ?? -1),
    lastStableOffset: -1n,
    logStartOffset: BigInt(result.logStartOffset),
    divergingEpoch: {
      epoch: result.divergingEpoch?.epoch ?? -1,
      endOffset: BigInt(result.divergingEpoch?.offset ?? -1),
    },
    currentLeader: { leaderId: result.leader.leaderId ?? -1, leaderEpoch: result.leader.epoch },
    snapshotId: {
      endOffset: BigInt(result.snapshotId?.offset ?? -1),
      epoch: result.snapshotId?.epoch ?? -1,
    },
    abortedTransactions: [],
    preferredReadReplica: -1,
    records: result.records,
  };
  return {
    throttleTimeMs: 0,
    errorCode: Errors.NONE.code,
    sessionId: 0,
    responses: [
      {
        topic: (options.topic ?? METADATA_TOPIC).name,
        topicId: (options.topic ?? METADATA_TOPIC).topicId,
        partitions: [partition],
      },
    ],
    nodeEndpoints:
      options.apiVersion < 16
        ? []
        : nodeEndpointsFor(result.leader.leaderId, options.leaderEndpoints, options.listenerName).map(
            (endpoint) => ({
              ...endpoint,
              rack: null,
            }),
          ),
  };
}

// --- FetchSnapshot ----------------------------------------------------------------------------

export function buildFetchSnapshotRequest(options: {
  topic?: ReplicatedTopic;
  clusterId: string | null;
  replicaKey: ReplicaKey | undefined;
  epoch: number;
  snapshotId: OffsetAndEpoch;
  position: number;
  maxBytes: number;
}): FetchSnapshotRequestData {
  return {
    clusterId: options.clusterId,
    replicaId: options.replicaKey?.id ?? -1,
    maxBytes: options.maxBytes,
    topics: [
      {
        name: (options.topic ?? METADATA_TOPIC).name,
        partitions: [
          {
            partition: METADATA_PARTITION_INDEX,
            currentLeaderEpoch: options.epoch,
            snapshotId: { endOffset: BigInt(options.snapshotId.offset), epoch: options.snapshotId.epoch },
            position: BigInt(options.position),
            replicaDirectoryId: options.replicaKey?.directoryIdOrZero() ?? Uuid.ZERO,
          },
        ],
      },
    ],
  };
}

export function buildFetchSnapshotResponse(options: {
  topic?: ReplicatedTopic;
  /** The request's version: fields the version lacks are left at their defaults. */
  apiVersion: number;
  errorCode: number;
  partitionErrorCode?: number;
  leader: LeaderAndEpoch;
  snapshotId?: OffsetAndEpoch;
  sizeInBytes?: number;
  position?: number;
  bytes?: Buffer;
  leaderEndpoints: Endpoints;
  listenerName: string;
}): FetchSnapshotResponseData {
  if (options.errorCode !== Errors.NONE.code) {
    return { throttleTimeMs: 0, errorCode: options.errorCode, topics: [], nodeEndpoints: [] };
  }
  const partition: FetchSnapshotPartitionResponse = {
    index: METADATA_PARTITION_INDEX,
    errorCode: options.partitionErrorCode ?? Errors.NONE.code,
    snapshotId: {
      endOffset: BigInt(options.snapshotId?.offset ?? -1),
      epoch: options.snapshotId?.epoch ?? -1,
    },
    currentLeader: { leaderId: options.leader.leaderId ?? -1, leaderEpoch: options.leader.epoch },
    size: BigInt(options.sizeInBytes ?? -1),
    position: BigInt(options.position ?? -1),
    unalignedRecords: options.bytes ?? Buffer.alloc(0),
  };
  return {
    throttleTimeMs: 0,
    errorCode: Errors.NONE.code,
    topics: [{ name: (options.topic ?? METADATA_TOPIC).name, partitions: [partition] }],
    nodeEndpoints:
      options.apiVersion >= 1
        ? nodeEndpointsFor(options.leader.leaderId, options.leaderEndpoints, options.listenerName)
        : [],
  };
}

// --- DescribeQuorum ---------------------------------------------------------------------------

/**
 * The leader's answer (Kafka's `RaftUtil.singletonDescribeQuorumResponse`). Kafka's data classes
 * default a string to "", so both error messages travel as empty strings, not null.
 */
export function buildDescribeQuorumResponse(options: {
  topic?: ReplicatedTopic;
  /** The request's version: fields the version lacks are left at their defaults. */
  apiVersion: number;
  leader: LeaderAndEpoch;
  highWatermark: number;
  voters: DescribeQuorumReplica[];
  observers: DescribeQuorumReplica[];
  nodes: { nodeId: number; listeners: { name: string; host: string; port: number }[] }[];
}): DescribeQuorumResponseData {
  return {
    errorCode: Errors.NONE.code,
    errorMessage: '',
    topics: [
      {
        topicName: (options.topic ?? METADATA_TOPIC).name,
        partitions: [
          {
            partitionIndex: METADATA_PARTITION_INDEX,
            errorCode: Errors.NONE.code,
            errorMessage: '',
            leaderId: options.leader.leaderId ?? -1,
            leaderEpoch: options.leader.epoch,
            highWatermark: BigInt(options.highWatermark),
            currentVoters: options.voters,
            observers: options.observers,
          },
        ],
      },
    ],
    nodes: options.apiVersion >= 2 ? options.nodes : [],
  };
}

/**
 * A partition-level error for each `{ topicName, partitionIndexes }` given (Kafka's
 * `DescribeQuorumResponse.singletonErrorResponse` and `getPartitionLevelErrorResponse`): the
 * error's Kafka text, and leader id, epoch and high watermark left at the data class's 0.
 */
export function buildDescribeQuorumErrorResponse(
  topics: readonly { topicName: string; partitionIndexes: readonly number[] }[],
  error: ApiError,
): DescribeQuorumResponseData {
  return {
    errorCode: Errors.NONE.code,
    errorMessage: '',
    topics: topics.map((topic) => ({
      topicName: topic.topicName,
      partitions: topic.partitionIndexes.map((partitionIndex) => ({
        partitionIndex,
        errorCode: error.code,
        errorMessage: error.defaultMessage,
        leaderId: 0,
        leaderEpoch: 0,
        highWatermark: 0n,
        currentVoters: [],
        observers: [],
      })),
    })),
    nodes: [],
  };
}
