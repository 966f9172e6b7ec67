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
