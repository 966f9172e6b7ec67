import { ElectionState } from '../election-state.js';
import type { Endpoints } from '../endpoints.js';
import { EpochElection } from '../internals/epoch-election.js';
import { Timer } from '../internals/timer.js';
import type { LeaderAndEpoch } from '../raft-client.js';
import type { ReplicaKey } from '../replica-key.js';
import type { EpochState } from './epoch-state.js';
import { canGrantStandardVote } from './unattached-state.js';

/**
 * KIP-996 pre-vote: same epoch, asks the voters whether they would vote for us before anybody
 * bumps an epoch. Remembers the last leader and its endpoints so a lost pre-vote can fall back to
 * Follower, and keeps the vote cast in this epoch. Memory only: nothing new is persisted.
 */
export class ProspectiveState implements EpochState {
  readonly name = 'Prospective' as const;
  readonly epoch: number;
  readonly leaderId: number | undefined;
  readonly votedKey: ReplicaKey | undefined;
  private readonly leaderListeners: Endpoints;
  private readonly voters: readonly number[];
  private readonly highWatermarkOffset: number | undefined;
  private readonly electionTimer: Timer;
  readonly epochElection: EpochElection;

  constructor(options: {
    epoch: number;
    localKey: ReplicaKey;
    leaderId: number | undefined;
    leaderEndpoints: Endpoints;
    votedKey: ReplicaKey | undefined;
    voterKeys: readonly ReplicaKey[];
    highWatermark: number | undefined;
    electionTimeoutMs: number;
    nowMs: number;
  }) {
    this.epoch = options.epoch;
    this.leaderId = options.leaderId;
    this.leaderListeners = options.leaderEndpoints;
    this.votedKey = options.votedKey;
    this.voters = options.voterKeys.map((key) => key.id);
    this.highWatermarkOffset = options.highWatermark;
    this.electionTimer = new Timer(options.nowMs, options.electionTimeoutMs);
    this.epochElection = new EpochElection(options.voterKeys);
    this.epochElection.recordVote(options.localKey.id, true);
  }

  election(): ElectionState {
    return ElectionState.of(this.epoch, this.leaderId, this.votedKey, this.voters);
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

  hasElectionTimeoutExpired(nowMs: number): boolean {
    this.electionTimer.update(nowMs);
    return this.electionTimer.isExpired();
  }

  remainingElectionTimeMs(nowMs: number): number {
    this.electionTimer.update(nowMs);
    return this.electionTimer.remainingMs();
  }

  canGrantVote(candidateKey: ReplicaKey, isLogUpToDate: boolean, isPreVote: boolean): boolean {
    if (isPreVote) return isLogUpToDate;
    return canGrantStandardVote(this.votedKey, this.leaderId, candidateKey, isLogUpToDate);
  }
}
