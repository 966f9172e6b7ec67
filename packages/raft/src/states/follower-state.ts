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
/**
 * Fetches refused as BROKER_NOT_AVAILABLE (connection refused or reset) with no successful one
 * between, after which a voter follower treats its leader as gone: it starts a pre-vote after a
 * random delay and grants pre-votes (README, failover).
 */
export const UNREACHABLE_LEADER_FETCHES_FOR_EARLY_ELECTION = 2;

export class FollowerState implements EpochState {
  readonly name = 'Follower' as const;
  readonly epoch: number;
  readonly leaderId: number;
  readonly votedKey: ReplicaKey | undefined;
  private readonly leaderListeners: Endpoints;
  private readonly voters: readonly number[];
  private highWatermarkOffset: number | undefined;
  private readonly fetchTimer: Timer;
  private readonly fetchTimeoutMs: number;
  private fetchedFromLeader = false;
  /** Set by the leader's EndQuorumEpoch: it leads this epoch no more. */
  private leaderResigned = false;
  /** Fetches to the leader refused as BROKER_NOT_AVAILABLE since the last successful one. */
  private unreachableLeaderFetches = 0;
  /** The snapshot being downloaded, if the leader told us to fetch one (an open `.part` file). */
  private download: RawSnapshotWriter | undefined;

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
    this.fetchTimeoutMs = options.fetchTimeoutMs;
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

  /** The snapshot being downloaded from the leader, if any. */
  snapshotDownload(): RawSnapshotWriter | undefined {
    return this.download;
  }

  /** Starts downloading into `writer`, abandoning any download already under way. */
  startSnapshotDownload(writer: RawSnapshotWriter): void {
    this.abandonSnapshotDownload();
    this.download = writer;
  }

  /** The download was frozen into a snapshot: nothing is left to release. */
  finishSnapshotDownload(): void {
    this.download = undefined;
  }

  /** Deletes the partial file; a later Fetch starts over. */
  abandonSnapshotDownload(): void {
    this.download?.close();
    this.download = undefined;
  }

  /** Continues `previous`'s download: the same leader in a later follower state. */
  takeOverSnapshotDownload(previous: FollowerState): void {
    this.download = previous.download;
    previous.download = undefined;
  }

  /** A download still open when the state ends is abandoned (a restart downloads again). */
  close(): void {
    this.abandonSnapshotDownload();
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
    // The configured timeout, not the timer's current one: an override or an early election
    // (below) must not shorten every later fetch timeout.
    if (!this.leaderResigned) this.fetchTimer.reset(nowMs, this.fetchTimeoutMs);
    this.fetchedFromLeader = true;
    this.unreachableLeaderFetches = 0;
  }

  /** Counts one more fetch refused as BROKER_NOT_AVAILABLE; returns the count since the last success. */
  recordUnreachableLeaderFetch(): number {
    this.unreachableLeaderFetches += 1;
    return this.unreachableLeaderFetches;
  }

  /** At least `threshold` fetches refused as unreachable since the last successful one. */
  isLeaderUnreachable(threshold: number): boolean {
    return this.unreachableLeaderFetches >= threshold;
  }

  /** Brings the fetch timeout forward to `nowMs + timeoutMs` if that is sooner (never later). */
  shortenFetchTimeout(nowMs: number, timeoutMs: number): void {
    if (timeoutMs < this.remainingFetchTimeMs(nowMs)) this.fetchTimer.reset(nowMs, timeoutMs);
  }

  /**
   * EndQuorumEpoch from our leader: replaces the fetch timer with the successor backoff (KIP-595).
   * The leader has fenced itself for this epoch, so (a deliberate difference from Kafka, ADR
   * 0024) an answer to a fetch sent before it resigned no longer re-arms the fetch timer, and the
   * leader no longer counts as alive against pre-votes: a transfer's target would otherwise wait
   * out a whole fetch timeout, or lose its pre-vote among five voters.
   */
  onLeaderResigned(nowMs: number, backoffMs: number): void {
    this.leaderResigned = true;
    this.fetchTimer.reset(nowMs, backoffMs);
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
    // have, the leader is alive and the candidate must not disrupt it. Unless (a deliberate
    // difference from Kafka, see the README) our own fetches to it are refused as unreachable.
    const leaderAlive =
      this.fetchedFromLeader &&
      !this.leaderResigned &&
      !this.isLeaderUnreachable(UNREACHABLE_LEADER_FETCHES_FOR_EARLY_ELECTION);
    return isPreVote && !leaderAlive && isLogUpToDate;
  }
}
