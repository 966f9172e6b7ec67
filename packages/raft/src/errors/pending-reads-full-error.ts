import { KRaftError } from '@kraft/protocol';

/**
 * The leader holds as many unconfirmed read barriers as it may (MAX_PENDING_READS): backpressure,
 * retry once some are answered.
 */
export class PendingReadsFullError extends KRaftError {
  constructor(message: string) {
    super('PENDING_READS_FULL', message);
  }
}
