import { type DescribeQuorumResponseData, Errors } from '@kraft/protocol';
import type { RaftIdentity } from '../client/raft-identity.js';
import type { RequestValidator } from '../client/request-validator.js';
import type { QuorumState } from '../quorum-state.js';
import type { ReplicaKey } from '../replica-key.js';
import type { RaftApiKey } from '../rpc/raft-api-key.js';
import {
  buildDescribeQuorumErrorResponse,
  buildDescribeQuorumResponse,
  type DescribeQuorumReplica,
  listenersOf,
  METADATA_PARTITION_INDEX,
  singlePartition,
} from '../rpc/raft-messages.js';
import type { RaftRequestOf } from '../rpc/typed-messages.js';

interface DescribedReplica {
  readonly replicaKey: ReplicaKey;
  readonly endOffset: number | undefined;
  readonly lastFetchTimestampMs: number;
  readonly lastCaughtUpTimestampMs: number;
}

/** DescribeQuorum (KIP-595/853): the leader reports its voters, observers and high watermark. */
export class DescribeQuorumHandler {
  constructor(
    private readonly identity: RaftIdentity,
    private readonly quorum: QuorumState,
    private readonly validator: RequestValidator,
  ) {}

  handleDescribeQuorumRequest(
    request: RaftRequestOf<typeof RaftApiKey.DESCRIBE_QUORUM>,
    nowMs: number,
  ): DescribeQuorumResponseData {
    const { data } = request;
    const partition = singlePartition(data.topics);
    if (
      partition === undefined ||
      !this.validator.isReplicatedTopic(data.topics) ||
      partition.partitionIndex !== METADATA_PARTITION_INDEX
    ) {
      // Kafka answers for every partition asked about, whatever the request named.
      const asked = data.topics.map((topic) => ({
        topicName: topic.topicName,
        partitionIndexes: topic.partitions.map((entry) => entry.partitionIndex),
      }));
      return buildDescribeQuorumErrorResponse(asked, Errors.UNKNOWN_TOPIC_OR_PARTITION);
    }
    if (!this.quorum.isLeader()) {
      const ours = { topicName: this.identity.topic.name, partitionIndexes: [METADATA_PARTITION_INDEX] };
      return buildDescribeQuorumErrorResponse([ours], Errors.NOT_LEADER_OR_FOLLOWER);
    }
    const leader = this.quorum.leaderStateOrThrow();
    const leaderId = leader.localKey.id;
    // Kafka reports the leader as having fetched and caught up at the time of the request.
    const toReplica = (state: DescribedReplica): DescribeQuorumReplica => {
      const isLeader = state.replicaKey.id === leaderId;
      return {
        replicaId: state.replicaKey.id,
        replicaDirectoryId: state.replicaKey.directoryIdOrZero(),
        logEndOffset: BigInt(state.endOffset ?? -1),
        lastFetchTimestamp: BigInt(isLeader ? nowMs : state.lastFetchTimestampMs),
        lastCaughtUpTimestamp: BigInt(isLeader ? nowMs : state.lastCaughtUpTimestampMs),
      };
    };
    return buildDescribeQuorumResponse({
      topic: this.identity.topic,
      apiVersion: request.apiVersion,
      leader: leader.leaderAndEpoch(),
      highWatermark: leader.highWatermark() ?? -1,
      voters: leader.describeVoters().map(toReplica),
      observers: leader.describeObservers(nowMs).map(toReplica),
      // One node per voter, as Kafka lists them, even when its endpoints are unknown.
      nodes: leader
        .voters()
        .voterNodes()
        .map((node) => ({ nodeId: node.voterKey.id, listeners: listenersOf(node.listeners) })),
    });
  }
}
