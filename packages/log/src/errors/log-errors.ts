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
  constructor(message: string, options?: { cause?: unknown }) {
    super('INVALID_REQUEST', message, options);
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

/** Where recovery found the log shorter than its recovery point, and what that loses. */
export interface FlushedDataLoss {
  /** The segment file holding the damage (or the last one, when the log simply ends too early). */
  readonly file: string;
  /** Byte position in `file` where the first invalid batch starts. */
  readonly positionBytes: number;
  readonly damage: string;
  /** The log would end here after cutting the damage: the first offset lost. */
  readonly firstLostOffset: number;
  /** How far the log had been flushed (exclusive); undefined when the checkpoint is unreadable. */
  readonly recoveryPoint: number | undefined;
}

/**
 * Recovery found damage below the recovery point: batches that were flushed, and may have been
 * acknowledged to the quorum, are gone. Cutting them as a torn tail would silently lose committed
 * data, so the log refuses to open (unless told to recover from the quorum or accept the loss).
 */
export class FlushedDataLossError extends KRaftError {
  constructor(readonly loss: FlushedDataLoss) {
    const lost =
      loss.recoveryPoint === undefined
        ? `offsets from ${loss.firstLostOffset} on (the recovery-point checkpoint is unreadable, so they may have been flushed)`
        : `offsets ${loss.firstLostOffset} to ${loss.recoveryPoint - 1}, which were flushed (recovery point ${loss.recoveryPoint})`;
    super(
      'LOG_FLUSHED_DATA_LOST',
      `${loss.file}: ${loss.damage} at byte ${loss.positionBytes}; opening would lose ${lost}. ` +
        'No batch was removed. Repair: restore the log directory from a copy that holds these offsets; ' +
        'or, with other voters to fetch from, reopen with lostFlushedData "recover-from-quorum" ' +
        '(the replica truncates and rejoins as a non-voting observer until it has re-fetched them); ' +
        'or accept the loss explicitly with lostFlushedData "accept-loss"',
    );
  }
}
