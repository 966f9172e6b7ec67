import { Errors, invariant, Uuid } from '@kraft/protocol';
import { buildControlBatch, type ControlRecordMessage, ControlRecordType } from '@kraft/records';
import type { Endpoints } from '../endpoints.js';
import { BatchAccumulator } from '../internals/batch-accumulator.js';
import type { ControlRecordsTracker } from '../internals/kraft-control-record-state-machine.js';
import type { RaftMetricsRecorder } from '../internals/raft-metrics-recorder.js';
import type { QuorumState } from '../quorum-state.js';
import type { EpochState } from '../states/epoch-state.js';
import { FollowerState } from '../states/follower-state.js';
import { LeaderState } from '../states/leader-state.js';
import type { LeaderWritePath } from './leader-write-path.js';
import type { OutboundRequests } from './outbound-requests.js';
import type { RaftIdentity } from './raft-identity.js';
import type { LeaderLog } from './raft-log-views.js';
import type { ReadBarriers } from './read-barriers.js';
import type { ParkedFetches } from './request-senders.js';
import type { ShutdownStatus } from './shutdown-deadline.js';

/**
 * Elections and state transitions with their side effects: what each new state starts with (a
 * leader's epoch start batch, fresh connections, the leader's endpoint) and what the previous
 * state owned and must give up (unappended records, parked fetches, a snapshot download).
 */
export class StateTransitions {
  constructor(
    private readonly identity: RaftIdentity,
    private readonly quorum: QuorumState,
    private readonly log: LeaderLog,
    private readonly connections: Pick<OutboundRequests, 'resetAll' | 'updateEndpoint'>,
    private readonly shutdown: ShutdownStatus,
    private readonly leaderWritePath: LeaderWritePath,
    private readonly parkedFetches: ParkedFetches,
    private readonly readBarriers: Pick<ReadBarriers, 'failAll'>,
    private readonly metrics: Pick<RaftMetricsRecorder, 'onStateChanged' | 'onAppendedAsLeader'>,
    /** kraft.version 1 only: reads the epoch start batch's VotersRecord once it is appended. */
    private readonly controlRecords: ControlRecordsTracker | undefined,
  ) {}

  // --- elections ----------------------------------------------------------------------------

  /** Prospective → Candidate once a majority granted the pre-vote; returns true if it moved. */
  maybeTransitionToCandidate(nowMs: number): boolean {
    if (!this.quorum.isProspective()) return false;
    if (!this.quorum.prospectiveStateOrThrow().epochElection.isVoteGranted()) return false;
    const previous = this.quorum.state();
    this.quorum.transitionToCandidate(nowMs);
    this.onStateChanged(previous, nowMs);
    this.maybeTransitionToLeader(nowMs);
    return true;
  }

  maybeTransitionToLeader(nowMs: number): void {
    if (!this.quorum.isCandidate()) return;
    const candidate = this.quorum.candidateStateOrThrow();
    if (!candidate.epochElection.isVoteGranted()) return;
    this.becomeLeader(nowMs);
  }

  /** Candidate → Leader: epoch start batch (LeaderChangeMessage), new accumulator, reset connections. */
  private becomeLeader(nowMs: number): void {
    const previous = this.quorum.state();
    const epochStartOffset = this.log.endOffset();
    const candidate = this.quorum.candidateStateOrThrow();
    const epoch = candidate.epoch;
    const epochStartRecords = this.epochStartRecords(
      this.quorum.localReplicaKeyOrThrow().id,
      candidate.epochElection.grantingVoters(),
    );
    // The leader's first data record follows the whole epoch start batch: one record at
    // kraft.version 0, three at 1 (LeaderChange, KRaftVersion, Voters).
    const accumulator = new BatchAccumulator({
      epoch,
      baseOffset: epochStartOffset + epochStartRecords.length,
      lingerMs: this.identity.config.appendLingerMs,
    });
    this.quorum.transitionToLeader(epochStartOffset, accumulator, nowMs);
    this.log.initializeLeaderEpoch(epoch);
    const epochStartBatch = buildControlBatch(
      { baseOffset: epochStartOffset, partitionLeaderEpoch: epoch, timestamp: nowMs },
      epochStartRecords,
    );
    const info = this.log.appendAsLeader(epochStartBatch, epoch);
    invariant(
      info.firstOffset === epochStartOffset && info.lastOffset === accumulator.nextAppendOffset() - 1,
      () =>
        `epoch start batch at [${info.firstOffset}, ${info.lastOffset}], expected from ${epochStartOffset} to below ${accumulator.nextAppendOffset()}`,
    );
    this.metrics.onAppendedAsLeader(info.firstOffset, info.lastOffset);
    this.controlRecords?.updateState();
    this.onStateChanged(previous, nowMs);
    this.identity.logger.info({ epoch, epochStartOffset }, 'became leader');
  }

