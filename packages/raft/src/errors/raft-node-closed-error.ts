import { KRaftError } from '@kraft/protocol';

/**
 * A call on a `RaftNode` that is not started yet, already closed, or stopped by a failure (then
 * `cause` holds the driver's error); nothing was proposed.
 */
export class RaftNodeClosedError extends KRaftError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('RAFT_NODE_CLOSED', message, options);
  }
}
