import { KRaftError } from '@kraft/protocol';

/** Why a proposal's outcome stayed unknown. */
export type IndeterminateReason = 'timeout' | 'closed' | 'snapshot';

/**
 * A proposal reached the leader's log but its outcome is unknown: it may or may not commit (a
 * history checker's `info`). Raised only when nothing this node will still see can decide it: the
 * node closed, the wait timed out, or a snapshot replaced the log range that held it. A proposal
 * whose leader merely changed stays pending until a committed batch at its offset settles it.
 */
export class IndeterminateError extends KRaftError {
  /** The last offset the proposal was appended at. */
  readonly offset: number;
  /** The leader epoch it was appended in. */
  readonly epoch: number;
  readonly reason: IndeterminateReason;

  constructor(offset: number, epoch: number, reason: IndeterminateReason) {
    super(
      'INDETERMINATE',
      `the proposal at offset ${offset} in epoch ${epoch} may or may not have committed (${reason})`,
    );
    this.offset = offset;
    this.epoch = epoch;
    this.reason = reason;
  }
}