  /**
   * The records of the start-of-epoch control batch: LeaderChangeMessage (always at version 0, so no directory
   * ids), plus KRaftVersionRecord and VotersRecord under kraft.version 1. Kafka adds those two
   * only when the log has no VotersRecord yet or the leader's endpoints changed; this core
   * restates the latest voter set at every epoch start, which is equivalent for readers (a
   * VotersRecord restating the set changes nothing: VoterSetHistory).
   */
  private epochStartRecords(leaderId: number, grantingVoters: readonly number[]): ControlRecordMessage[] {
    const voters = this.quorum.voters();
    const toVoter = (voterId: number) => ({ voterId, voterDirectoryId: Uuid.ZERO });
    const records: ControlRecordMessage[] = [
      {
        type: ControlRecordType.LEADER_CHANGE,
        message: {
          version: 0,
          leaderId,
          voters: voters.voterIds().map(toVoter),
          grantingVoters: grantingVoters.map(toVoter),
        },
      },
    ];
    if (this.identity.kraftVersion >= 1) {
      records.push(
        {
          type: ControlRecordType.KRAFT_VERSION,
          message: { version: 0, kRaftVersion: this.identity.kraftVersion },
        },
        { type: ControlRecordType.KRAFT_VOTERS, message: voters.toVotersRecord() },
      );
    }
    return records;
  }

  prospectiveTransitionAfterElectionLoss(nowMs: number): void {
    const prospective = this.quorum.prospectiveStateOrThrow();
    const leaderId = prospective.leaderId;
    if (leaderId !== undefined && this.quorum.canFollow(leaderId, prospective.leaderEndpoints())) {
      this.transitionToFollower(prospective.epoch, leaderId, prospective.leaderEndpoints(), nowMs);
    } else {
      this.transitionToUnattached(prospective.epoch, leaderId, nowMs);
    }
  }

  /**
   * Leader → Resigned, naming the other voters as preferred successors, most replicated first,
   * or `preferredSuccessorId` first (a leadership transfer's target).
   */
  resignLeadership(nowMs: number, preferredSuccessorId?: number): void {
    const leader = this.quorum.leaderStateOrThrow();
    const successors = leader.nonLeaderVotersByDescendingFetchOffset();
    const preferred = successors.findIndex((key) => key.id === preferredSuccessorId);
    if (preferred > 0) successors.unshift(...successors.splice(preferred, 1));
    this.quorum.transitionToResigned(successors, nowMs);
    this.onStateChanged(leader, nowMs);
    this.connections.resetAll();
  }

  // --- transitions with side effects --------------------------------------------------------

  transitionToFollower(epoch: number, leaderId: number, endpoints: Endpoints, nowMs: number): void {
    const previous = this.quorum.state();
    this.quorum.transitionToFollower(epoch, leaderId, endpoints, nowMs);
    const address = endpoints.addressFor(this.identity.listenerName);
    if (address !== undefined) this.connections.updateEndpoint(leaderId, address);
    this.onStateChanged(previous, nowMs);
  }

  transitionToProspective(nowMs: number): void {
    const previous = this.quorum.state();
    this.quorum.transitionToProspective(nowMs);
    this.onStateChanged(previous, nowMs);
  }

  transitionToUnattached(epoch: number, leaderId: number | undefined, nowMs: number): void {
    const previous = this.quorum.state();
    this.quorum.transitionToUnattached(epoch, leaderId, nowMs);
    this.onStateChanged(previous, nowMs);
  }

