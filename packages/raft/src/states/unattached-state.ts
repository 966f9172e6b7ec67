import { ElectionState } from '../election-state.js';
import { Endpoints } from '../endpoints.js';
import { Timer } from '../internals/timer.js';
import type { LeaderAndEpoch } from '../raft-client.js';
import type { ReplicaKey } from '../replica-key.js';
import type { EpochState } from './epoch-state.js';

/**
 * No leader with known endpoints in this epoch. It may remember a vote (`votedKey`) and a leader
 * id without endpoints. Voters run the election timer (→ Prospective); observers never time out.
 */
export class UnattachedState implements EpochState {
  readonly name = 'Unattached' as const;
  readonly epoch: number;
  readonly leaderId: number | undefined;
  readonly votedKey: ReplicaKey | undefined;
  private readonly voters: readonly number[];
  private readonly highWatermarkOffset: number | undefined;
  private readonly electionTimer: Timer;

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
    this.epoch = options.epoch;
    this.leaderId = options.leaderId;
    this.votedKey = options.votedKey;
    this.voters = options.voters;
    this.highWatermarkOffset = options.highWatermark;
    this.electionTimer = new Timer(options.nowMs, options.electionTimeoutMs);
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
