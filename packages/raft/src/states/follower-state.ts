import { invariant } from '@kraft/protocol';
import { ElectionState } from '../election-state.js';
import type { Endpoints } from '../endpoints.js';
import { Timer } from '../internals/timer.js';
import type { RawSnapshotWriter } from '../ports/raft-log.js';
import type { LeaderAndEpoch } from '../raft-client.js';
import type { ReplicaKey } from '../replica-key.js';
import type { EpochState } from './epoch-state.js';

/**
 * Knows the leader of this epoch and its endpoints, and fetches from it. The fetch timer (no
 * successful Fetch/FetchSnapshot for `fetch.timeout.ms`) moves a voter to Prospective. The
 * follower's high watermark is the leader's, capped at the local log end, and monotonic.
 */
export class FollowerState implements EpochState {
  readonly name = 'Follower' as const;
  readonly epoch: number;
  readonly leaderId: number;
  readonly votedKey: ReplicaKey | undefined;
  private readonly leaderListeners: Endpoints;
  private readonly voters: readonly number[];
  private highWatermarkOffset: number | undefined;
  private readonly fetchTimer: Timer;
  private fetchedFromLeader = false;
  /** The snapshot being downloaded, if the leader told us to fetch one. */
  fetchingSnapshot: RawSnapshotWriter | undefined;

  constructor(options: {
    epoch: number;
    leaderId: number;
    leaderEndpoints: Endpoints;
    votedKey: ReplicaKey | undefined;
    voters: readonly number[];
    highWatermark: number | undefined;
    fetchTimeoutMs: number;
    nowMs: number;
  }) {
    this.epoch = options.epoch;
    this.leaderId = options.leaderId;
    this.leaderListeners = options.leaderEndpoints;
    this.votedKey = options.votedKey;
    this.voters = options.voters;
    this.highWatermarkOffset = options.highWatermark;
    this.fetchTimer = new Timer(options.nowMs, options.fetchTimeoutMs);
  }

  election(): ElectionState {
    return ElectionState.withElectedLeader(this.epoch, this.leaderId, this.votedKey, this.voters);
  }

  leaderAndEpoch(): LeaderAndEpoch {
    return { leaderId: this.leaderId, epoch: this.epoch };
  }

  leaderEndpoints(): Endpoints {
    return this.leaderListeners;
  }

  highWatermark(): number | undefined {
    return this.highWatermarkOffset;
  }

  hasFetchedFromLeader(): boolean {
    return this.fetchedFromLeader;
  }

  hasFetchTimeoutExpired(nowMs: number): boolean {
    this.fetchTimer.update(nowMs);
    return this.fetchTimer.isExpired();
  }

  remainingFetchTimeMs(nowMs: number): number {
    this.fetchTimer.update(nowMs);
    return this.fetchTimer.remainingMs();
  }

  /** A successful Fetch or FetchSnapshot response from the leader. */
  resetFetchTimeoutForSuccessfulFetch(nowMs: number): void {
    this.fetchTimer.reset(nowMs, this.fetchTimer.timeout());
    this.fetchedFromLeader = true;
  }

  /** EndQuorumEpoch: replaces the fetch timer with the successor backoff (KIP-595). */
  overrideFetchTimeout(nowMs: number, timeoutMs: number): void {
    this.fetchTimer.reset(nowMs, timeoutMs);
  }

  /**
   * Returns true if the value grew. The leader's HWM arrives capped at our log end by the caller;
   * it may stay unknown but never goes backwards.
   */
  updateHighWatermark(highWatermark: number | undefined): boolean {
    if (highWatermark === undefined) return false;
    const current = this.highWatermarkOffset;
    if (current !== undefined && highWatermark <= current) {
      // Kafka throws on a regression from the leader; a smaller value can only come from a capped
      // update after our own log was shorter than the leader's HWM, so it is simply not applied.
      return false;
    }
    invariant(highWatermark >= 0, () => `negative high watermark ${highWatermark}`);
    this.highWatermarkOffset = highWatermark;
    return true;
  }

  canGrantVote(_candidateKey: ReplicaKey, isLogUpToDate: boolean, isPreVote: boolean): boolean {
    // A pre-vote is granted only while we have not heard from the leader in this epoch: once we
    // have, the leader is alive and the candidate must not disrupt it.
    return isPreVote && !this.fetchedFromLeader && isLogUpToDate;
  }
}
