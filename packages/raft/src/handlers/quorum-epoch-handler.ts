import { type BeginQuorumEpochResponseData, type EndQuorumEpochResponseData, Errors } from '@kraft/protocol';
import type { RequestSender } from '../client/outbound-requests.js';
import type { RaftIdentity } from '../client/raft-identity.js';
import type { RequestValidator } from '../client/request-validator.js';
import type { StateTransitions } from '../client/state-transitions.js';
import type { InboundRequest } from '../ports/network-channel.js';
import type { QuorumState } from '../quorum-state.js';
import { ReplicaKey } from '../replica-key.js';
import { RaftApiKey } from '../rpc/raft-api-key.js';
import {
  buildBeginQuorumEpochRequest,
  buildEndQuorumEpochRequest,
  buildQuorumEpochResponse,
  endpointsFromListeners,
  endpointsFromNodeEndpoints,
  singlePartition,
} from '../rpc/raft-messages.js';
import { isErrorFree, type RaftRequestOf, type RaftResponseOf } from '../rpc/typed-messages.js';
import { FollowerState } from '../states/follower-state.js';
import type { LeaderState } from '../states/leader-state.js';
import type { ResignedState } from '../states/resigned-state.js';

/**
 * BeginQuorumEpoch and EndQuorumEpoch in both directions: a new leader announces its epoch, a
 * resigning leader names its preferred successors, and the voters answer.
 */
export class QuorumEpochHandler {
  constructor(
    private readonly identity: RaftIdentity,
    private readonly quorum: QuorumState,
    private readonly validator: RequestValidator,
    private readonly sender: RequestSender,
    private readonly transitions: StateTransitions,
  ) {}

  private quorumEpochResponse(
    apiVersion: number,
    errorCode: number,
    partitionErrorCode: number,
  ): BeginQuorumEpochResponseData {
    return buildQuorumEpochResponse({
      topic: this.identity.topic,
      apiVersion,
      errorCode,
      partitionErrorCode,
      leader: this.quorum.leaderAndEpoch(),
      leaderEndpoints: this.quorum.state().leaderEndpoints(),
      listenerName: this.identity.listenerName,
    });
  }

  /**
   * The checks Begin- and EndQuorumEpoch share, in Kafka's order: the cluster id, one partition of
   * our topic, a current epoch. Returns the partition, or the response that refuses the request.
   */
  private validateQuorumEpochRequest<P extends { readonly leaderEpoch: number }>(
    request: InboundRequest,
    data: {
      readonly clusterId: string | null;
      readonly topics: readonly { readonly topicName: string; readonly partitions: readonly P[] }[];
    },
  ): { readonly partition: P } | { readonly refusal: BeginQuorumEpochResponseData } {
    if (!this.validator.hasValidClusterId(data.clusterId))
      return {
        refusal: this.quorumEpochResponse(request.apiVersion, Errors.INCONSISTENT_CLUSTER_ID.code, 0),
      };
    const partition = singlePartition(data.topics);
    if (partition === undefined || !this.validator.isReplicatedTopic(data.topics))
      return { refusal: this.quorumEpochResponse(request.apiVersion, Errors.INVALID_REQUEST.code, 0) };
    if (partition.leaderEpoch < this.quorum.epoch()) {
      return {
        refusal: this.quorumEpochResponse(
          request.apiVersion,
          Errors.NONE.code,
          Errors.FENCED_LEADER_EPOCH.code,
        ),
      };
    }
    return { partition };
  }

  handleBeginQuorumEpochRequest(
    request: RaftRequestOf<typeof RaftApiKey.BEGIN_QUORUM_EPOCH>,
    nowMs: number,
  ): BeginQuorumEpochResponseData {
    const { data } = request;
    const validated = this.validateQuorumEpochRequest(request, data);
    if ('refusal' in validated) return validated.refusal;
    const { partition } = validated;
    if (!this.validator.isValidVoterKey(data.voterId, partition.voterDirectoryId)) {
      return this.quorumEpochResponse(request.apiVersion, Errors.NONE.code, Errors.INVALID_VOTER_KEY.code);
    }
    if (partition.leaderId === this.identity.nodeId || partition.leaderId < 0) {
      return this.quorumEpochResponse(request.apiVersion, Errors.NONE.code, Errors.INVALID_REQUEST.code);
    }
    this.transitions.maybeTransition(
      partition.leaderId,
      partition.leaderEpoch,
      endpointsFromListeners(data.leaderEndpoints),
      nowMs,
    );
    return this.quorumEpochResponse(request.apiVersion, Errors.NONE.code, Errors.NONE.code);
  }

