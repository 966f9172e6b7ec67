import { KRaftError, type NodeAddress } from '@kraft/protocol';

/** Who leads as far as the refusing node knows, for the caller to retry there. */
export interface KnownLeader {
  /** The leader's node id; undefined while an election runs. */
  readonly leaderId: number | undefined;
  /** The leader's endpoint on the controller listener, when the voter set knows it. */
  readonly leaderEndpoint: NodeAddress | undefined;
}

/**
 * An append for an epoch this node does not lead (Kafka's NotLeaderException). Expected during
 * elections: the caller waits for the next `handleLeaderChange`, or (through `RaftNode`) retries
 * on `leaderId` at `leaderEndpoint` when they are known.
 */
export class NotLeaderError extends KRaftError {
  readonly epoch: number;
  readonly leaderId: number | undefined;
  readonly leaderEndpoint: NodeAddress | undefined;

  constructor(message: string, epoch: number, leader?: KnownLeader) {
    super('NOT_LEADER', message);
    this.epoch = epoch;
    this.leaderId = leader?.leaderId;
    this.leaderEndpoint = leader?.leaderEndpoint;
  }
}
