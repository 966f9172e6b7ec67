import { KRaftError } from '@kraft/protocol';

/**
 * A caller passed an argument outside what the records allow: a negative or past-the-end
 * position or size for `slice`/`readInto`, a truncation target beyond the size. Kafka throws
 * IllegalArgumentException in the same places.
 */
export class IllegalArgumentError extends KRaftError {
  constructor(message: string) {
    super('ILLEGAL_ARGUMENT', message);
  }

  /**
   * Whether `value` is an IllegalArgumentError, by its `code` rather than `instanceof`, so the test holds
   * when two copies of this package are loaded.
   */
  static isIllegalArgumentError(value: unknown): value is IllegalArgumentError {
    return KRaftError.isInstance(value) && value.code === 'ILLEGAL_ARGUMENT';
  }
}