  /** Cleans up what the previous state owned. */
  onStateChanged(previous: EpochState, nowMs: number): void {
    const current = this.quorum.state();
    if (previous === current) return;
    this.metrics.onStateChanged(previous.name, current.name, nowMs);
    if (current.name === 'Prospective' || current.name === 'Candidate' || current.name === 'Leader') {
      // A new election or leadership starts with fresh connections: answers to the previous
      // state's requests are stale, and nothing may block the new round of requests.
      this.connections.resetAll();
    }
    if (previous instanceof LeaderState) {
      const dropped = previous.accumulator.close();
      // Resigning to stop drops what was not yet appended by design: worth a warning only when
      // leadership is lost while the node keeps running.
      const level = this.shutdown.isShuttingDown() ? 'info' : 'warn';
      if (dropped > 0)
        this.identity.logger[level](
          { epoch: previous.epoch, dropped },
          'dropped unappended records on losing leadership',
        );
      this.leaderWritePath.clearPendingCommits();
      this.parkedFetches.completeParkedFetchesWithError(nowMs);
      this.readBarriers.failAll(previous);
    }
  }

  /**
   * Acts on a leader and epoch learned from a request or response (Kafka's `maybeTransition`).
   * Throws on a different leader for our own epoch: that is two leaders in one epoch.
   */
  maybeTransition(leaderId: number | undefined, epoch: number, endpoints: Endpoints, nowMs: number): void {
    const current = this.quorum.state();
    if (epoch === current.epoch && leaderId !== undefined) {
      const known = current.leaderAndEpoch().leaderId;
      invariant(
        known === undefined || known === leaderId,
        () => `split brain: leader ${leaderId} in epoch ${epoch}, but this node knows leader ${known}`,
      );
    }
    if (epoch < current.epoch) return;
    if (leaderId !== undefined && leaderId !== this.identity.nodeId) {
      if (this.quorum.canFollow(leaderId, endpoints)) {
        const isNewLeader = !(current instanceof FollowerState) || epoch > current.epoch;
        const hasNewEndpoints =
          current instanceof FollowerState &&
          !endpoints.isEmpty() &&
          !endpoints.equals(current.leaderEndpoints());
        if (isNewLeader || hasNewEndpoints) this.transitionToFollower(epoch, leaderId, endpoints, nowMs);
      } else if (epoch > current.epoch) {
        this.transitionToUnattached(epoch, leaderId, nowMs);
      }
    } else if (epoch > current.epoch) {
      this.transitionToUnattached(epoch, undefined, nowMs);
    }
  }

  /**
   * Kafka's `maybeHandleCommonResponse`: returns true/false when the response is fully handled
   * (with that success flag), or undefined when the caller goes on.
   */
  maybeHandleCommonResponse(
    errorCode: number,
    leaderId: number | undefined,
    epoch: number,
    endpoints: Endpoints,
    nowMs: number,
  ): boolean | undefined {
    const current = this.quorum.epoch();
    if (epoch < current || errorCode === Errors.UNKNOWN_LEADER_EPOCH.code) return true;
    const moves =
      epoch > current ||
      errorCode === Errors.FENCED_LEADER_EPOCH.code ||
      errorCode === Errors.NOT_LEADER_OR_FOLLOWER.code ||
      (leaderId !== undefined && !this.quorum.hasLeader()) ||
      // Unattached knowing the leader's id but not its address (an observer restarted on a log
      // without the leader's VotersRecord): an answer with the address lets it follow at last.
      (leaderId !== undefined && this.quorum.isUnattached() && !endpoints.isEmpty());
    if (moves) {
      const before = this.quorum.state();
      this.maybeTransition(leaderId, epoch, endpoints, nowMs);
      // An error that taught us nothing new (e.g. NOT_LEADER_OR_FOLLOWER naming the leader we
      // already follow, or a resigned leader) backs off instead of retrying at once.
      return errorCode === Errors.NONE.code || this.quorum.state() !== before;
    }
    if (errorCode === Errors.BROKER_NOT_AVAILABLE.code) return false;
    return undefined;
  }
}
