import { ElectionState } from '../election-state.js';
import type { Endpoints } from '../endpoints.js';
import { EpochElection } from '../internals/epoch-election.js';
import type { LeaderAndEpoch } from '../raft-client.js';
import type { ReplicaKey } from '../replica-key.js';
import { ElectionTimedState } from './election-timed-state.js';
import type { EpochState } from './epoch-state.js';
import { canGrantStandardVote } from './unattached-state.js';

/**
 * KIP-996 pre-vote: same epoch, asks the voters whether they would vote for us before anybody
 * bumps an epoch. Remembers the last leader and its endpoints so a lost pre-vote can fall back to
 * Follower, and keeps the vote cast in this epoch. Memory only: nothing new is persisted.
 */
export class ProspectiveState extends ElectionTimedState implements EpochState {
  readonly name = 'Prospective' as const;
  readonly leaderId: number | undefined;
  readonly votedKey: ReplicaKey | undefined;
  private readonly leaderListeners: Endpoints;
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
    super({ ...options, voters: options.voterKeys.map((key) => key.id) });
    this.leaderId = options.leaderId;
    this.leaderListeners = options.leaderEndpoints;
    this.votedKey = options.votedKey;
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

  canGrantVote(candidateKey: ReplicaKey, isLogUpToDate: boolean, isPreVote: boolean): boolean {
    if (isPreVote) return isLogUpToDate;
    return canGrantStandardVote(this.votedKey, this.leaderId, candidateKey, isLogUpToDate);
  }
}
