import { ElectionState } from '../election-state.js';
import { Endpoints } from '../endpoints.js';
import type { LeaderAndEpoch } from '../raft-client.js';
import type { ReplicaKey } from '../replica-key.js';
import { ElectionTimedState } from './election-timed-state.js';
import type { EpochState } from './epoch-state.js';

/**
 * No leader with known endpoints in this epoch. It may remember a vote (`votedKey`) and a leader
 * id without endpoints. Voters run the election timer (→ Prospective); observers never time out.
 */
export class UnattachedState extends ElectionTimedState implements EpochState {
  readonly name = 'Unattached' as const;
  readonly leaderId: number | undefined;
  readonly votedKey: ReplicaKey | undefined;

  constructor(options: {
    epoch: number;
    leaderId: number | undefined;
    votedKey: ReplicaKey | undefined;
    voters: readonly number[];
    highWatermark: number | undefined;
    /** `Infinity` for observers. */
    electionTimeoutMs: number;
    nowMs: number;
  }) {
    super(options);
    this.leaderId = options.leaderId;
    this.votedKey = options.votedKey;
  }

  election(): ElectionState {
    return ElectionState.of(this.epoch, this.leaderId, this.votedKey, this.voters);
  }

  leaderAndEpoch(): LeaderAndEpoch {
    return { leaderId: this.leaderId, epoch: this.epoch };
  }

  leaderEndpoints(): Endpoints {
    return Endpoints.EMPTY;
  }

  canGrantVote(candidateKey: ReplicaKey, isLogUpToDate: boolean, isPreVote: boolean): boolean {
    if (isPreVote) return isLogUpToDate;
    return canGrantStandardVote(this.votedKey, this.leaderId, candidateKey, isLogUpToDate);
  }
}

/**
 * The standard-vote rule of Unattached and Prospective: one vote per epoch (a repeated request
 * from the same candidate is granted again), none once a leader is known, else by log comparison.
 */
export function canGrantStandardVote(
  votedKey: ReplicaKey | undefined,
  leaderId: number | undefined,
  candidateKey: ReplicaKey,
  isLogUpToDate: boolean,
): boolean {
  if (votedKey !== undefined) {
    if (votedKey.id !== candidateKey.id) return false;
    // A vote cast for an unknown directory id is kept for whichever directory asks (Kafka).
    return votedKey.directoryId === undefined || votedKey.matches(candidateKey);
  }
  if (leaderId !== undefined) return false;
  return isLogUpToDate;
}
