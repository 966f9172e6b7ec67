import { KRaftError } from '@kraft/protocol';

/**
 * A record batch whose bytes cannot be trusted: bad CRC, bad magic, a length below the 61-byte
 * header, a record count that disagrees with the records, an over-long varint, a truncated record,
 * or compressed bytes that do not inflate. Carries the batch's base offset (when it could be read)
 * and its byte position within the records (file position for FileRecords), as Kafka's
 * CorruptRecordException does in its message.
 */
export class CorruptRecordError extends KRaftError {
  /** The batch's base offset, or -1 when the header itself could not be read. */
  readonly offset: number;
  /** Byte position of the batch within the records it was read from. */
  readonly position: number;
  readonly reason: string;

  constructor(reason: string, offset: number, position: number, options?: { cause?: unknown }) {
    super('CORRUPT_RECORD', `${reason} (batch at offset ${offset}, position ${position})`, options);
    this.reason = reason;
    this.offset = offset;
    this.position = position;
  }

  /**
   * Whether `value` is a CorruptRecordError, by its `code` rather than `instanceof`, so the test holds
   * when two copies of this package are loaded.
   */
  static isCorruptRecordError(value: unknown): value is CorruptRecordError {
    return KRaftError.isInstance(value) && value.code === 'CORRUPT_RECORD';
  }
}
