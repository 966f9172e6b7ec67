import { invariant } from '@kraft/protocol';
import { ElectionState } from '../election-state.js';
import type { Endpoints } from '../endpoints.js';
import type { BatchAccumulator } from '../internals/batch-accumulator.js';
import { Timer } from '../internals/timer.js';
import type { LeaderAndEpoch } from '../raft-client.js';
import { ReplicaKey } from '../replica-key.js';
import type { VoterSet } from '../voter-set.js';
import type { EpochState } from './epoch-state.js';
import { PendingReads } from './pending-reads.js';

/** A leader forgets an observer it has not heard from for this long (Kafka: 300 s). */
export const OBSERVER_SESSION_TIMEOUT_MS = 300_000;
/** Check-quorum fires after this many fetch timeouts without a majority fetching (KIP-595). */
const CHECK_QUORUM_TIMEOUT_FACTOR = 1.5;

/** What the leader knows about one replica's progress (DescribeQuorum reports it). */
export interface ReplicaState {
  readonly replicaKey: ReplicaKey;
  /** The replica's fetch offset (for the leader itself: its flushed end offset). */
  endOffset: number | undefined;
  lastFetchTimestampMs: number;
  lastFetchLeaderLogEndOffset: number;
  lastCaughtUpTimestampMs: number;
  hasAcknowledgedLeader: boolean;
}

/**
 * Leads the epoch: tracks voters and observers, computes the high watermark, runs check-quorum
 * and the BeginQuorumEpoch resend timer, and owns the write accumulator.
 *
 * Invariants: the high watermark is an offset a majority of voters has flushed, is greater than
 * `epochStartOffset` (the leader commits one record of its own epoch before exposing anything),
 * and never goes backwards.
 */
export class LeaderState implements EpochState {
  readonly name = 'Leader' as const;
  readonly epoch: number;
  readonly localKey: ReplicaKey;
  /** The log end offset when this node became leader: the start-of-epoch control batch's offset. */
  readonly epochStartOffset: number;
  readonly grantingVoters: readonly number[];
  readonly accumulator: BatchAccumulator;
  /** Read barriers of this epoch; the transition out of leadership fails those still waiting. */
  readonly pendingReads = new PendingReads();
  private voterSet: VoterSet;
  private readonly localListeners: Endpoints;
  private highWatermarkOffset: number | undefined;
  private readonly voterStates = new Map<number, ReplicaState>();
  private readonly observerStates = new Map<number, ReplicaState>();
  private readonly fetchedVoters = new Set<number>();
  private readonly checkQuorumTimer: Timer;
  private readonly beginQuorumEpochTimer: Timer;
  private readonly beginQuorumEpochTimeoutMs: number;

  constructor(options: {
    epoch: number;
    localKey: ReplicaKey;
    localEndpoints: Endpoints;
    epochStartOffset: number;
    voters: VoterSet;
    grantingVoters: readonly number[];
    accumulator: BatchAccumulator;
    fetchTimeoutMs: number;
    nowMs: number;
  }) {
    this.epoch = options.epoch;
    this.localKey = options.localKey;
    this.localListeners = options.localEndpoints;
    this.epochStartOffset = options.epochStartOffset;
    this.voterSet = options.voters;
    this.grantingVoters = options.grantingVoters;
    this.accumulator = options.accumulator;
    for (const key of options.voters.voterKeys()) {
      this.voterStates.set(key.id, newReplicaState(key, key.id === options.localKey.id));
    }
    this.checkQuorumTimer = new Timer(
      options.nowMs,
      Math.floor(options.fetchTimeoutMs * CHECK_QUORUM_TIMEOUT_FACTOR),
    );
    this.beginQuorumEpochTimeoutMs = Math.floor(options.fetchTimeoutMs / 2);
    // Zero so the first poll sends BeginQuorumEpoch to everybody at once.
    this.beginQuorumEpochTimer = new Timer(options.nowMs, 0);
  }

  election(): ElectionState {
    return ElectionState.withElectedLeader(
      this.epoch,
      this.localKey.id,
      this.localKey,
      this.voterSet.voterIds(),
    );
  }

  leaderAndEpoch(): LeaderAndEpoch {
    return { leaderId: this.localKey.id, epoch: this.epoch };
  }

