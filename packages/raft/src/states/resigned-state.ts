import { ElectionState } from '../election-state.js';
import type { Endpoints } from '../endpoints.js';
import type { LeaderAndEpoch } from '../raft-client.js';
import type { ReplicaKey } from '../replica-key.js';
import { ElectionTimedState } from './election-timed-state.js';
import type { EpochState } from './epoch-state.js';

/**
 * A former leader that fenced itself (graceful shutdown, `resign`, check-quorum, or a restart
 * after leading). It sends EndQuorumEpoch with its preferred successors to every voter that has
 * not acknowledged, and accepts no writes. When its election timer expires it moves to
 * Unattached in the next epoch.
 */
export class ResignedState extends ElectionTimedState implements EpochState {
  readonly name = 'Resigned' as const;
  readonly localId: number;
  /** Other voters ordered by how far they had replicated (most up to date first). */
  readonly preferredSuccessors: readonly ReplicaKey[];
  private readonly localListeners: Endpoints;
  private readonly unackedVoters: Set<number>;

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
    super(options);
    this.localId = options.localId;
    this.preferredSuccessors = options.preferredSuccessors;
    this.localListeners = options.localEndpoints;
    this.unackedVoters = new Set(options.voters.filter((id) => id !== options.localId));
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

  unackedVoterIds(): number[] {
    return [...this.unackedVoters];
  }

  acknowledgeResignation(voterId: number): void {
    this.unackedVoters.delete(voterId);
  }

  canGrantVote(_candidateKey: ReplicaKey, isLogUpToDate: boolean, isPreVote: boolean): boolean {
    return isPreVote && isLogUpToDate;
  }
}
