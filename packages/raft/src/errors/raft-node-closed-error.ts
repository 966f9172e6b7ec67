import { KRaftError } from '@kraft/protocol';

/** A call on a `RaftNode` that is not started yet or already closed; nothing was proposed. */
export class RaftNodeClosedError extends KRaftError {
  constructor(message: string) {
    super('RAFT_NODE_CLOSED', message);
  }
}