  leaderEndpoints(): Endpoints {
    return this.localListeners;
  }

  highWatermark(): number | undefined {
    return this.highWatermarkOffset;
  }

  /** The accumulator is closed by the transition, which reports what it dropped. */
  close(): void {}

  voters(): VoterSet {
    return this.voterSet;
  }

  canGrantVote(): boolean {
    return false;
  }

  /**
   * The voter set changed under this leader (kraft.version 1: a VotersRecord was appended, which
   * takes effect at once, KIP-853). Voters keep their progress; a new voter takes over its state as
   * an observer, if it was one; a removed voter goes on as an observer (Kafka's
   * `LeaderState.updateVoterAndObserverStates`). The high watermark is then counted over the new set
   * and, as always, only moves forward. Returns true if it moved.
   *
   * A leader that was the only voter never ran check-quorum, so nothing reset its timer since the
   * election: when the set grows past it, the check-quorum timeout starts over at `nowMs`, giving
   * the new voters a whole timeout to fetch, or the leader would resign at its next poll.
   */
  updateVoterSet(voters: VoterSet, nowMs: number): boolean {
    if (voters === this.voterSet || voters.equals(this.voterSet)) {
      this.voterSet = voters;
      return false;
    }
    const wasOnlyVoter = this.isOnlyVoterLeft();
    const previous = new Map(this.voterStates);
    this.voterStates.clear();
    for (const key of voters.voterKeys()) {
      const state = previous.get(key.id) ?? this.observerStates.get(key.id);
      const kept = state?.replicaKey.matches(key) === true ? state : undefined;
      this.voterStates.set(key.id, kept ?? newReplicaState(key, key.id === this.localKey.id));
      this.observerStates.delete(key.id);
      previous.delete(key.id);
    }
    for (const [id, state] of previous) this.observerStates.set(id, state);
    for (const id of this.fetchedVoters) if (!voters.isVoterId(id)) this.fetchedVoters.delete(id);
    this.voterSet = voters;
    if (wasOnlyVoter && !this.isOnlyVoterLeft()) {
      this.checkQuorumTimer.reset(nowMs, this.checkQuorumTimer.timeout());
    }
    return this.maybeUpdateHighWatermark();
  }

  // --- timers -------------------------------------------------------------------------------

  /** Time until BeginQuorumEpoch must be resent to voters that have not fetched lately. */
  timeUntilBeginQuorumEpochTimerExpires(nowMs: number): number {
    this.beginQuorumEpochTimer.update(nowMs);
    return this.beginQuorumEpochTimer.remainingMs();
  }

  resetBeginQuorumEpochTimer(nowMs: number): void {
    this.beginQuorumEpochTimer.reset(nowMs, this.beginQuorumEpochTimeoutMs);
  }

  /**
   * Voters (other than us) to send BeginQuorumEpoch to: those that have not fetched in this epoch,
   * or not within the resend interval (fetch timeout / 2), e.g. after they restarted.
   */
  nonAcknowledgingVoters(nowMs: number): number[] {
    const ids: number[] = [];
    for (const [id, state] of this.voterStates) {
      if (id === this.localKey.id) continue;
      const silent = nowMs - state.lastFetchTimestampMs >= this.beginQuorumEpochTimeoutMs;
      if (!state.hasAcknowledgedLeader || silent) ids.push(id);
    }
    return ids;
  }

  /** 0 means check-quorum has expired: the leader must resign. A lone voter never expires. */
  timeUntilCheckQuorumExpires(nowMs: number): number {
    if (this.isOnlyVoterLeft()) return Number.POSITIVE_INFINITY;
    this.checkQuorumTimer.update(nowMs);
    return this.checkQuorumTimer.remainingMs();
  }

  /** A voter fetched (or fetched a snapshot): it counts toward check-quorum. */
  updateCheckQuorumForFollowingVoter(replicaKey: ReplicaKey, nowMs: number): void {
    if (!this.voterSet.isVoter(replicaKey) || replicaKey.id === this.localKey.id) return;
    this.pendingReads.onVoterFetch(replicaKey.id);
    this.fetchedVoters.add(replicaKey.id);
    // The leader counts itself when it is a voter, so one fewer follower is needed.
    const required = this.voterSet.majoritySize() - (this.voterSet.isVoterId(this.localKey.id) ? 1 : 0);
    if (this.fetchedVoters.size >= required) {
      this.fetchedVoters.clear();
      this.checkQuorumTimer.reset(nowMs, this.checkQuorumTimer.timeout());
    }
  }

