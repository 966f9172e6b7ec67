import { KRaftError } from '@kraft/protocol';

/**
 * The `quorum-state` file exists but cannot be trusted: not JSON, an unknown `data_version`, a
 * missing or mistyped field. Raised at startup; the node must not start from a reset election
 * state (it could vote twice in one epoch), so an operator has to look at the file.
 */
export class CorruptQuorumStateError extends KRaftError {
  readonly path: string;

  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super('CORRUPT_QUORUM_STATE', `invalid quorum state file '${path}': ${reason}`, options);
    this.path = path;
  }
}
