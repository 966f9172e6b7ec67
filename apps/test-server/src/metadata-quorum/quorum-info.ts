import { type DescribeQuorumResponseData, Errors, Uuid } from '@kraft/protocol';
import type { RaftVoterEndpoint } from './controller-registration.js';
import type { QuorumPartition } from './leader-probe.js';
import { MetadataQuorumError } from './metadata-quorum-error.js';
import { QuorumRequestError } from './quorum-request-error.js';

/** One voter or observer as the leader reports it (Kafka's `QuorumInfo.ReplicaState`). */
export interface ReplicaState {
  readonly replicaId: number;
  /** Zero when the leader did not say (DescribeQuorum below v2, or a replica without one). */
  readonly replicaDirectoryId: Uuid;
  readonly logEndOffset: bigint;
  /** Wall-clock ms; undefined where the leader sent -1 (never fetched). */
  readonly lastFetchTimestamp: bigint | undefined;
  readonly lastCaughtUpTimestamp: bigint | undefined;
}

/** The leader's DescribeQuorum answer for one partition (Kafka's `QuorumInfo`). */
export interface QuorumInfo {
  readonly leaderId: number;
  readonly leaderEpoch: number;
  readonly highWatermark: bigint;
  readonly voters: readonly ReplicaState[];
  readonly observers: readonly ReplicaState[];
  /** Each node's listeners, from DescribeQuorum v2's `nodes`; empty below v2. */
  readonly nodes: ReadonlyMap<number, readonly RaftVoterEndpoint[]>;
}

/** A DescribeQuorum answer: the quorum, or a controller that is not the leader. */
export type DescribeQuorumOutcome =
  | { readonly kind: 'leader'; readonly info: QuorumInfo }
  | { readonly kind: 'not-leader' };

type ResponseReplica =
  DescribeQuorumResponseData['topics'][number]['partitions'][number]['currentVoters'][number];

function replicaState(replica: ResponseReplica): ReplicaState {
  return {
    replicaId: replica.replicaId,
    replicaDirectoryId: replica.replicaDirectoryId ?? Uuid.ZERO,
    logEndOffset: replica.logEndOffset,
    lastFetchTimestamp: replica.lastFetchTimestamp === -1n ? undefined : replica.lastFetchTimestamp,
    lastCaughtUpTimestamp: replica.lastCaughtUpTimestamp === -1n ? undefined : replica.lastCaughtUpTimestamp,
  };
}

/**
 * Checks a DescribeQuorum answer as Kafka's admin client does (one topic, the one asked, one
 * partition, the one asked; Kafka's messages) and translates it. NOT_LEADER_OR_FOLLOWER is
 * `not-leader`, for the caller to look further; any other error is a `QuorumRequestError`.
 */
export function readDescribeQuorumResponse(
  response: DescribeQuorumResponseData,
  partition: QuorumPartition,
  endpoint: string,
): DescribeQuorumOutcome {
  if (response.errorCode !== Errors.NONE.code)
    throw new QuorumRequestError('DescribeQuorum', endpoint, response.errorCode, response.errorMessage);
  const unexpected = (message: string): never => {
    throw new MetadataQuorumError(`${endpoint}: ${message}`);
  };
  if (response.topics.length !== 1)
    unexpected(`DescribeMetadataQuorum received ${response.topics.length} topics when 1 was expected`);
  const topic = response.topics[0]!;
  if (topic.topicName !== partition.topicName)
    unexpected(
      `DescribeMetadataQuorum received a topic with name ${topic.topicName} when ${partition.topicName} was expected`,
    );
  if (topic.partitions.length !== 1)
    unexpected(
      `DescribeMetadataQuorum received a topic ${topic.topicName} with ${topic.partitions.length} partitions when 1 was expected`,
    );
  const data = topic.partitions[0]!;
  if (data.partitionIndex !== partition.partitionIndex)
    unexpected(
      `DescribeMetadataQuorum received a single partition with index ${data.partitionIndex} when ${partition.partitionIndex} was expected`,
    );
  if (data.errorCode === Errors.NOT_LEADER_OR_FOLLOWER.code) return { kind: 'not-leader' };
  if (data.errorCode !== Errors.NONE.code)
    throw new QuorumRequestError('DescribeQuorum', endpoint, data.errorCode, data.errorMessage);
  const nodes = new Map<number, RaftVoterEndpoint[]>(
    response.nodes.map((node) => [
      node.nodeId,
      node.listeners.map((listener) => ({ name: listener.name, host: listener.host, port: listener.port })),
    ]),
  );
  return {
    kind: 'leader',
    info: {
      leaderId: data.leaderId,
      leaderEpoch: data.leaderEpoch,
      highWatermark: data.highWatermark,
      voters: data.currentVoters.map(replicaState),
      observers: data.observers.map(replicaState),
      nodes,
    },
  };
}
