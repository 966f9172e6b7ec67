import type { FollowerState } from '../states/follower-state.js';
import type { LeaderWritePath } from './leader-write-path.js';
import type { RaftClientContext } from './raft-client-context.js';
import type {
  FetchRequestSender,
  ParkedFetches,
  QuorumEpochRequestSender,
  VoteRequestSender,
} from './request-senders.js';
import type { StateTransitions } from './state-transitions.js';

/** Bounds the re-polls of one `poll` when states change back to back (e.g. lone voter → leader). */
const MAX_STATE_POLLS_PER_POLL = 8;

/** Runs the current state's timers and sends what it owes (Kafka's `pollLeader`, `pollFollower`, ...). */
export class StatePoller {
  constructor(
    private readonly context: RaftClientContext,
    private readonly transitions: StateTransitions,
    private readonly leaderWritePath: LeaderWritePath,
    private readonly parkedFetches: ParkedFetches,
    private readonly voteHandler: VoteRequestSender,
    private readonly quorumEpochHandler: QuorumEpochRequestSender,
    private readonly followerFetch: FetchRequestSender,
  ) {}

  pollState(nowMs: number): number {
    let timeoutMs = Number.POSITIVE_INFINITY;
    for (let round = 0; round < MAX_STATE_POLLS_PER_POLL; round += 1) {
      const before = this.context.quorum.state();
      timeoutMs = this.pollCurrentState(nowMs);
      if (this.context.quorum.state() === before) return timeoutMs;
    }
    return 0;
  }

