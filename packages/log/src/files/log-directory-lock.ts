import type { FileLock, FileSystem } from '@kraft/records';
import { LogDirectoryLockedError } from '../errors/log-errors.js';
import { joinPath } from './atomic-file.js';

/** Kafka's lock file in every log directory (`LogManager.LockFileName`). */
export const LOCK_FILE = '.lock';

/**
 * The exclusive lock on a log directory, held for the life of the process (Kafka's `.lock`). Two
 * servers on one directory would both win elections and overwrite each other's committed
 * offsets; the second is refused before it reads anything. It is an OS lock through the
 * `FileSystem` port, so a killed process leaves nothing stale behind (docs/adr/0012).
 */
export class LogDirectoryLock {
  private constructor(
    readonly directory: string,
    private readonly fileLock: FileLock,
  ) {}

  /**
   * Creates `directory` if needed and locks `<directory>/.lock`; a `LogDirectoryLockedError`
   * naming the directory when another holder has it.
   */
  static acquire(fileSystem: FileSystem, directory: string): LogDirectoryLock {
    fileSystem.mkdir(directory);
    const fileLock = fileSystem.tryLockFile(joinPath(directory, LOCK_FILE));
    if (fileLock === undefined) throw new LogDirectoryLockedError(directory, LOCK_FILE);
    return new LogDirectoryLock(directory, fileLock);
  }

  /** Whether this lock is for `directory` (trailing slashes aside). */
  isFor(directory: string): boolean {
    return withoutTrailingSlashes(this.directory) === withoutTrailingSlashes(directory);
  }

  /** False once released, or (in `MemoryFileSystem`) after a simulated crash ended the process. */
  isHeld(): boolean {
    return this.fileLock.isHeld();
  }

  /** Gives the directory up; a second call does nothing. The `.lock` file stays, as it is harmless. */
  release(): void {
    this.fileLock.release();
  }
}

function withoutTrailingSlashes(path: string): string {
  return path.length > 1 ? path.replace(/\/+$/, '') : path;
}
