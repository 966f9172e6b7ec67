import { ElectionState } from '../election-state.js';
import { Endpoints } from '../endpoints.js';
import { EpochElection } from '../internals/epoch-election.js';
import type { LeaderAndEpoch } from '../raft-client.js';
import type { ReplicaKey } from '../replica-key.js';
import { ElectionTimedState } from './election-timed-state.js';
import type { EpochState } from './epoch-state.js';

/**
 * A standard election in a new epoch: votes for itself (persisted as `votedKey = self`), asks the
 * others, and falls back to Prospective when the election timer expires (won elections move on
 * to Leader at once).
 */
export class CandidateState extends ElectionTimedState implements EpochState {
  readonly name = 'Candidate' as const;
  readonly localKey: ReplicaKey;
  readonly epochElection: EpochElection;

  constructor(options: {
    epoch: number;
    localKey: ReplicaKey;
    voterKeys: readonly ReplicaKey[];
    highWatermark: number | undefined;
    electionTimeoutMs: number;
    nowMs: number;
  }) {
    super({ ...options, voters: options.voterKeys.map((key) => key.id) });
    this.localKey = options.localKey;
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

  canGrantVote(_candidateKey: ReplicaKey, isLogUpToDate: boolean, isPreVote: boolean): boolean {
    // It already voted for itself in this epoch.
    return isPreVote && isLogUpToDate;
  }
}
