import { KRaftError } from '@kraft/protocol';

/**
 * An append for an epoch this node does not lead (Kafka's NotLeaderException). Expected during
 * elections: the caller waits for the next `handleLeaderChange`.
 */
export class NotLeaderError extends KRaftError {
  readonly epoch: number;

  constructor(message: string, epoch: number) {
    super('NOT_LEADER', message);
    this.epoch = epoch;
  }
}
