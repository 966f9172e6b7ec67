/**
 * QuorumState: owns the current epoch state, enforces the legal transitions, and records every
 * durable transition's election in the outbox, whose driver makes it durable before any message
 * recorded after it leaves (RaftOutbox).
 *
 * Transition table (voters; observers only move Unattached ⇄ Follower):
 *
 * | from                    | to                          | trigger                                          | durable |
 * |-------------------------|-----------------------------|--------------------------------------------------|---------|
 * | any                     | Unattached(e' > e)          | learns a higher epoch without a leader           | yes     |
 * | Unattached              | Unattached+voted(e)         | grants a standard vote (not yet voted in e)      | yes     |
 * | Prospective             | Unattached+voted(e)         | grants a standard vote (not yet voted in e)      | yes     |
 * | any non-leader          | Follower(e' ≥ e)            | learns the leader of e' (same e: not from Leader/Resigned; Follower only with new endpoints) | yes |
 * | Unattached (voter)      | Prospective(e)              | election timeout                                 | no      |
 * | Follower (voter)        | Prospective(e)              | fetch timeout                                    | no      |
 * | Candidate               | Prospective(e)              | election timeout (lost or undecided)             | no      |
 * | Prospective             | Candidate(e + 1)            | pre-vote won (or a voter lacks pre-vote support) | yes     |
 * | Prospective             | Follower(e) / Unattached(e) | pre-vote lost or timed out (leader known / not)  | yes     |
 * | Candidate               | Leader(e)                   | majority of votes granted                        | yes     |
 * | Leader                  | Resigned(e)                 | shutdown, resign(), check-quorum expiry          | no      |
 * | Resigned                | Unattached(e + 1)           | election timeout                                 | yes     |
 * | (startup)               | Resigned(e)                 | stored leader is this node                       | no      |
 * | (startup)               | Candidate(e)                | stored vote is for this node                     | no      |
 * | (startup)               | Follower / Unattached(e)    | stored leader (endpoints known or not) or none   | no      |
 * | (startup)               | Unattached(log epoch)       | stored epoch < the log's last epoch              | yes     |
 *
 * Only Prospective may become Candidate; only Candidate may become Leader; Leader and Resigned
 * never become Follower in their own epoch (that would be two leaders in one epoch).
 */
import { invariant, type Logger, silentLogger, type Uuid } from '@kraft/protocol';
import { ElectionState } from './election-state.js';
import { Endpoints } from './endpoints.js';
import type { BatchAccumulator } from './internals/batch-accumulator.js';
import type { QuorumStateDataVersion, QuorumStateStore } from './ports/quorum-state-store.js';
import type { OffsetAndEpoch } from './ports/raft-log.js';
import type { Random } from './ports/random.js';
import type { LeaderAndEpoch } from './raft-client.js';
import type { ElectionStateSink } from './raft-outbox.js';
import { ReplicaKey } from './replica-key.js';
import { CandidateState } from './states/candidate-state.js';
import type { EpochState } from './states/epoch-state.js';
import { FollowerState } from './states/follower-state.js';
import { LeaderState } from './states/leader-state.js';
import { ProspectiveState } from './states/prospective-state.js';
import { ResignedState } from './states/resigned-state.js';
import { UnattachedState } from './states/unattached-state.js';
import type { VoterSet } from './voter-set.js';

export interface QuorumStateOptions {
  /** Undefined for an observer without a node id. */
  readonly localId: number | undefined;
  readonly localDirectoryId: Uuid;
  readonly localEndpoints: Endpoints;
  /**
   * The latest voter set: the static one at kraft.version 0; at 1 the last VotersRecord of the
   * log up to its end (KRaftControlRecordStateMachine, ADR 0045).
   */
  readonly voters: () => VoterSet;
  readonly electionTimeoutMs: number;
  readonly fetchTimeoutMs: number;
  /** Read once, at `initialize`. */
  readonly store: Pick<QuorumStateStore, 'readElectionState'>;
  /** Where durable transitions record the election state to persist (the driver writes it). */
  readonly outbox: ElectionStateSink;
  readonly random: Random;
  /** 0 writes quorum-state data version 0, 1 writes version 1. */
  readonly kraftVersion: () => QuorumStateDataVersion;
  /** True while the log recovers lost flushed data: the replica acts as an observer meanwhile. */
  readonly isRecoveringLostData?: () => boolean;
  readonly logger?: Logger;
}

