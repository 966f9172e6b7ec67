import { Errors, type VoteResponseData } from '@kraft/protocol';
import type { OutstandingRequest, RaftClientContext } from '../client/raft-client-context.js';
import type { StateTransitions } from '../client/state-transitions.js';
import { compareOffsetAndEpoch, type OffsetAndEpoch } from '../ports/raft-log.js';
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
    private readonly context: RaftClientContext,
    private readonly transitions: StateTransitions,
  ) {}

  private voteResponse(
    apiVersion: number,
    errorCode: number,
    partitionErrorCode: number,
    voteGranted: boolean,
  ): VoteResponseData {
    return buildVoteResponse({
      topic: this.context.topic,
      apiVersion,
      errorCode,
      partitionErrorCode,
      leader: this.context.quorum.leaderAndEpoch(),
      voteGranted,
      leaderEndpoints: this.context.quorum.state().leaderEndpoints(),
      listenerName: this.context.listenerName,
    });
  }

  handleVoteRequest(request: RaftRequestOf<typeof RaftApiKey.VOTE>, nowMs: number): VoteResponseData {
    const { data } = request;
    if (!this.context.hasValidClusterId(data.clusterId))
      return this.voteResponse(request.apiVersion, Errors.INCONSISTENT_CLUSTER_ID.code, 0, false);
    const partition = singlePartition(data.topics);
    if (
      partition === undefined ||
      !this.context.isReplicatedTopic(data.topics) ||
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
    if (candidateEpoch < this.context.quorum.epoch())
      return this.voteResponse(request.apiVersion, Errors.NONE.code, Errors.FENCED_LEADER_EPOCH.code, false);
    if (!preVote && candidateEpoch > this.context.quorum.epoch())
      this.transitions.transitionToUnattached(candidateEpoch, undefined, nowMs);
    if (!this.context.isValidVoterKey(data.voterId, partition.voterDirectoryId)) {
      return this.voteResponse(request.apiVersion, Errors.NONE.code, Errors.INVALID_VOTER_KEY.code, false);
    }
    const candidateKey = ReplicaKey.of(partition.replicaId, partition.replicaDirectoryId);
    const ours: OffsetAndEpoch = {
      offset: this.context.log.endOffset(),
      epoch: this.context.log.lastFetchedEpoch(),
    };
    const isLogUpToDate = compareOffsetAndEpoch({ offset: lastOffset, epoch: lastEpoch }, ours) >= 0;
    // A replica whose log lost flushed entries may not help elect a leader that lacks them.
    const recovering = this.context.quorum.isRecoveringLostData();
    const voteGranted =
      !recovering && this.context.quorum.state().canGrantVote(candidateKey, isLogUpToDate, preVote);
    if (
      voteGranted &&
      !preVote &&
      (this.context.quorum.isUnattachedNotVoted() || this.context.quorum.isProspectiveNotVoted())
    ) {
      const previous = this.context.quorum.state();
      this.context.quorum.transitionToUnattachedVotedState(candidateEpoch, candidateKey, nowMs);
      this.transitions.onStateChanged(previous, nowMs);
    }
    this.context.logger.debug(
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
      context?.preVote === true &&
      this.context.quorum.isProspective() &&
      context.epoch === this.context.quorum.epoch();
    if (topLevelError === Errors.UNSUPPORTED_VERSION.code && isOurPreVote) {
      // The voter predates KIP-996: skip the pre-vote as Kafka does.
      const previous = this.context.quorum.state();
      this.context.quorum.transitionToCandidate(nowMs);
      this.transitions.onStateChanged(previous, nowMs);
      return true;
    }
    if (!isErrorFree(data)) return false;
    const partition = singlePartition(data.topics);
    if (partition === undefined || !this.context.isReplicatedTopic(data.topics)) return false;
    if (partition.leaderEpoch < this.context.quorum.epoch()) {
      // Stale, except our pre-vote: a voter answers it at its own (possibly older) epoch.
      const isOurPreVoteAnswer =
        context?.preVote === true &&
        context.epoch === this.context.quorum.epoch() &&
        partition.errorCode === Errors.NONE.code;
      if (isOurPreVoteAnswer) this.recordVote(response.sourceId, context, partition.voteGranted, nowMs);
      return true;
    }
    const leaderId = partition.leaderId >= 0 ? partition.leaderId : undefined;
    const endpoints = endpointsFromNodeEndpoints(data.nodeEndpoints, leaderId, this.context.listenerName);
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
    if (context === undefined || context.epoch !== this.context.quorum.epoch()) return;
    if (context.preVote && this.context.quorum.isProspective()) {
      const election = this.context.quorum.prospectiveStateOrThrow().epochElection;
      if (!election.isVoter(voterId)) return;
      election.recordVote(voterId, granted);
      if (election.isVoteGranted()) this.transitions.maybeTransitionToCandidate(nowMs);
      else if (election.isVoteRejected()) this.transitions.prospectiveTransitionAfterElectionLoss(nowMs);
    } else if (!context.preVote && this.context.quorum.isCandidate()) {
      const election = this.context.quorum.candidateStateOrThrow().epochElection;
      if (!election.isVoter(voterId)) return;
      election.recordVote(voterId, granted);
      this.transitions.maybeTransitionToLeader(nowMs);
    }
  }

  sendVoteRequests(voterIds: readonly number[], epoch: number, preVote: boolean, nowMs: number): void {
    const localKey = this.context.quorum.localReplicaKeyOrThrow();
    for (const voterId of voterIds) {
      if (voterId === localKey.id || !this.context.requestManager.isReady(voterId, nowMs)) continue;
      const voterKey = this.context.options.voters.voterNode(voterId)?.voterKey ?? ReplicaKey.of(voterId);
      const data = buildVoteRequest({
        topic: this.context.topic,
        clusterId: this.context.clusterId(),
        candidateKey: localKey,
        voterKey,
        epoch,
        lastEpoch: this.context.log.lastFetchedEpoch(),
        lastOffset: this.context.log.endOffset(),
        preVote,
      });
      this.context.sendRequest(
        voterId,
        RaftApiKey.VOTE,
        this.context.rpcVersions.vote,
        data,
        epoch,
        preVote,
        nowMs,
      );
    }
  }
}
