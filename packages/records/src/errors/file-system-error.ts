import { KRaftError } from '@kraft/protocol';

/**
 * An IO failure from the file port, with the POSIX code (`ENOENT`, `EIO`, `ENOSPC`, ...) as its
 * `code`, the same from node:fs and from the in-memory file system.
 */
export class FileSystemError extends KRaftError {
  readonly path: string;

  constructor(code: string, operation: string, path: string, options?: { cause?: unknown }) {
    super(code, `${code}: ${operation} '${path}'`, options);
    this.path = path;
  }

  /** Converts a node:fs error, keeping its errno code. */
  static fromNode(error: unknown, operation: string, path: string): FileSystemError {
    const code =
      typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
        ? error.code
        : 'EIO';
    return new FileSystemError(code, operation, path, { cause: error });
  }
}