  private pollCurrentState(nowMs: number): number {
    const state = this.context.quorum.state();
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
    const leader = this.context.quorum.leaderStateOrThrow();
    if (this.context.isShuttingDown()) {
      // Won an election that was still running when shutdown began: hand leadership on at once.
      this.transitions.resignLeadership(nowMs);
      return 0;
    }
    const checkQuorumMs = leader.timeUntilCheckQuorumExpires(nowMs);
    if (checkQuorumMs === 0) {
      this.context.logger.info(
        { epoch: leader.epoch },
        'check-quorum expired: a majority has not fetched; resigning',
      );
      this.transitions.resignLeadership(nowMs);
      return 0;
    }
    if (this.leaderWritePath.maybeAppendBatches(leader, nowMs))
      this.parkedFetches.completeParkedFetches(nowMs);
    if (leader.timeUntilBeginQuorumEpochTimerExpires(nowMs) === 0) {
      for (const voterId of leader.nonAcknowledgingVoters(nowMs)) {
        if (this.context.requestManager.isReady(voterId, nowMs))
          this.quorumEpochHandler.sendBeginQuorumEpoch(leader, voterId, nowMs);
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
    const candidate = this.context.quorum.candidateStateOrThrow();
    if (candidate.hasElectionTimeoutExpired(nowMs)) {
      this.context.logger.info({ epoch: candidate.epoch }, 'election timed out; back to pre-vote');
      this.transitions.transitionToProspective(nowMs);
      return 0;
    }
    const unrecorded = candidate.epochElection.unrecordedVoters();
    this.voteHandler.sendVoteRequests(unrecorded, candidate.epoch, false, nowMs);
    return Math.min(candidate.remainingElectionTimeMs(nowMs), this.timeUntilAnyReadyMs(unrecorded, nowMs));
  }

  private pollProspective(nowMs: number): number {
    const prospective = this.context.quorum.prospectiveStateOrThrow();
    if (this.transitions.maybeTransitionToCandidate(nowMs)) return 0;
    if (prospective.hasElectionTimeoutExpired(nowMs)) {
      this.context.logger.info({ epoch: prospective.epoch }, 'pre-vote timed out before a majority granted');
      this.transitions.prospectiveTransitionAfterElectionLoss(nowMs);
      return 0;
    }
    const unrecorded = prospective.epochElection.unrecordedVoters();
    this.voteHandler.sendVoteRequests(unrecorded, prospective.epoch, true, nowMs);
    return Math.min(prospective.remainingElectionTimeMs(nowMs), this.timeUntilAnyReadyMs(unrecorded, nowMs));
  }

  private pollUnattached(nowMs: number): number {
    const unattached = this.context.quorum.unattachedStateOrThrow();
    if (this.context.quorum.isVoter()) {
      if (unattached.hasElectionTimeoutExpired(nowMs)) {
        this.transitions.transitionToProspective(nowMs);
        return 0;
      }
      return unattached.remainingElectionTimeMs(nowMs);
    }
    // An observer without a leader asks a voter (any Fetch answer names the leader).
    return this.pollObserverDiscovery(nowMs);
  }

  private pollResigned(nowMs: number): number {
    const resigned = this.context.quorum.resignedStateOrThrow();
    if (resigned.hasElectionTimeoutExpired(nowMs)) {
      this.transitions.transitionToUnattached(resigned.epoch + 1, undefined, nowMs);
      return 0;
    }
    for (const voterId of resigned.unackedVoterIds()) {
      if (!this.context.requestManager.isReady(voterId, nowMs)) continue;
      this.quorumEpochHandler.sendEndQuorumEpoch(resigned, voterId, nowMs);
    }
    return Math.min(
      resigned.remainingElectionTimeMs(nowMs),
      this.timeUntilAnyReadyMs(resigned.unackedVoterIds(), nowMs),
    );
  }

  private pollFollower(nowMs: number): number {
    const follower = this.context.quorum.followerStateOrThrow();
    if (this.context.quorum.isVoter() && follower.hasFetchTimeoutExpired(nowMs)) {
      this.context.logger.info(
        { epoch: follower.epoch, leaderId: follower.leaderId },
        'fetch timeout: starting pre-vote',
      );
      this.transitions.transitionToProspective(nowMs);
      return 0;
    }
    // Durability: the next Fetch reports our end offset, so it waits for the flush, and for a
    // downloaded snapshot's freeze (the driver wakes us when it reports, ADR 0039).
    if (this.context.needsFlush()) return 0;
    if (this.context.outbox.hasPendingSnapshotInstall()) return this.fetchTimeoutMs(follower, nowMs);
    const leaderId = follower.leaderId;
    let target: number | undefined = leaderId;
    if (!this.context.requestManager.isReady(leaderId, nowMs)) {
      target = undefined;
      if (this.context.quorum.isObserver() && this.context.requestManager.isBackingOff(leaderId, nowMs)) {
        // The leader may be gone: ask a voter, whose answer names the current leader.
        target = this.context.requestManager.findReadyNode(this.otherVoterIds(), nowMs);
      }
    }
    if (target !== undefined) this.followerFetch.sendFetchOrFetchSnapshot(follower, target, nowMs);
    return Math.min(
      this.fetchTimeoutMs(follower, nowMs),
      Math.max(1, this.context.requestManager.remainingMs(leaderId, nowMs)),
    );
  }

  /** Until a voter's fetch timeout starts an election; an observer has none. */
  private fetchTimeoutMs(follower: FollowerState, nowMs: number): number {
    return this.context.quorum.isVoter() ? follower.remainingFetchTimeMs(nowMs) : Number.POSITIVE_INFINITY;
  }

  private pollObserverDiscovery(nowMs: number): number {
    if (this.context.needsFlush()) return 0;
    if (this.context.outbox.hasPendingSnapshotInstall()) return Number.POSITIVE_INFINITY;
    const voters = this.otherVoterIds();
    const target = this.context.requestManager.findReadyNode(voters, nowMs);
    if (target !== undefined) this.followerFetch.sendFetch(target, this.context.quorum.epoch(), nowMs);
    return this.timeUntilAnyReadyMs(voters, nowMs);
  }

  /** When the first of `nodeIds` (other than us) can take a request again (backoff or timeout). */
  private timeUntilAnyReadyMs(nodeIds: readonly number[], nowMs: number): number {
    let soonestMs = Number.POSITIVE_INFINITY;
    for (const nodeId of nodeIds) {
      if (nodeId !== this.context.options.nodeId)
        soonestMs = Math.min(soonestMs, Math.max(1, this.context.requestManager.remainingMs(nodeId, nowMs)));
    }
    return soonestMs;
  }

  private otherVoterIds(): number[] {
    return this.context.options.voters.voterIds().filter((id) => id !== this.context.options.nodeId);
  }
}
