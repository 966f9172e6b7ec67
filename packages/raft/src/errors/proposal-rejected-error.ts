import { KRaftError } from '@kraft/protocol';

/**
 * A proposal that definitely did not commit: a batch of another leader's epoch committed at its
 * offset, so its leader's uncommitted entries were truncated away (etcd's dropped proposal). It is
 * safe to propose the values again.
 */
export class ProposalRejectedError extends KRaftError {
  /** The last offset the proposal had been appended at. */
  readonly offset: number;
  /** The epoch it was proposed in. */
  readonly epoch: number;
  /** The epoch of the batch that committed at that offset instead. */
  readonly committedEpoch: number;

  constructor(offset: number, epoch: number, committedEpoch: number) {
    super(
      'PROPOSAL_REJECTED',
      `the proposal at offset ${offset} in epoch ${epoch} was replaced by a batch of epoch ${committedEpoch}`,
    );
    this.offset = offset;
    this.epoch = epoch;
    this.committedEpoch = committedEpoch;
  }
}
