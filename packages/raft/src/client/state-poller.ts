import type { RaftMetricsRecorder } from '../internals/raft-metrics-recorder.js';
import type { QuorumState } from '../quorum-state.js';
import type { SnapshotInstallSink } from '../raft-outbox.js';
import type { RequestManager } from '../request-manager.js';
import type { FollowerState } from '../states/follower-state.js';
import type { LeaderWritePath } from './leader-write-path.js';
import type { RaftIdentity } from './raft-identity.js';
import { needsFlush, type RaftLogView } from './raft-log-views.js';
import type { RoleRequestSenders } from './request-senders.js';
import type { ShutdownStatus } from './shutdown-deadline.js';
import type { StateTransitions } from './state-transitions.js';

/** Bounds the re-polls of one `poll` when states change back to back (e.g. lone voter → leader). */
const MAX_STATE_POLLS_PER_POLL = 8;

/** Runs the current state's timers and sends what it owes (Kafka's `pollLeader`, `pollFollower`, ...). */
export class StatePoller {
  constructor(
    private readonly identity: RaftIdentity,
    private readonly quorum: QuorumState,
    private readonly log: Pick<RaftLogView, 'lastFlushedOffset' | 'endOffset'>,
    private readonly requestManager: RequestManager,
    private readonly shutdown: ShutdownStatus,
    private readonly transitions: StateTransitions,
    private readonly leaderWritePath: LeaderWritePath,
    private readonly senders: RoleRequestSenders,
    private readonly snapshotInstalls: Pick<SnapshotInstallSink, 'hasPendingSnapshotInstall'>,
    private readonly metrics: Pick<
      RaftMetricsRecorder,
      'onCheckQuorumResignation' | 'onElectionTimeout' | 'onFetchTimeout'
    >,
  ) {}

