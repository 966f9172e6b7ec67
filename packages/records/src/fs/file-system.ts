/**
 * The file port. Everything kraft stores goes through it, so the same log runs over node:fs in
 * production and over `MemoryFileSystem` (with simulated power loss) in tests and simulation.
 *
 * Reads, writes and truncation are synchronous (they hit the page cache); durability is
 * explicit through `sync()`/`syncAsync()` on files and `syncDirectory()` on directories.
 */
export interface FileSystem {
  /** Opens a file; `create` makes it if absent, `readOnly` refuses writes. */
  open(path: string, options?: OpenOptions): FileHandle;
  /** Whether a file or directory exists at `path`; never throws. */
  exists(path: string): boolean;
  /** Names (not paths) in `directory`, sorted. */
  list(directory: string): string[];
  /**
   * Creates `directory` and any missing parents (`mkdir -p`); an existing directory is not an
   * error. Not durable until the parent's `syncDirectory`.
   *
   * @throws {@link FileSystemError} with the POSIX code when creation fails.
   */
  mkdir(directory: string): void;
  /** Atomically replaces `to` with `from` (POSIX rename). */
  rename(from: string, to: string): void;
  /** Removes a file; a missing file is not an error. */
  unlink(path: string): void;
  /** Removes a directory and everything under it. */
  removeDirectory(directory: string): void;
  /** Makes the directory's entries (creations, renames, removals) durable. */
  syncDirectory(directory: string): void;
  /** The same off the event loop (the election-state write path: nothing in `poll` may block on a sync). */
  syncDirectoryAsync(directory: string): Promise<void>;
  /**
   * Takes an exclusive lock on `path` (creating the file if absent; its parent must exist), or
   * returns undefined when another holder has it: another process, or another lock on the same
   * file in this process. The lock lasts until `release()` or the death of the process (an OS
   * lock, never a pid file), so a crash never leaves a stale lock behind.
   */
  tryLockFile(path: string): FileLock | undefined;
}

/** An exclusive lock held on one file (see `FileSystem.tryLockFile`). */
export interface FileLock {
  readonly path: string;
  /** False after `release()` (and, in MemoryFileSystem, after a simulated crash). */
  isHeld(): boolean;
  /** Gives the lock up; a second call does nothing. The file itself stays. */
  release(): void;
}

/** How {@link FileSystem.open} opens a file; both default to false. */
export interface OpenOptions {
  /** Create the file (empty) when it does not exist; otherwise, or with `readOnly`, a missing file is `ENOENT`. */
  create?: boolean;
  /** Open for reading only: writes, truncation and sync fail. */
  readOnly?: boolean;
}

/**
 * An open file, read and written at explicit positions (pread/pwrite: there is no file cursor).
 * Every method throws {@link FileSystemError} with the POSIX code when the IO fails.
 */
export interface FileHandle {
  readonly path: string;
  /** Reads up to `length` bytes at `position` into `target[targetOffset..]`; returns the count. */
  read(target: Uint8Array, targetOffset: number, length: number, position: number): number;
  /** Writes all of `source` at `position`. */
  write(source: Uint8Array, position: number): void;
  /** The file's current size in bytes, unflushed writes included. */
  size(): number;
  /** Sets the size to `size` bytes: shrinking drops the tail, growing zero-fills. Not durable until `sync()`. */
  truncate(size: number): void;
  /** fdatasync. */
  sync(): void;
  /** fdatasync without blocking the event loop. */
  syncAsync(): Promise<void>;
  /** Releases the descriptor; a second call does nothing. Does not sync. */
  close(): void;
}

/** Every method of `FileSystem`: what an options check asks of a file system a caller passes in. */
export const FILE_SYSTEM_METHODS = [
  'open',
  'exists',
  'list',
  'mkdir',
  'rename',
  'unlink',
  'removeDirectory',
  'syncDirectory',
  'syncDirectoryAsync',
  'tryLockFile',
] as const satisfies readonly (keyof FileSystem)[];
