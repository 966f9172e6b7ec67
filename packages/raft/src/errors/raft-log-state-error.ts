import { KRaftError } from '@kraft/protocol';

/**
 * The log disagrees with what raft requires to stay safe: a truncation below the high watermark,
 * a log start without a covering snapshot. The node must stop; its disk needs an operator.
 */
export class RaftLogStateError extends KRaftError {
  constructor(message: string) {
    super('RAFT_LOG_STATE', message);
  }
}