  /** The leader answered a Fetch of `replicaKey`: a voter's next fetch proves this epoch after now. */
  onFetchAnswered(replicaKey: ReplicaKey): void {
    if (this.voterSet.isVoter(replicaKey) && replicaKey.id !== this.localKey.id) {
      this.pendingReads.onFetchAnswered(replicaKey.id);
    }
  }

  private isOnlyVoterLeft(): boolean {
    return this.voterSet.isOnlyVoter(this.localKey);
  }

  // --- replication progress -----------------------------------------------------------------

  /** The leader's own flushed end offset moved. Returns true if the high watermark moved. */
  updateLocalState(flushedEndOffset: number, nowMs: number): boolean {
    const state = this.voterStates.get(this.localKey.id) ?? this.observerStates.get(this.localKey.id);
    if (state === undefined) return false;
    invariant(
      state.endOffset === undefined || flushedEndOffset >= state.endOffset,
      () => `leader's flushed end offset went back from ${state.endOffset} to ${flushedEndOffset}`,
    );
    state.endOffset = flushedEndOffset;
    state.lastFetchTimestampMs = nowMs;
    state.lastCaughtUpTimestampMs = nowMs;
    return this.maybeUpdateHighWatermark();
  }

  /**
   * A Fetch from `replicaKey` at `fetchOffset` (everything below it is flushed on the replica).
   * Returns true if the high watermark moved.
   */
  updateReplicaState(
    replicaKey: ReplicaKey,
    nowMs: number,
    fetchOffset: number,
    leaderEndOffset: number,
  ): boolean {
    invariant(
      replicaKey.id !== this.localKey.id,
      () => `the leader ${replicaKey.id} cannot fetch from itself`,
    );
    const state = this.replicaStateFor(replicaKey, nowMs);
    updateCaughtUp(state, nowMs, fetchOffset, leaderEndOffset);
    // A fetch offset may go back after a follower truncated on divergence; it is its new truth.
    state.endOffset = fetchOffset;
    state.hasAcknowledgedLeader = true;
    return this.voterSet.isVoter(replicaKey) ? this.maybeUpdateHighWatermark() : false;
  }

  private replicaStateFor(replicaKey: ReplicaKey, nowMs: number): ReplicaState {
    const voter = this.voterStates.get(replicaKey.id);
    if (voter !== undefined && this.voterSet.isVoter(replicaKey)) return voter;
    let observer = this.observerStates.get(replicaKey.id);
    if (observer === undefined || !observer.replicaKey.equals(replicaKey)) {
      observer = newReplicaState(replicaKey, false);
      observer.lastFetchTimestampMs = nowMs;
      this.observerStates.set(replicaKey.id, observer);
    }
    return observer;
  }

  /** Kafka's rule: the voter at index n/2 of the end offsets sorted descending, strictly above epochStartOffset, monotonic. */
  private maybeUpdateHighWatermark(): boolean {
    const endOffsets = [...this.voterStates.values()]
      .filter((state) => this.voterSet.isVoterId(state.replicaKey.id))
      .map((state) => state.endOffset ?? -1)
      .sort((left, right) => right - left);
    const candidate = endOffsets[Math.floor(this.voterSet.size() / 2)];
    if (candidate === undefined || candidate <= this.epochStartOffset) return false;
    const current = this.highWatermarkOffset;
    if (current !== undefined && candidate <= current) return false;
    this.highWatermarkOffset = candidate;
    return true;
  }

  /** The fetch offset of voter `voterId` in this epoch (undefined before its first fetch). */
  voterEndOffset(voterId: number): number | undefined {
    return this.voterStates.get(voterId)?.endOffset;
  }

  /** Observers heard from within the observer session timeout (as of the last expiry). */
  numberOfObservers(): number {
    return this.observerStates.size;
  }

  /** Drops observers that have not fetched within the observer session timeout. */
  expireObservers(nowMs: number): void {
    for (const [id, state] of this.observerStates) {
      if (nowMs - state.lastFetchTimestampMs >= OBSERVER_SESSION_TIMEOUT_MS) this.observerStates.delete(id);
    }
  }