export class QuorumState {
  private readonly options: QuorumStateOptions;
  private readonly logger: Logger;
  private currentState: EpochState | undefined;
  private cachedLocalReplicaKey: ReplicaKey | undefined;

  constructor(options: QuorumStateOptions) {
    this.options = options;
    this.logger = options.logger ?? silentLogger;
  }

  // --- identity -----------------------------------------------------------------------------

  get localId(): number | undefined {
    return this.options.localId;
  }

  /** Built once: identity never changes, and the role checks ask for it several times per poll. */
  localReplicaKey(): ReplicaKey | undefined {
    if (this.options.localId === undefined) return undefined;
    this.cachedLocalReplicaKey ??= ReplicaKey.of(this.options.localId, this.options.localDirectoryId);
    return this.cachedLocalReplicaKey;
  }

  localReplicaKeyOrThrow(): ReplicaKey {
    const key = this.localReplicaKey();
    invariant(key !== undefined, () => 'this node has no id');
    return key;
  }

  voters(): VoterSet {
    return this.options.voters();
  }

  /** A voter in the voter set whose log is whole: one recovering lost flushed data is an observer. */
  isVoter(): boolean {
    const key = this.localReplicaKey();
    return key !== undefined && this.voters().isVoter(key) && !this.isRecoveringLostData();
  }

  /** See `RaftLog.recoveringUntilOffset`: no votes, no campaigns, keep fetching. */
  isRecoveringLostData(): boolean {
    return this.options.isRecoveringLostData?.() ?? false;
  }

  isObserver(): boolean {
    return !this.isVoter();
  }

  isOnlyVoter(): boolean {
    const key = this.localReplicaKey();
    return key !== undefined && this.voters().isOnlyVoter(key) && !this.isRecoveringLostData();
  }

  /** Election timeout drawn uniformly from [T, 2T) (KIP-595). */
  randomElectionTimeoutMs(): number {
    const base = this.options.electionTimeoutMs;
    return base === 0 ? 0 : base + this.options.random.nextInt(base);
  }

  // --- the current state --------------------------------------------------------------------

  state(): EpochState {
    invariant(this.currentState !== undefined, () => 'QuorumState used before initialize');
    return this.currentState;
  }

  epoch(): number {
    return this.state().epoch;
  }

  leaderAndEpoch(): LeaderAndEpoch {
    return this.state().leaderAndEpoch();
  }

  leaderId(): number | undefined {
    return this.state().leaderAndEpoch().leaderId;
  }

  hasLeader(): boolean {
    return this.leaderId() !== undefined;
  }

  highWatermark(): number | undefined {
    return this.state().highWatermark();
  }

  isLeader(): boolean {
    return this.currentState instanceof LeaderState;
  }

  isFollower(): boolean {
    return this.currentState instanceof FollowerState;
  }

  isCandidate(): boolean {
    return this.currentState instanceof CandidateState;
  }

  isProspective(): boolean {
    return this.currentState instanceof ProspectiveState;
  }

  isUnattached(): boolean {
    return this.currentState instanceof UnattachedState;
  }

  isResigned(): boolean {
    return this.currentState instanceof ResignedState;
  }

  isUnattachedNotVoted(): boolean {
    return this.currentState instanceof UnattachedState && this.currentState.votedKey === undefined;
  }

  isProspectiveNotVoted(): boolean {
    return this.currentState instanceof ProspectiveState && this.currentState.votedKey === undefined;
  }

  leaderStateOrThrow(): LeaderState {
    return this.stateOrThrow(LeaderState);
  }

  followerStateOrThrow(): FollowerState {
    return this.stateOrThrow(FollowerState);
  }

  candidateStateOrThrow(): CandidateState {
    return this.stateOrThrow(CandidateState);
  }

  prospectiveStateOrThrow(): ProspectiveState {
    return this.stateOrThrow(ProspectiveState);
  }

