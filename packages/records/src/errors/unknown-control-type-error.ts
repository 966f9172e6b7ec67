import { KRaftError } from '@kraft/protocol';

/**
 * A control record whose type is not one KRaft writes (2-6). Kafka's raft RecordsIterator throws
 * here rather than skipping: a KRaft log must never contain other control types.
 */
export class UnknownControlTypeError extends KRaftError {
  readonly controlType: number;
  readonly offset: number;
  readonly position: number;

  constructor(controlType: number, offset: number, position: number) {
    super(
      'UNKNOWN_CONTROL_TYPE',
      `unknown control record type ${controlType} at offset ${offset} (batch position ${position})`,
    );
    this.controlType = controlType;
    this.offset = offset;
    this.position = position;
  }

  /**
   * Whether `value` is an UnknownControlTypeError, by its `code` rather than `instanceof`, so the test holds
   * when two copies of this package are loaded.
   */
  static isUnknownControlTypeError(value: unknown): value is UnknownControlTypeError {
    return KRaftError.isInstance(value) && value.code === 'UNKNOWN_CONTROL_TYPE';
  }
}