  /** Other voters, most replicated first: the preferred successors on resignation. */
  nonLeaderVotersByDescendingFetchOffset(): ReplicaKey[] {
    return [...this.voterStates.values()]
      .filter((state) => state.replicaKey.id !== this.localKey.id)
      .sort(
        (left, right) =>
          (right.endOffset ?? -1) - (left.endOffset ?? -1) || left.replicaKey.id - right.replicaKey.id,
      )
      .map((state) => state.replicaKey);
  }

  /** Snapshots of the replica states for DescribeQuorum (voters in id order, then observers). */
  describeVoters(): readonly ReplicaState[] {
    return [...this.voterStates.values()].map((state) => ({ ...state }));
  }

  describeObservers(nowMs: number): readonly ReplicaState[] {
    this.expireObservers(nowMs);
    return [...this.observerStates.values()].map((state) => ({ ...state }));
  }

  /**
   * AddRaftVoter's caught-up rule: `replicaKey` (id and directory id) is an observer that fetched
   * from this leader within `fetchWindowMs` and either its fetch offset reached the high watermark
   * or it was caught up (Kafka's `lastCaughtUpTimestamp`: it reached the end this leader had at
   * its previous fetch) within `fetchWindowMs`, so that adding it does not stall the high
   * watermark behind a voter still catching up. The second case is an observer one fetch behind
   * a steady write load, whose fetch offset is mostly below a high watermark the voters' fetches
   * moved since. Stricter than Kafka's `isReplicaCaughtUp` (a fetch within the last hour after
   * having reached the log end once): a replica that caught up an hour ago and fell behind since
   * would hold up commits.
   */
  isObserverCaughtUp(replicaKey: ReplicaKey, nowMs: number, fetchWindowMs: number): boolean {
    const state = this.observerStates.get(replicaKey.id);
    const highWatermark = this.highWatermarkOffset;
    if (state === undefined || highWatermark === undefined || !state.replicaKey.equals(replicaKey))
      return false;
    const fetchedLately =
      state.lastFetchTimestampMs >= 0 && nowMs - state.lastFetchTimestampMs <= fetchWindowMs;
    const atHighWatermark = state.endOffset !== undefined && state.endOffset >= highWatermark;
    const caughtUpLately =
      state.lastCaughtUpTimestampMs >= 0 && nowMs - state.lastCaughtUpTimestampMs <= fetchWindowMs;
    return fetchedLately && (atHighWatermark || caughtUpLately);
  }

  isReplicaCaughtUp(replicaKey: ReplicaKey, nowMs: number, windowMs: number): boolean {
    const state = this.voterStates.get(replicaKey.id) ?? this.observerStates.get(replicaKey.id);
    return state !== undefined && nowMs - state.lastCaughtUpTimestampMs <= windowMs;
  }
}

function newReplicaState(replicaKey: ReplicaKey, isLeader: boolean): ReplicaState {
  return {
    replicaKey: ReplicaKey.of(replicaKey.id, replicaKey.directoryId),
    endOffset: undefined,
    lastFetchTimestampMs: -1,
    lastFetchLeaderLogEndOffset: -1,
    lastCaughtUpTimestampMs: -1,
    hasAcknowledgedLeader: isLeader,
  };
}

/** Kafka's caught-up rule: caught up now if it reached our end; or at its previous fetch time if it reached the end we had then. */
function updateCaughtUp(
  state: ReplicaState,
  nowMs: number,
  fetchOffset: number,
  leaderEndOffset: number,
): void {
  if (fetchOffset >= leaderEndOffset) {
    state.lastCaughtUpTimestampMs = Math.max(state.lastCaughtUpTimestampMs, nowMs);
  } else if (state.lastFetchLeaderLogEndOffset > 0 && fetchOffset >= state.lastFetchLeaderLogEndOffset) {
    state.lastCaughtUpTimestampMs = Math.max(state.lastCaughtUpTimestampMs, state.lastFetchTimestampMs);
  }
  state.lastFetchLeaderLogEndOffset = leaderEndOffset;
  state.lastFetchTimestampMs = nowMs;
}
