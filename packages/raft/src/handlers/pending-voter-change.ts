import type { RaftApiKey } from '../rpc/raft-api-key.js';
import type { RaftRequestOf } from '../rpc/typed-messages.js';
import type { LeaderState } from '../states/leader-state.js';
import type { VoterSet } from '../voter-set.js';

/** The voter change request a pending change answers, by its kind. */
export type VoterChangeRequest =
  | { readonly kind: 'add'; readonly request: RaftRequestOf<typeof RaftApiKey.ADD_RAFT_VOTER> }
  | { readonly kind: 'remove'; readonly request: RaftRequestOf<typeof RaftApiKey.REMOVE_RAFT_VOTER> }
  | { readonly kind: 'update'; readonly request: RaftRequestOf<typeof RaftApiKey.UPDATE_RAFT_VOTER> };

/**
 * The one voter change the leader has under way (KIP-853: one at a time). It belongs to the
 * leader state of its epoch: when that state is no longer the current one, the request is
 * answered NOT_LEADER_OR_FOLLOWER. Its VotersRecord is appended at once, or at a later poll when
 * a prepared append held the accumulator (`votersOffset` undefined until then); the request is
 * answered NONE once the high watermark passes that offset, REQUEST_TIMED_OUT at `deadlineMs`.
 */
export interface PendingVoterChange {
  readonly change: VoterChangeRequest;
  readonly leader: LeaderState;
  readonly newVoters: VoterSet;
  readonly deadlineMs: number;
  /** Answer as soon as the record is appended (AddRaftVoter v1 with `ackWhenCommitted` false). */
  readonly answerOnAppend: boolean;
  votersOffset: number | undefined;
}
