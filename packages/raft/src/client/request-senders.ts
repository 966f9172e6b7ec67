import type { FollowerState } from '../states/follower-state.js';
import type { LeaderState } from '../states/leader-state.js';
import type { ResignedState } from '../states/resigned-state.js';

/*
 * What the state poller and the transitions ask of the RPC handlers, declared here so that
 * `client/` depends on these few methods and never on `handlers/` (the handlers implement them;
 * KafkaRaftClient wires the two). Enforced by `pnpm check:layers`.
 */

/** Vote and pre-vote requests of a Prospective or Candidate state (VoteHandler). */
export interface VoteRequestSender {
  sendVoteRequests(voterIds: readonly number[], epoch: number, preVote: boolean, nowMs: number): void;
}

/** A leader's BeginQuorumEpoch and a resigned leader's EndQuorumEpoch (QuorumEpochHandler). */
export interface QuorumEpochRequestSender {
  sendBeginQuorumEpoch(leader: LeaderState, voterId: number, nowMs: number): void;
  sendEndQuorumEpoch(resigned: ResignedState, voterId: number, nowMs: number): void;
}

/** A follower's or observer's Fetch and FetchSnapshot (FollowerFetch). */
export interface FetchRequestSender {
  sendFetchOrFetchSnapshot(follower: FollowerState, destinationId: number, nowMs: number): void;
  sendFetch(destinationId: number, epoch: number, nowMs: number): void;
}

/** The leader's long-polling fetches (FetchHandler): answered on new data, refused on losing leadership. */
export interface ParkedFetches {
  completeParkedFetches(nowMs: number): void;
  completeParkedFetchesWithError(nowMs: number): void;
}

/** A kraft.version 1 follower's UpdateRaftVoter to its leader (UpdateVoterSender). */
export interface UpdateVoterRequestSender {
  /** Sends it instead of this poll's Fetch when the committed set misstates this voter; true if sent. */
  maybeSendUpdateVoter(follower: FollowerState, nowMs: number): boolean;
}

/** A kraft.version 1 observer's AddRaftVoter for itself, with auto-join on (AutoJoinSender). */
export interface AutoJoinRequestSender {
  /** Sends it instead of this poll's Fetch when a try is due; true if sent. */
  maybeSendAutoJoin(follower: FollowerState, nowMs: number): boolean;
  /** Until the next try is due. */
  remainingMs(follower: FollowerState, nowMs: number): number;
}

/** What the state poller sends for each role, through the handlers that build the requests. */
export interface RoleRequestSenders {
  readonly vote: VoteRequestSender;
  readonly quorumEpoch: QuorumEpochRequestSender;
  readonly fetch: FetchRequestSender;
  readonly parkedFetches: ParkedFetches;
  /** kraft.version 1 only. */
  readonly updateVoter?: UpdateVoterRequestSender | undefined;
  /** kraft.version 1 with `autoJoin` only. */
  readonly autoJoin?: AutoJoinRequestSender | undefined;
}