  pollState(nowMs: number): number {
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
    if (this.shutdown.isShuttingDown()) {
      // Won an election that was still running when shutdown began: hand leadership on at once.
      this.transitions.resignLeadership(nowMs);
      return 0;
    }
    const checkQuorumMs = leader.timeUntilCheckQuorumExpires(nowMs);
    if (checkQuorumMs === 0) {
      this.identity.logger.info(
        { epoch: leader.epoch },
        'check-quorum expired: a majority has not fetched; resigning',
      );
      this.metrics.onCheckQuorumResignation();
      this.transitions.resignLeadership(nowMs);
      return 0;
    }
    if (this.leaderWritePath.maybeAppendBatches(leader, nowMs))
      this.senders.parkedFetches.completeParkedFetches(nowMs);
    if (leader.timeUntilBeginQuorumEpochTimerExpires(nowMs) === 0) {
      for (const voterId of leader.nonAcknowledgingVoters(nowMs)) {
        if (this.requestManager.isReady(voterId, nowMs))
          this.senders.quorumEpoch.sendBeginQuorumEpoch(leader, voterId, nowMs);
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
      this.identity.logger.info({ epoch: candidate.epoch }, 'election timed out; back to pre-vote');
      this.metrics.onElectionTimeout();
      this.transitions.transitionToProspective(nowMs);
      return 0;
    }
    const unrecorded = candidate.epochElection.unrecordedVoters();
    this.senders.vote.sendVoteRequests(unrecorded, candidate.epoch, false, nowMs);
    return Math.min(candidate.remainingElectionTimeMs(nowMs), this.timeUntilAnyReadyMs(unrecorded, nowMs));
  }

  private pollProspective(nowMs: number): number {
    const prospective = this.quorum.prospectiveStateOrThrow();
    if (this.transitions.maybeTransitionToCandidate(nowMs)) return 0;
    if (prospective.hasElectionTimeoutExpired(nowMs)) {
      this.identity.logger.info({ epoch: prospective.epoch }, 'pre-vote timed out before a majority granted');
      this.metrics.onElectionTimeout();
      this.transitions.prospectiveTransitionAfterElectionLoss(nowMs);
      return 0;
    }
    const unrecorded = prospective.epochElection.unrecordedVoters();
    this.senders.vote.sendVoteRequests(unrecorded, prospective.epoch, true, nowMs);
    return Math.min(prospective.remainingElectionTimeMs(nowMs), this.timeUntilAnyReadyMs(unrecorded, nowMs));
  }

  private pollUnattached(nowMs: number): number {
    const unattached = this.quorum.unattachedStateOrThrow();
    if (this.quorum.isVoter()) {
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
    const resigned = this.quorum.resignedStateOrThrow();
    if (resigned.hasElectionTimeoutExpired(nowMs)) {
      this.transitions.transitionToUnattached(resigned.epoch + 1, undefined, nowMs);
      return 0;
    }
    for (const voterId of resigned.unackedVoterIds()) {
      if (!this.requestManager.isReady(voterId, nowMs)) continue;
      this.senders.quorumEpoch.sendEndQuorumEpoch(resigned, voterId, nowMs);
    }
    return Math.min(
      resigned.remainingElectionTimeMs(nowMs),
      this.timeUntilAnyReadyMs(resigned.unackedVoterIds(), nowMs),
    );
  }

  private pollFollower(nowMs: number): number {
    const follower = this.quorum.followerStateOrThrow();
    if (this.quorum.isVoter() && follower.hasFetchTimeoutExpired(nowMs)) {
      this.identity.logger.info(
        { epoch: follower.epoch, leaderId: follower.leaderId },
        'fetch timeout: starting pre-vote',
      );
      this.metrics.onFetchTimeout();
      this.transitions.transitionToProspective(nowMs);
      return 0;
    }
    // Durability: the next Fetch reports our end offset, so it waits for the flush, and for a
    // downloaded snapshot's freeze (the driver wakes us when it reports, ADR 0039).
    if (needsFlush(this.log)) return 0;
    if (this.snapshotInstalls.hasPendingSnapshotInstall()) return this.fetchTimeoutMs(follower, nowMs);
    if (this.quorum.isObserver() && this.requestManager.hasBootstrapServers()) {
      return this.pollFollowerAsBootstrappedObserver(follower, nowMs);
    }
    const leaderId = follower.leaderId;
    let target: number | undefined = leaderId;
    if (!this.requestManager.isReady(leaderId, nowMs)) {
      target = undefined;
      if (this.quorum.isObserver() && this.requestManager.isBackingOff(leaderId, nowMs)) {
        // The leader may be gone: ask a voter, whose answer names the current leader.
        target = this.requestManager.findReadyNode(this.otherVoterIds(), nowMs);
      }
    }
    // kraft.version 1: a voter the committed set misstates tells its leader, once, in place of
    // this poll's Fetch (the leader answers it within its poll).
    // With auto-join, an observer likewise asks to be added, once per period.
    const sentUpdate =
      target === leaderId &&
      (this.senders.updateVoter?.maybeSendUpdateVoter(follower, nowMs) === true ||
        this.senders.autoJoin?.maybeSendAutoJoin(follower, nowMs) === true);
    if (target !== undefined && !sentUpdate)
      this.senders.fetch.sendFetchOrFetchSnapshot(follower, target, nowMs);
    return Math.min(
      this.fetchTimeoutMs(follower, nowMs),
      Math.max(1, this.requestManager.remainingMs(leaderId, nowMs)),
      this.autoJoinRemainingMs(follower, nowMs),
    );
  }

  /** Until an auto-joining observer's next AddRaftVoter is due (at least 1 ms); else infinite. */
  private autoJoinRemainingMs(follower: FollowerState, nowMs: number): number {
    const autoJoin = this.senders.autoJoin;
    return autoJoin === undefined
      ? Number.POSITIVE_INFINITY
      : Math.max(1, autoJoin.remainingMs(follower, nowMs));
  }

  /** Until a voter's fetch timeout starts an election; an observer has none. */
  private fetchTimeoutMs(follower: FollowerState, nowMs: number): number {
    return this.quorum.isVoter() ? follower.remainingFetchTimeMs(nowMs) : Number.POSITIVE_INFINITY;
  }

  /**
   * An observer configured with `controller.quorum.bootstrap.servers` (Kafka's
   * `pollFollowerAsObserver`): it fetches from its leader while the leader answers, and asks a
   * bootstrap server who leads once a fetch to the leader timed out or failed, one fetch in flight
   * at a time. A bootstrap server's answer moves it only when it names a newer leader; the
   * records in it are not appended (they were not asked of the leader).
   */
  private pollFollowerAsBootstrappedObserver(follower: FollowerState, nowMs: number): number {
    const leaderId = follower.leaderId;
    if (this.requestManager.hasRequestTimedOut(leaderId, nowMs)) {
      // Retrying the leader that went silent could wait out one request timeout after another.
      this.requestManager.reset(leaderId);
      return this.fetchFromAnyBootstrapServer(nowMs);
    }
    if (this.requestManager.isBackingOff(leaderId, nowMs)) return this.fetchFromAnyBootstrapServer(nowMs);
    if (!this.requestManager.hasAnyInFlightRequest(nowMs)) {
      if (this.senders.autoJoin?.maybeSendAutoJoin(follower, nowMs) !== true) {
        this.senders.fetch.sendFetchOrFetchSnapshot(follower, leaderId, nowMs);
      }
      return Math.min(
        Math.max(1, this.requestManager.remainingMs(leaderId, nowMs)),
        this.autoJoinRemainingMs(follower, nowMs),
      );
    }
    return Math.max(1, this.requestManager.backoffBeforeAvailableBootstrapServerMs(nowMs));
  }

  /** A discovery fetch to a ready bootstrap server, if one is; then when to try again. */
  private fetchFromAnyBootstrapServer(nowMs: number): number {
    const target = this.requestManager.findReadyBootstrapServer(nowMs);
    if (target !== undefined) this.senders.fetch.sendFetch(target, this.quorum.epoch(), nowMs);
    return Math.max(1, this.requestManager.backoffBeforeAvailableBootstrapServerMs(nowMs));
  }

  /**
   * An observer without a leader asks who leads: a bootstrap server when
   * `controller.quorum.bootstrap.servers` is set (as Kafka, even when the voters are known:
   * the configured list is the operator's word on where the quorum is), else a known voter.
   */
  private pollObserverDiscovery(nowMs: number): number {
    if (needsFlush(this.log)) return 0;
    if (this.snapshotInstalls.hasPendingSnapshotInstall()) return Number.POSITIVE_INFINITY;
    if (this.requestManager.hasBootstrapServers()) return this.fetchFromAnyBootstrapServer(nowMs);
    const voters = this.otherVoterIds();
    const target = this.requestManager.findReadyNode(voters, nowMs);
    if (target !== undefined) this.senders.fetch.sendFetch(target, this.quorum.epoch(), nowMs);
    return this.timeUntilAnyReadyMs(voters, nowMs);
  }

  /** When the first of `nodeIds` (other than us) can take a request again (backoff or timeout). */
  private timeUntilAnyReadyMs(nodeIds: readonly number[], nowMs: number): number {
    let soonestMs = Number.POSITIVE_INFINITY;
    for (const nodeId of nodeIds) {
      if (nodeId !== this.identity.nodeId)
        soonestMs = Math.min(soonestMs, Math.max(1, this.requestManager.remainingMs(nodeId, nowMs)));
    }
    return soonestMs;
  }

  private otherVoterIds(): number[] {
    return this.quorum
      .voters()
      .voterIds()
      .filter((id) => id !== this.identity.nodeId);
  }
}
