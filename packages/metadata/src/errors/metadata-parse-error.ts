import { KRaftError } from '@kraft/protocol';

/** Why a metadata record value could not be decoded. */
export type MetadataParseFailure =
  /** The frame version is not 1 (0 was KRaft's 2.8 preview format, which Kafka refuses too). */
  | 'unknown-frame-version'
  /** No metadata record has this type id. */
  | 'unknown-record-type'
  /** The record type exists but not at this version. */
  | 'unsupported-version'
  /** The value ended before the frame or the message did. */
  | 'truncated'
  /** Bytes follow the end of the message. */
  | 'trailing-bytes'
  /** A byte that cannot be right: an over-long varint, a negative length, a null where none is allowed. */
  | 'malformed';

/**
 * A metadata record value that cannot be decoded (Kafka's `MetadataParseException`).
 * `position` is the byte offset within the value where decoding stopped.
 */
export class MetadataParseError extends KRaftError {
  readonly failure: MetadataParseFailure;
  /** What went wrong, without the position. */
  readonly reason: string;
  readonly position: number;

  constructor(
    failure: MetadataParseFailure,
    reason: string,
    position: number,
    options?: { cause?: unknown },
  ) {
    super('METADATA_PARSE_ERROR', `${reason} (at byte ${position})`, options);
    this.failure = failure;
    this.reason = reason;
    this.position = position;
  }

  /** Whether `value` is a `MetadataParseError`, told by its error code (so also one thrown by another copy of this package). */
  static isMetadataParseError(value: unknown): value is MetadataParseError {
    return KRaftError.isInstance(value) && value.code === 'METADATA_PARSE_ERROR';
  }
}