  handleEndQuorumEpochRequest(
    request: RaftRequestOf<typeof RaftApiKey.END_QUORUM_EPOCH>,
    nowMs: number,
  ): EndQuorumEpochResponseData {
    const { data } = request;
    const validated = this.validateQuorumEpochRequest(request, data);
    if ('refusal' in validated) return validated.refusal;
    const { partition } = validated;
    if (partition.leaderId === this.identity.nodeId || partition.leaderId < 0) {
      return this.quorumEpochResponse(request.apiVersion, Errors.NONE.code, Errors.INVALID_REQUEST.code);
    }
    this.transitions.maybeTransition(
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
      this.identity.logger.debug(
        { epoch: state.epoch, backoffMs },
        'leader resigned: overriding the fetch timeout',
      );
      state.onLeaderResigned(nowMs, backoffMs);
    }
    return this.quorumEpochResponse(request.apiVersion, Errors.NONE.code, Errors.NONE.code);
  }

  /** The most up-to-date successor campaigns at once; the others wait exponentially longer (KIP-595). */
  private endEpochElectionBackoffMs(successors: readonly ReplicaKey[]): number {
    const local = this.quorum.localReplicaKeyOrThrow();
    const position = successors.findIndex((key) => key.matches(local));
    if (position < 0) return this.identity.config.electionBackoffMaxMs;
    return strictExponentialElectionBackoffMs(
      position,
      successors.length,
      this.identity.config.electionBackoffMaxMs,
    );
  }

  handleQuorumEpochResponse(
    response: RaftResponseOf<typeof RaftApiKey.BEGIN_QUORUM_EPOCH | typeof RaftApiKey.END_QUORUM_EPOCH>,
    nowMs: number,
    isEnd: boolean,
  ): boolean {
    const { data } = response;
    if (!isErrorFree(data)) return false;
    const partition = singlePartition(data.topics);
    if (partition === undefined || !this.validator.isReplicatedTopic(data.topics)) return false;
    const leaderId = partition.leaderId >= 0 ? partition.leaderId : undefined;
    const endpoints = endpointsFromNodeEndpoints(data.nodeEndpoints, leaderId, this.identity.listenerName);
    if (partition.errorCode === Errors.NONE.code && isEnd && this.quorum.isResigned()) {
      const resigned = this.quorum.resignedStateOrThrow();
      if (partition.leaderEpoch === resigned.epoch) {
        resigned.acknowledgeResignation(response.sourceId);
        return true;
      }
    }
    const handled = this.transitions.maybeHandleCommonResponse(
      partition.errorCode,
      leaderId,
      partition.leaderEpoch,
      endpoints,
      nowMs,
    );
    if (handled !== undefined) return handled;
    return partition.errorCode === Errors.NONE.code;
  }

  sendBeginQuorumEpoch(leader: LeaderState, voterId: number, nowMs: number): void {
    const voterKey = this.quorum.voters().voterNode(voterId)?.voterKey ?? ReplicaKey.of(voterId);
    const data = buildBeginQuorumEpochRequest({
      topic: this.identity.topic,
      clusterId: this.identity.clusterId,
      leaderId: leader.localKey.id,
      epoch: leader.epoch,
      voterKey,
      leaderEndpoints: this.identity.localEndpoints,
    });
    this.sender.sendRequest(
      voterId,
      RaftApiKey.BEGIN_QUORUM_EPOCH,
      this.identity.rpcVersions.beginQuorumEpoch,
      data,
      leader.epoch,
      false,
      nowMs,
    );
  }

  /** A resigned leader tells a voter that has not acknowledged yet, naming its preferred successors. */
  sendEndQuorumEpoch(resigned: ResignedState, voterId: number, nowMs: number): void {
    const data = buildEndQuorumEpochRequest({
      topic: this.identity.topic,
      clusterId: this.identity.clusterId,
      leaderId: resigned.localId,
      epoch: resigned.epoch,
      preferredSuccessors: resigned.preferredSuccessors,
      leaderEndpoints: this.identity.localEndpoints,
    });
    this.sender.sendRequest(
      voterId,
      RaftApiKey.END_QUORUM_EPOCH,
      this.identity.rpcVersions.endQuorumEpoch,
      data,
      resigned.epoch,
      false,
      nowMs,
    );
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
