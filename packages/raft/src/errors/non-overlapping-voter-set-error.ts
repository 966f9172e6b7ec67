import { KRaftError } from '@kraft/protocol';

/**
 * The log holds a voter set that changes more than one voter at once from the set before it
 * (KIP-853 allows one change at a time, so that every majority of the old set overlaps every
 * majority of the new one). A leader never writes such a record; reading one means the log is
 * not a KRaft log this node can trust, and the node must stop.
 */
export class NonOverlappingVoterSetError extends KRaftError {
  /** The offset of the VotersRecord that was refused. */
  readonly offset: number;

  constructor(offset: number, message: string) {
    super('NON_OVERLAPPING_VOTER_SET', message);
    this.offset = offset;
  }

  /** True for a NonOverlappingVoterSetError, even one from another copy of the package. */
  static isNonOverlappingVoterSetError(value: unknown): value is NonOverlappingVoterSetError {
    return KRaftError.isInstance(value) && value.code === 'NON_OVERLAPPING_VOTER_SET';
  }
}
