import { KRaftError } from '@kraft/protocol';

/** One `prepareAppend` call's records do not fit in one batch of the maximum batch size. */
export class RecordBatchTooLargeError extends KRaftError {
  constructor(message: string) {
    super('RECORD_BATCH_TOO_LARGE', message);
  }
}
