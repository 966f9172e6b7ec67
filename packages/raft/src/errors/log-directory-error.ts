import { KRaftError } from '@kraft/protocol';

/**
 * A log directory this node must not use as it is: its `meta.properties` belongs to another
 * node, directory or cluster, or cannot be read. The directory is never rewritten.
 */
export class LogDirectoryError extends KRaftError {
  readonly directory: string;

  constructor(directory: string, message: string, options?: { cause?: unknown }) {
    super('INCONSISTENT_LOG_DIRECTORY', `log directory ${directory}: ${message}`, options);
    this.directory = directory;
  }

  /** True for a LogDirectoryError, even one from another copy of the package. */
  static isLogDirectoryError(value: unknown): value is LogDirectoryError {
    return KRaftError.isInstance(value) && value.code === 'INCONSISTENT_LOG_DIRECTORY';
  }
}
