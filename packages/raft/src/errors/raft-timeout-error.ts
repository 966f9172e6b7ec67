import { KRaftError } from '@kraft/protocol';

/** The operations that end with a RaftTimeoutError when they take longer than their bound. */
export type TimedRaftOperation = 'read-index' | 'leadership-transfer';

/**
 * A read barrier or a leadership transfer did not finish within its timeout (a quorum that does
 * not answer, a target that does not catch up or win). Nothing was changed by it: retry or give up.
 */
export class RaftTimeoutError extends KRaftError {
  readonly operation: TimedRaftOperation;
  readonly timeoutMs: number;

  constructor(operation: TimedRaftOperation, timeoutMs: number) {
    super('RAFT_TIMEOUT', `${operation} did not finish within ${timeoutMs} ms`);
    this.operation = operation;
    this.timeoutMs = timeoutMs;
  }
}
