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
  exists(path: string): boolean;
  /** Names (not paths) in `directory`, sorted. */
  list(directory: string): string[];
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

export interface OpenOptions {
  create?: boolean;
  readOnly?: boolean;
}

export interface FileHandle {
  readonly path: string;
  /** Reads up to `length` bytes at `position` into `target[targetOffset..]`; returns the count. */
  read(target: Uint8Array, targetOffset: number, length: number, position: number): number;
  /** Writes all of `source` at `position`. */
  write(source: Uint8Array, position: number): void;
  size(): number;
  truncate(size: number): void;
  /** fdatasync. */
  sync(): void;
  /** fdatasync without blocking the event loop. */
  syncAsync(): Promise<void>;
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
