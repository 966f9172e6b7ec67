import { KRaftError } from '@kraft/protocol';

/** No leader became known within the wait (`RaftNode.waitForLeader`): the quorum has no majority up. */
export class NoLeaderError extends KRaftError {
  readonly timeoutMs: number;

  constructor(nodeId: number, timeoutMs: number) {
    super('NO_LEADER', `node ${nodeId} learnt of no leader within ${timeoutMs} ms`);
    this.timeoutMs = timeoutMs;
  }
}
