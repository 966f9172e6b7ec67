import { KRaftError } from '@kraft/protocol';

/**
 * A batch bigger than a configured bound: a builder asked to exceed `maxBatchSizeBytes`, or a
 * compressed batch that inflates beyond the decompression limit (refused before the memory is
 * allocated, so a hostile or corrupt batch cannot exhaust the heap).
 */
export class RecordBatchTooLargeError extends KRaftError {
  readonly sizeInBytes: number;
  readonly limitBytes: number;

  constructor(message: string, sizeInBytes: number, limitBytes: number) {
    super('RECORD_BATCH_TOO_LARGE', message);
    this.sizeInBytes = sizeInBytes;
    this.limitBytes = limitBytes;
  }

  /**
   * Whether `value` is a RecordBatchTooLargeError, by its `code` rather than `instanceof`, so the test holds
   * when two copies of this package are loaded.
   */
  static isRecordBatchTooLargeError(value: unknown): value is RecordBatchTooLargeError {
    return KRaftError.isInstance(value) && value.code === 'RECORD_BATCH_TOO_LARGE';
  }
}
