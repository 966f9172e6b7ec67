import { KRaftError } from '@kraft/protocol';

/** A read or log-start move at an offset outside [log start, log end]. Kafka: OFFSET_OUT_OF_RANGE. */
export class OffsetOutOfRangeError extends KRaftError {
  constructor(message: string) {
    super('OFFSET_OUT_OF_RANGE', message);
  }
}

/**
 * Records that may not be appended: offsets that are not contiguous with the log end, leader epochs
 * going backwards, an empty record set. Kafka: INVALID_RECORD (InvalidRecordException).
 */
export class InvalidRecordError extends KRaftError {
  constructor(message: string) {
    super('INVALID_RECORD', message);
  }
}

/** Bytes that fail their CRC, magic or length checks. Kafka: CORRUPT_MESSAGE (CorruptRecordException). */
export class LogCorruptionError extends KRaftError {
  constructor(message: string) {
    super('CORRUPT_MESSAGE', message);
  }
}

/** A call the log's state forbids: truncating below the high watermark, a snapshot above it. */
export class InvalidLogOperationError extends KRaftError {
  constructor(message: string) {
    super('INVALID_REQUEST', message);
  }
}

/** Files on disk that contradict each other (KAFKA-14240: log start > 0 with no covering snapshot). */
export class InconsistentLogStateError extends KRaftError {
  constructor(message: string) {
    super('INCONSISTENT_LOG_STATE', message);
  }
}

/** A configuration value outside its allowed range, or a malformed metadata file: one class for all packages. */
export { InvalidConfigurationError } from '@kraft/protocol';

/**
 * Another holder has the lock of a log directory: another process, or another log opened on the
 * same directory in this process. Kafka refuses to start with the same words.
 */
export class LogDirectoryLockedError extends KRaftError {
  readonly directory: string;

  constructor(directory: string, lockFileName: string) {
    super(
      'LOG_DIRECTORY_LOCKED',
      `Failed to acquire lock on file ${lockFileName} in ${directory}. A Kafka instance in another process or thread is using this directory.`,
    );
    this.directory = directory;
  }
}
