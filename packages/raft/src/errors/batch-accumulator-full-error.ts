import { KRaftError } from '@kraft/protocol';

/**
 * The leader's accumulator holds as many bytes or batches as it may. Unlike Kafka (which fails
 * hard with BufferAllocationException) this is backpressure: retry after the next poll drains it.
 */
export class BatchAccumulatorFullError extends KRaftError {
  constructor(message: string) {
    super('BATCH_ACCUMULATOR_FULL', message);
  }
}
