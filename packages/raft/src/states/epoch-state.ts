import type { ElectionState } from '../election-state.js';
import type { Endpoints } from '../endpoints.js';
import type { LeaderAndEpoch } from '../raft-client.js';
import type { ReplicaKey } from '../replica-key.js';

export type StateName = 'Unattached' | 'Prospective' | 'Candidate' | 'Leader' | 'Follower' | 'Resigned';

/** What every quorum state offers (Kafka's sealed `EpochState`). */
export interface EpochState {
  readonly name: StateName;
  readonly epoch: number;
  /** The election state this state persists (or would persist) in the quorum-state file. */
  election(): ElectionState;
  leaderAndEpoch(): LeaderAndEpoch;
  leaderEndpoints(): Endpoints;
  /** Undefined while unknown; never goes backwards within a state. */
  highWatermark(): number | undefined;
  /**
   * The vote-granting matrix. `isLogUpToDate`: the candidate's (lastEpoch, lastOffset) is at
   * least ours. A standard vote granted here is persisted by the caller before it is answered.
   */
  canGrantVote(candidateKey: ReplicaKey, isLogUpToDate: boolean, isPreVote: boolean): boolean;
  /**
   * Releases what the state owns (a follower's snapshot download). `QuorumState` calls it on
   * every transition away from the state, and at `close()`; nothing else does.
   */
  close(): void;
}
