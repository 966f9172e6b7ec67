import { KRaftError } from '@kraft/protocol';

/** The driver's queue is full: the request's connection is closed and its sender retries. */
export class InboundQueueFullError extends KRaftError {
  constructor(capacity: number) {
    super('INBOUND_QUEUE_FULL', `inbound queue full (${capacity} messages)`);
  }
}
