import { KRaftError } from '@kraft/protocol';

/**
 * The `quorum-state` file exists but cannot be trusted: not JSON, an unknown `data_version`, a
 * missing or mistyped field. Raised at startup; the node must not start from a reset election
 * state (it could vote twice in one epoch), so an operator has to look at the file.
 */
export class CorruptQuorumStateError extends KRaftError {
  readonly path: string;
  /** What the operator can do about it, also the message's second half. */
  readonly remedy: string;

  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    const remedy = remedyFor(path);
    super('CORRUPT_QUORUM_STATE', `invalid quorum state file '${path}': ${reason}. ${remedy}`, options);
    this.path = path;
    this.remedy = remedy;
  }
}

/**
 * Deleting the file is safe only when the node cannot cast a second vote that counts: the other
 * voters, already past any epoch it voted in, refuse a candidate of such an epoch, and the node
 * learns the current epoch from their leader.
 */
function remedyFor(path: string): string {
  return (
    `The file holds this node's epoch and vote, and the node will not start without them. ` +
    `Restore '${path}' from a backup of this node. Delete it only if the node may forget its vote: ` +
    'when the other voters are running and have a leader. Without the file the node may vote again ' +
    'in an epoch it has already voted in, and two candidates could then both win that epoch.'
  );
}
