import { ElectionState } from '../election-state.js';
import type { Endpoints } from '../endpoints.js';
import { Timer } from '../internals/timer.js';
import type { LeaderAndEpoch } from '../raft-client.js';
import type { ReplicaKey } from '../replica-key.js';
import type { EpochState } from './epoch-state.js';

/**
 * A former leader that fenced itself (graceful shutdown, `resign`, check-quorum, or a restart
 * after leading). It sends EndQuorumEpoch with its preferred successors to every voter that has
 * not acknowledged, and accepts no writes. When its election timer expires it moves to
 * Unattached in the next epoch.
 */
export class ResignedState implements EpochState {
  readonly name = 'Resigned' as const;
  readonly epoch: number;
  readonly localId: number;
  /** Other voters ordered by how far they had replicated (most up to date first). */
  readonly preferredSuccessors: readonly ReplicaKey[];
  private readonly localListeners: Endpoints;
  private readonly voters: readonly number[];
  private readonly unackedVoters: Set<number>;
  private readonly highWatermarkOffset: number | undefined;
  private readonly electionTimer: Timer;

  constructor(options: {
    epoch: number;
    localId: number;
    voters: readonly number[];
    preferredSuccessors: readonly ReplicaKey[];
    localEndpoints: Endpoints;
    highWatermark: number | undefined;
    electionTimeoutMs: number;
    nowMs: number;
  }) {
    this.epoch = options.epoch;
    this.localId = options.localId;
    this.voters = options.voters;
    this.preferredSuccessors = options.preferredSuccessors;
    this.localListeners = options.localEndpoints;
    this.unackedVoters = new Set(options.voters.filter((id) => id !== options.localId));
    this.highWatermarkOffset = options.highWatermark;
    this.electionTimer = new Timer(options.nowMs, options.electionTimeoutMs);
  }

  election(): ElectionState {
    return ElectionState.withElectedLeader(this.epoch, this.localId, undefined, this.voters);
  }

  leaderAndEpoch(): LeaderAndEpoch {
    return { leaderId: this.localId, epoch: this.epoch };
  }

  leaderEndpoints(): Endpoints {
    return this.localListeners;
  }

  highWatermark(): number | undefined {
    return this.highWatermarkOffset;
  }

  unackedVoterIds(): number[] {
    return [...this.unackedVoters];
  }

  acknowledgeResignation(voterId: number): void {
    this.unackedVoters.delete(voterId);
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
    return isPreVote && isLogUpToDate;
  }
}
