import { KRaftError } from '@kraft/protocol';

/**
 * Why a leadership transfer was refused or failed (other than "not leader", a NotLeaderError, and
 * a timeout, a RaftTimeoutError):
 * - `not-a-voter`: the target is not a voter of the current voter set;
 * - `in-progress`: another transfer is running (one at a time);
 * - `another-leader-elected`: a node other than the target won the next election.
 */
export type LeadershipTransferFailure = 'not-a-voter' | 'in-progress' | 'another-leader-elected';

/** A leadership transfer refused at the call or failed later; `reason` says which way. */
export class LeadershipTransferError extends KRaftError {
  readonly reason: LeadershipTransferFailure;
  readonly targetId: number;

  constructor(reason: LeadershipTransferFailure, targetId: number, message: string) {
    super('LEADERSHIP_TRANSFER_FAILED', message);
    this.reason = reason;
    this.targetId = targetId;
  }
}