  unattachedStateOrThrow(): UnattachedState {
    return this.stateOrThrow(UnattachedState);
  }

  resignedStateOrThrow(): ResignedState {
    return this.stateOrThrow(ResignedState);
  }

  private stateOrThrow<T extends EpochState>(type: abstract new (...args: never[]) => T): T {
    const state = this.currentState;
    invariant(
      state instanceof type,
      () => `expected ${type.name}, but the state is ${state?.name ?? 'uninitialized'}`,
    );
    return state;
  }

  // --- startup ------------------------------------------------------------------------------

  /**
   * Restores the stored election. `logEndOffsetAndEpoch` is the log's end and last epoch: a
   * stored epoch behind the log (the file was lost or is stale) restarts Unattached at the log's
   * epoch, never below what the log proves was seen.
   */
  initialize(logEndOffsetAndEpoch: OffsetAndEpoch, nowMs: number): void {
    const stored = this.options.store.readElectionState();
    const voterIds = this.voters().voterIds();
    const election =
      stored === undefined
        ? ElectionState.withUnknownLeader(0, voterIds)
        : ElectionState.fromQuorumStateData(stored);
    const localKey = this.localReplicaKey();
    if (election.epoch < logEndOffsetAndEpoch.epoch) {
      this.logger.warn(
        { epoch: election.epoch, logEpoch: logEndOffsetAndEpoch.epoch },
        'stored epoch is behind the log; starting unattached at the log epoch',
      );
      this.durableTransitionTo(this.newUnattached(logEndOffsetAndEpoch.epoch, undefined, undefined, nowMs));
    } else if (localKey !== undefined && election.isLeader(localKey.id)) {
      // Never restart as leader: whatever we appended but did not flush may be gone.
      this.memoryTransitionTo(this.newResigned(election.epoch, [], nowMs));
    } else if (localKey !== undefined && election.isVotedCandidate(localKey) && this.isVoter()) {
      this.memoryTransitionTo(
        new CandidateState({
          epoch: election.epoch,
          localKey,
          voterKeys: this.voters().voterKeys(),
          highWatermark: undefined,
          electionTimeoutMs: this.randomElectionTimeoutMs(),
          nowMs,
        }),
      );
    } else if (election.leaderId !== undefined && this.canFollow(election.leaderId, Endpoints.EMPTY)) {
      this.memoryTransitionTo(
        this.newFollower(
          election.epoch,
          election.leaderId,
          this.leaderListeners(election.leaderId, Endpoints.EMPTY),
          election.votedKey,
          undefined,
          nowMs,
        ),
      );
    } else {
      this.memoryTransitionTo(
        this.newUnattached(election.epoch, election.leaderId, election.votedKey, nowMs),
      );
    }
  }

  // --- transitions --------------------------------------------------------------------------

  /** Leader → Resigned(e). Memory only: the stored election still names us the leader of e. */
  transitionToResigned(preferredSuccessors: readonly ReplicaKey[], nowMs: number): void {
    invariant(this.isLeader(), () => `cannot resign from ${this.state().name}`);
    this.memoryTransitionTo(this.newResigned(this.epoch(), preferredSuccessors, nowMs));
  }

  /**
   * → Unattached(epoch). A higher epoch from anywhere; the same epoch only from Prospective
   * (pre-vote lost with no leader to fall back to), keeping the vote cast in this epoch.
   */
  transitionToUnattached(epoch: number, knownLeaderId: number | undefined, nowMs: number): void {
    const current = this.state();
    let votedKey: ReplicaKey | undefined;
    let leaderId = knownLeaderId;
    if (epoch === current.epoch) {
      invariant(
        current instanceof ProspectiveState,
        () => `cannot transition to Unattached in the same epoch ${epoch} from ${current.name}`,
      );
      votedKey = current.votedKey;
      leaderId ??= current.leaderId;
    } else {
      invariant(
        epoch > current.epoch,
        () => `cannot transition to Unattached epoch ${epoch} from epoch ${current.epoch}`,
      );
    }
    this.durableTransitionTo(this.newUnattached(epoch, leaderId, votedKey, nowMs));
  }

