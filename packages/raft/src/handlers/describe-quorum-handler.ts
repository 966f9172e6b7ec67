import { type DescribeQuorumRequestData, Errors } from '@kraft/protocol';
import type { RaftClientContext } from '../client/raft-client-context.js';
import type { InboundRequest } from '../ports/network-channel.js';
import type { ReplicaKey } from '../replica-key.js';
import {
  buildDescribeQuorumResponse,
  type DescribeQuorumReplica,
  listenersOf,
  METADATA_PARTITION_INDEX,
  singlePartition,
} from '../rpc/raft-messages.js';

/** DescribeQuorum (KIP-595/853): the leader reports its voters, observers and high watermark. */
export class DescribeQuorumHandler {
  constructor(private readonly context: RaftClientContext) {}

  handleDescribeQuorumRequest(request: InboundRequest, nowMs: number) {
    const data = request.data as DescribeQuorumRequestData;
    const partition = singlePartition(data.topics);
    if (
      partition === undefined ||
      !this.context.isReplicatedTopic(data.topics) ||
      partition.partitionIndex !== METADATA_PARTITION_INDEX
    ) {
      return buildDescribeQuorumResponse({
        topic: this.context.topic,
        apiVersion: request.apiVersion,
        errorCode: Errors.NONE.code,
        partitionErrorCode: Errors.UNKNOWN_TOPIC_OR_PARTITION.code,
      });
    }
    if (!this.context.quorum.isLeader()) {
      return buildDescribeQuorumResponse({
        topic: this.context.topic,
        apiVersion: request.apiVersion,
        errorCode: Errors.NONE.code,
        partitionErrorCode: Errors.NOT_LEADER_OR_FOLLOWER.code,
      });
    }
    const leader = this.context.quorum.leaderStateOrThrow();
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
      topic: this.context.topic,
      apiVersion: request.apiVersion,
      errorCode: Errors.NONE.code,
      leader: leader.leaderAndEpoch(),
      highWatermark: leader.highWatermark() ?? -1,
      voters: leader.describeVoters().map(toReplica),
      observers: leader.describeObservers(nowMs).map(toReplica),
      nodes: this.context.options.voters
        .voterNodes()
        .filter((node) => !node.listeners.isEmpty())
        .map((node) => ({ nodeId: node.voterKey.id, listeners: listenersOf(node.listeners) })),
    });
  }
}
