import { ElectionState } from '../election-state.js';
import { Endpoints } from '../endpoints.js';
import { EpochElection } from '../internals/epoch-election.js';
import { Timer } from '../internals/timer.js';
import type { LeaderAndEpoch } from '../raft-client.js';
import type { ReplicaKey } from '../replica-key.js';
import type { EpochState } from './epoch-state.js';

/**
 * A standard election in a new epoch: votes for itself (persisted as `votedKey = self`), asks the
 * others, and falls back to Prospective when the election timer expires (won elections move on
 * to Leader at once).
 */
export class CandidateState implements EpochState {
  readonly name = 'Candidate' as const;
  readonly epoch: number;
  readonly localKey: ReplicaKey;
  private readonly voters: readonly number[];
  private readonly highWatermarkOffset: number | undefined;
  private readonly electionTimer: Timer;
  readonly epochElection: EpochElection;

  constructor(options: {
    epoch: number;
    localKey: ReplicaKey;
    voterKeys: readonly ReplicaKey[];
    highWatermark: number | undefined;
    electionTimeoutMs: number;
    nowMs: number;
  }) {
    this.epoch = options.epoch;
    this.localKey = options.localKey;
    this.voters = options.voterKeys.map((key) => key.id);
    this.highWatermarkOffset = options.highWatermark;
    this.electionTimer = new Timer(options.nowMs, options.electionTimeoutMs);
    this.epochElection = new EpochElection(options.voterKeys);
    this.epochElection.recordVote(options.localKey.id, true);
  }

  election(): ElectionState {
    return ElectionState.withVotedCandidate(this.epoch, this.localKey, this.voters);
  }

  leaderAndEpoch(): LeaderAndEpoch {
    return { leaderId: undefined, epoch: this.epoch };
  }

  leaderEndpoints(): Endpoints {
    return Endpoints.EMPTY;
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

  canGrantVote(_candidateKey: ReplicaKey, isLogUpToDate: boolean, isPreVote: boolean): boolean {
    // It already voted for itself in this epoch.
    return isPreVote && isLogUpToDate;
  }
}