  /** Unattached or Prospective (not yet voted) → Unattached with a vote for `candidateKey`. */
  transitionToUnattachedVotedState(epoch: number, candidateKey: ReplicaKey, nowMs: number): void {
    const current = this.state();
    invariant(epoch === current.epoch, () => `vote for epoch ${epoch} while in epoch ${current.epoch}`);
    invariant(
      (current instanceof UnattachedState || current instanceof ProspectiveState) &&
        current.votedKey === undefined,
      () =>
        `cannot vote for ${candidateKey.toString()} in epoch ${epoch} from ${current.name} ${current.election().toString()}`,
    );
    invariant(
      current.leaderId === undefined,
      () => `cannot vote in epoch ${epoch}: leader ${current.leaderId} is known`,
    );
    this.durableTransitionTo(this.newUnattached(epoch, undefined, candidateKey, nowMs));
  }

  /** → Follower(epoch, leaderId). See the table for the same-epoch rules. */
  transitionToFollower(epoch: number, leaderId: number, endpoints: Endpoints, nowMs: number): void {
    const current = this.state();
    invariant(leaderId !== this.localId, () => `cannot follow ourselves (${leaderId}) in epoch ${epoch}`);
    invariant(epoch >= current.epoch, () => `cannot follow epoch ${epoch} from epoch ${current.epoch}`);
    let votedKey: ReplicaKey | undefined;
    if (epoch === current.epoch) {
      invariant(
        !(current instanceof LeaderState) && !(current instanceof ResignedState),
        () => `${current.name} in epoch ${epoch} cannot follow ${leaderId}: two leaders in one epoch`,
      );
      const knownLeader = current.leaderAndEpoch().leaderId;
      invariant(
        knownLeader === undefined || knownLeader === leaderId,
        () => `leader ${leaderId} for epoch ${epoch}, but ${knownLeader} is already known`,
      );
      if (current instanceof FollowerState) {
        invariant(
          !endpoints.isEmpty() && !endpoints.equals(current.leaderEndpoints()),
          () => `already following ${leaderId} in epoch ${epoch} at the same endpoints`,
        );
      }
      votedKey = current.election().votedKey;
    }
    const listeners = this.leaderListeners(leaderId, endpoints);
    const next = this.newFollower(epoch, leaderId, listeners, votedKey, current.highWatermark(), nowMs);
    // Following the same leader on: its snapshot download goes on rather than starting over.
    if (current instanceof FollowerState && current.leaderId === leaderId)
      next.takeOverSnapshotDownload(current);
    this.durableTransitionTo(next);
  }

  /** Unattached / Follower / Candidate (voter) → Prospective(same epoch). Memory only. */
  transitionToProspective(nowMs: number): void {
    const current = this.state();
    invariant(this.isVoter(), () => 'an observer never campaigns');
    // Resigned only for the lone voter restarting after a clean shutdown (as Kafka allows).
    invariant(
      current instanceof UnattachedState ||
        current instanceof FollowerState ||
        current instanceof CandidateState ||
        (current instanceof ResignedState && this.isOnlyVoter()),
      () => `cannot transition to Prospective from ${current.name}`,
    );
    const election = current.election();
    const leaderId =
      current instanceof CandidateState || current instanceof ResignedState
        ? undefined
        : current.leaderAndEpoch().leaderId;
    this.memoryTransitionTo(
      new ProspectiveState({
        epoch: current.epoch,
        localKey: this.localReplicaKeyOrThrow(),
        leaderId,
        leaderEndpoints: current.leaderEndpoints(),
        votedKey: election.votedKey,
        voterKeys: this.voters().voterKeys(),
        highWatermark: current.highWatermark(),
        electionTimeoutMs: this.randomElectionTimeoutMs(),
        nowMs,
      }),
    );
  }

  /** Prospective → Candidate(e + 1), voting for itself. */
  transitionToCandidate(nowMs: number): void {
    const current = this.state();
    invariant(
      current instanceof ProspectiveState,
      () => `only Prospective may become Candidate, not ${current.name}`,
    );
    this.durableTransitionTo(
      new CandidateState({
        epoch: current.epoch + 1,
        localKey: this.localReplicaKeyOrThrow(),
        voterKeys: this.voters().voterKeys(),
        highWatermark: current.highWatermark(),
        electionTimeoutMs: this.randomElectionTimeoutMs(),
        nowMs,
      }),
    );
  }

