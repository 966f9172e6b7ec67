import { Errors, type VoteResponseData } from '@kraft/protocol';
import type { OutstandingRequest, RequestSender } from '../client/outbound-requests.js';
import type { RaftIdentity } from '../client/raft-identity.js';
import type { RaftLogView } from '../client/raft-log-views.js';
import type { RequestValidator } from '../client/request-validator.js';
import type { StateTransitions } from '../client/state-transitions.js';
import { compareOffsetAndEpoch, type OffsetAndEpoch } from '../ports/raft-log.js';
import type { QuorumState } from '../quorum-state.js';
import { ReplicaKey } from '../replica-key.js';
import { RaftApiKey } from '../rpc/raft-api-key.js';
import {
  buildVoteRequest,
  buildVoteResponse,
  endpointsFromNodeEndpoints,
  METADATA_PARTITION_INDEX,
  singlePartition,
  topLevelErrorCode,
} from '../rpc/raft-messages.js';
import { isErrorFree, type RaftRequestOf, type RaftResponseOf } from '../rpc/typed-messages.js';

/**
 * Vote (KIP-595, with KIP-996 pre-votes) in both directions: granting or refusing a candidate's
 * request, sending our own requests, and counting the answers toward an election.
 */
export class VoteHandler {
  constructor(
    private readonly identity: RaftIdentity,
    private readonly quorum: QuorumState,
    private readonly log: RaftLogView,
    private readonly validator: RequestValidator,
    private readonly sender: RequestSender,
    private readonly transitions: StateTransitions,
  ) {}

  private voteResponse(
    apiVersion: number,
    errorCode: number,
    partitionErrorCode: number,
    voteGranted: boolean,
  ): VoteResponseData {
    return buildVoteResponse({
      topic: this.identity.topic,
      apiVersion,
      errorCode,
      partitionErrorCode,
      leader: this.quorum.leaderAndEpoch(),
      voteGranted,
      leaderEndpoints: this.quorum.state().leaderEndpoints(),
      listenerName: this.identity.listenerName,
    });
  }

  handleVoteRequest(request: RaftRequestOf<typeof RaftApiKey.VOTE>, nowMs: number): VoteResponseData {
    const { data } = request;
    if (!this.validator.hasValidClusterId(data.clusterId))
      return this.voteResponse(request.apiVersion, Errors.INCONSISTENT_CLUSTER_ID.code, 0, false);
    const partition = singlePartition(data.topics);
    if (
      partition === undefined ||
      !this.validator.isReplicatedTopic(data.topics) ||
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
      this.transitions.transitionToUnattached(candidateEpoch, undefined, nowMs);
    if (!this.validator.isValidVoterKey(data.voterId, partition.voterDirectoryId)) {
      return this.voteResponse(request.apiVersion, Errors.NONE.code, Errors.INVALID_VOTER_KEY.code, false);
    }
    const candidateKey = ReplicaKey.of(partition.replicaId, partition.replicaDirectoryId);
    const ours: OffsetAndEpoch = {
      offset: this.log.endOffset(),
      epoch: this.log.lastFetchedEpoch(),
    };
    const isLogUpToDate = compareOffsetAndEpoch({ offset: lastOffset, epoch: lastEpoch }, ours) >= 0;
    // A replica whose log lost flushed entries may not help elect a leader that lacks them.
    const recovering = this.quorum.isRecoveringLostData();
    const voteGranted = !recovering && this.quorum.state().canGrantVote(candidateKey, isLogUpToDate, preVote);
    if (
      voteGranted &&
      !preVote &&
      (this.quorum.isUnattachedNotVoted() || this.quorum.isProspectiveNotVoted())
    ) {
      const previous = this.quorum.state();
      this.quorum.transitionToUnattachedVotedState(candidateEpoch, candidateKey, nowMs);
      this.transitions.onStateChanged(previous, nowMs);
    }
    this.identity.logger.debug(
      {
        remoteNodeId: candidateKey.id,
        epoch: candidateEpoch,
        preVote,
        voteGranted,
        isLogUpToDate,
        recovering,
      },
      'vote request handled',
    );
    return this.voteResponse(request.apiVersion, Errors.NONE.code, Errors.NONE.code, voteGranted);
  }

  handleVoteResponse(
    response: RaftResponseOf<typeof RaftApiKey.VOTE>,
    context: OutstandingRequest | undefined,
    nowMs: number,
  ): boolean {
    const { data } = response;
    const topLevelError = topLevelErrorCode(data);
    const isOurPreVote =
      context?.preVote === true && this.quorum.isProspective() && context.epoch === this.quorum.epoch();
    if (topLevelError === Errors.UNSUPPORTED_VERSION.code && isOurPreVote) {
      // The voter predates KIP-996: skip the pre-vote as Kafka does.
      const previous = this.quorum.state();
      this.quorum.transitionToCandidate(nowMs);
      this.transitions.onStateChanged(previous, nowMs);
      return true;
    }
    if (!isErrorFree(data)) return false;
    const partition = singlePartition(data.topics);
    if (partition === undefined || !this.validator.isReplicatedTopic(data.topics)) return false;
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
    const endpoints = endpointsFromNodeEndpoints(data.nodeEndpoints, leaderId, this.identity.listenerName);
    const handled = this.transitions.maybeHandleCommonResponse(
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
      if (election.isVoteGranted()) this.transitions.maybeTransitionToCandidate(nowMs);
      else if (election.isVoteRejected()) this.transitions.prospectiveTransitionAfterElectionLoss(nowMs);
    } else if (!context.preVote && this.quorum.isCandidate()) {
      const election = this.quorum.candidateStateOrThrow().epochElection;
      if (!election.isVoter(voterId)) return;
      election.recordVote(voterId, granted);
      this.transitions.maybeTransitionToLeader(nowMs);
    }
  }

  sendVoteRequests(voterIds: readonly number[], epoch: number, preVote: boolean, nowMs: number): void {
    const localKey = this.quorum.localReplicaKeyOrThrow();
    for (const voterId of voterIds) {
      if (voterId === localKey.id || !this.sender.isReady(voterId, nowMs)) continue;
      const voterKey = this.quorum.voters().voterNode(voterId)?.voterKey ?? ReplicaKey.of(voterId);
      const data = buildVoteRequest({
        topic: this.identity.topic,
        clusterId: this.identity.clusterId,
        candidateKey: localKey,
        voterKey,
        epoch,
        lastEpoch: this.log.lastFetchedEpoch(),
        lastOffset: this.log.endOffset(),
        preVote,
      });
      this.sender.sendRequest(
        voterId,
        RaftApiKey.VOTE,
        this.identity.rpcVersions.vote,
        data,
        epoch,
        preVote,
        nowMs,
      );
    }
  }
}