  /** Candidate (election won) → Leader(e). */
  transitionToLeader(epochStartOffset: number, accumulator: BatchAccumulator, nowMs: number): LeaderState {
    const current = this.state();
    invariant(
      current instanceof CandidateState,
      () => `only Candidate may become Leader, not ${current.name}`,
    );
    invariant(current.epochElection.isVoteGranted(), () => `election in epoch ${current.epoch} not won`);
    const leader = new LeaderState({
      epoch: current.epoch,
      localKey: this.localReplicaKeyOrThrow(),
      localEndpoints: this.options.localEndpoints,
      epochStartOffset,
      voters: this.voters(),
      grantingVoters: current.epochElection.grantingVoters(),
      accumulator,
      fetchTimeoutMs: this.options.fetchTimeoutMs,
      nowMs,
    });
    this.durableTransitionTo(leader);
    return leader;
  }

  // --- helpers ------------------------------------------------------------------------------

  /** A leader is followed when its endpoints are known or it is a voter (reachable by id). */
  canFollow(leaderId: number, endpoints: Endpoints): boolean {
    return !endpoints.isEmpty() || this.voters().isVoterId(leaderId);
  }

  private leaderListeners(leaderId: number, endpoints: Endpoints): Endpoints {
    return endpoints.isEmpty() ? this.voters().listeners(leaderId) : endpoints;
  }

  private newUnattached(
    epoch: number,
    leaderId: number | undefined,
    votedKey: ReplicaKey | undefined,
    nowMs: number,
  ): UnattachedState {
    return new UnattachedState({
      epoch,
      leaderId,
      votedKey,
      voters: this.voters().voterIds(),
      highWatermark: this.currentState?.highWatermark(),
      electionTimeoutMs: this.isVoter() ? this.randomElectionTimeoutMs() : Number.POSITIVE_INFINITY,
      nowMs,
    });
  }

  private newFollower(
    epoch: number,
    leaderId: number,
    leaderEndpoints: Endpoints,
    votedKey: ReplicaKey | undefined,
    highWatermark: number | undefined,
    nowMs: number,
  ): FollowerState {
    return new FollowerState({
      epoch,
      leaderId,
      leaderEndpoints,
      votedKey,
      voters: this.voters().voterIds(),
      highWatermark,
      fetchTimeoutMs: this.options.fetchTimeoutMs,
      nowMs,
    });
  }

  private newResigned(
    epoch: number,
    preferredSuccessors: readonly ReplicaKey[],
    nowMs: number,
  ): ResignedState {
    return new ResignedState({
      epoch,
      localId: this.localReplicaKeyOrThrow().id,
      voters: this.voters().voterIds(),
      preferredSuccessors,
      localEndpoints: this.options.localEndpoints,
      highWatermark: this.currentState?.highWatermark(),
      electionTimeoutMs: this.randomElectionTimeoutMs(),
      nowMs,
    });
  }

  /**
   * Records the election to persist, then takes the new state at once: the outbox holds back every
   * message recorded after it until the driver reports the write durable, so nothing another node
   * can act on leaves before the election it depends on is on disk (see RaftOutbox).
   */
  private durableTransitionTo(next: EpochState): void {
    const dataVersion = this.options.kraftVersion();
    this.options.outbox.persistElectionState(next.election().toQuorumStateData(dataVersion), dataVersion);
    this.memoryTransitionTo(next);
  }

  /** The node stops: the current state releases what it owns (an open snapshot download). */
  close(): void {
    this.currentState?.close();
  }

  /** The one place a state ends: it releases what it owns before the next one takes over. */
  private memoryTransitionTo(next: EpochState): void {
    const previous = this.currentState;
    previous?.close();
    this.currentState = next;
    this.logger.info(
      {
        from: previous?.name,
        to: next.name,
        epoch: next.epoch,
        leaderId: next.leaderAndEpoch().leaderId,
      },
      'quorum state transition',
    );
  }
}
