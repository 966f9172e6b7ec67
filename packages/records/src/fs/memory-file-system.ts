import { FileSystemError } from '../errors/file-system-error.js';
import type { FileHandle, FileLock, FileSystem, OpenOptions } from './file-system.js';

/** What a simulated power loss does to bytes written since a file's last sync. */
export type CrashMode = 'drop-unsynced' | 'tear-unsynced' | 'garble-unsynced';

/** How {@link MemoryFileSystem.crash} treats what was written since each file's last sync. */
export interface CrashOptions {
  /**
   * `drop-unsynced` (default) loses every unsynced byte; `tear-unsynced` keeps a random prefix of
   * each file's unsynced append (a torn write); `garble-unsynced` keeps the append but overwrites
   * about one byte in ten with random values. Unsynced overwrites are always rolled back.
   */
  mode?: CrashMode;
  /** A uniform draw in [0, 1): the simulator's seeded generator. Needed for tear and garble. */
  random?: () => number;
}

/**
 * A file operation {@link MemoryFileSystem.injectFault} can make fail once, with a POSIX code,
 * to test how callers handle `EIO`, `ENOSPC` and the like.
 */
export type FaultOperation = 'open' | 'read' | 'write' | 'truncate' | 'sync' | 'rename' | 'unlink';

interface PendingFault {
  operation: FaultOperation;
  pathIncludes: string;
  code: string;
}

/** Saved bytes of the durable region that a write or truncate is about to change. */
interface UndoEntry {
  position: number;
  bytes: Buffer;
}

class Inode {
  data: Buffer = Buffer.alloc(0);
  size = 0;
  /** Size as of the last sync: what survives a crash, together with the undo journal. */
  durableSize = 0;
  private undo: UndoEntry[] = [];

  private saveDurable(from: number, to: number): void {
    const end = Math.min(to, this.durableSize, this.size);
    if (from < end) this.undo.push({ position: from, bytes: Buffer.from(this.data.subarray(from, end)) });
  }

  private reserve(size: number): void {
    if (size <= this.data.length) return;
    const grown = Buffer.alloc(Math.max(size, this.data.length * 2, 4096));
    this.data.copy(grown, 0, 0, this.size);
    this.data = grown;
  }

  write(source: Uint8Array, position: number): void {
    this.saveDurable(position, position + source.length);
    this.reserve(position + source.length);
    if (position > this.size) this.data.fill(0, this.size, position);
    this.data.set(source, position);
    this.size = Math.max(this.size, position + source.length);
  }

  truncate(size: number): void {
    if (size < this.size) {
      this.saveDurable(size, this.size);
    } else {
      this.reserve(size);
      this.data.fill(0, this.size, size);
    }
    this.size = size;
  }

  sync(): void {
    this.durableSize = this.size;
    this.undo = [];
  }

  /** Rolls back to the last sync, then applies `mode` to the bytes appended after it. */
  crash(mode: CrashMode, random: () => number): void {
    const appendedEnd = this.size;
    const appended =
      appendedEnd > this.durableSize ? Buffer.from(this.data.subarray(this.durableSize, appendedEnd)) : null;
    this.reserve(this.durableSize);
    for (let index = this.undo.length - 1; index >= 0; index -= 1) {
      const entry = this.undo[index] as UndoEntry;
      entry.bytes.copy(this.data, entry.position);
    }
    this.undo = [];
    this.size = this.durableSize;
    if (appended === null || mode === 'drop-unsynced') return;
    const kept = mode === 'tear-unsynced' ? Math.floor(random() * (appended.length + 1)) : appended.length;
    const tail = appended.subarray(0, kept);
    if (mode === 'garble-unsynced') {
      for (let index = 0; index < tail.length; index += 1) {
        if (random() < 0.1) tail[index] = Math.floor(random() * 256);
      }
    }
    this.write(tail, this.durableSize);
    this.sync();
  }
}

function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
}

/** `parentOf(path) === directory` without slicing a string (called per file on every sync). */
function isEntryOf(path: string, directory: string): boolean {
  const slash = path.lastIndexOf('/');
  if (slash <= 0) return directory === '/';
  return slash === directory.length && path.startsWith(directory);
}

/**
 * An in-memory file system that behaves like a disk under power loss: file contents survive a
 * `crash()` only up to their last `sync()`, and directory entries (creations, renames, removals)
 * only once their directory was synced. Directories themselves are durable on `mkdir`.
 * Faults can be injected per operation. All state is deterministic; randomness is passed in.
 */
export class MemoryFileSystem implements FileSystem {
  private live = new Map<string, Inode>();
  private durable = new Map<string, Inode>();
  private readonly directories = new Set<string>(['/']);
  private faults: PendingFault[] = [];
  /** Held file locks by path; a crash (the process dies) drops them all, as the OS would. */
  private readonly locks = new Map<string, MemoryFileLock>();
  /** Bumped on crash: handles opened before it fail, as a dead process's descriptors would. */
  private generation = 0;
  syncCount = 0;

  /** The next `operation` on a path containing `pathIncludes` fails with `code`. */
  injectFault(operation: FaultOperation, options: { pathIncludes?: string; code?: string } = {}): void {
    this.faults.push({ operation, pathIncludes: options.pathIncludes ?? '', code: options.code ?? 'EIO' });
  }

  /** @internal used by handles */
  checkFault(operation: FaultOperation, path: string): void {
    const index = this.faults.findIndex(
      (fault) => fault.operation === operation && path.includes(fault.pathIncludes),
    );
    if (index === -1) return;
    const [fault] = this.faults.splice(index, 1);
    throw new FileSystemError((fault as PendingFault).code, operation, path);
  }

  /** @internal used by handles */
  isCurrent(generation: number): boolean {
    return generation === this.generation;
  }

  /** Simulated power loss: every unsynced byte and unsynced directory entry is lost (or torn). */
  crash(options: CrashOptions = {}): void {
    const mode = options.mode ?? 'drop-unsynced';
    const random = options.random ?? (() => 0.5);
    const survivors = new Set(this.durable.values());
    for (const inode of survivors) inode.crash(mode, random);
    this.live = new Map(this.durable);
    this.generation += 1;
    this.faults = [];
    this.locks.clear();
  }

  open(path: string, options: OpenOptions = {}): FileHandle {
    this.checkFault('open', path);
    let inode = this.live.get(path);
    if (inode === undefined) {
      if (!options.create || options.readOnly) throw new FileSystemError('ENOENT', 'open', path);
      if (!this.directories.has(parentOf(path))) throw new FileSystemError('ENOENT', 'open', path);
      inode = new Inode();
      this.live.set(path, inode);
    }
    return new MemoryFileHandle(this, path, inode, options.readOnly ?? false, this.generation);
  }

  exists(path: string): boolean {
    return this.live.has(path) || this.directories.has(path);
  }

  list(directory: string): string[] {
    if (!this.directories.has(directory)) throw new FileSystemError('ENOENT', 'readdir', directory);
    const prefix = directory.endsWith('/') ? directory : `${directory}/`;
    const names = new Set<string>();
    for (const path of [...this.live.keys(), ...this.directories]) {
      if (!path.startsWith(prefix) || path === directory) continue;
      const name = path.slice(prefix.length).split('/')[0];
      if (name) names.add(name);
    }
    return [...names].sort();
  }

  mkdir(directory: string): void {
    let current = '';
    for (const part of directory.split('/').filter((segment) => segment !== '')) {
      current = `${current}/${part}`;
      this.directories.add(current);
    }
  }

  rename(from: string, to: string): void {
    this.checkFault('rename', from);
    const inode = this.live.get(from);
    if (inode === undefined) throw new FileSystemError('ENOENT', 'rename', from);
    this.live.delete(from);
    this.live.set(to, inode);
  }

  unlink(path: string): void {
    this.checkFault('unlink', path);
    this.live.delete(path);
  }

  removeDirectory(directory: string): void {
    const prefix = `${directory}/`;
    for (const path of [...this.live.keys()]) if (path.startsWith(prefix)) this.live.delete(path);
    for (const path of [...this.durable.keys()]) if (path.startsWith(prefix)) this.durable.delete(path);
    for (const path of [...this.directories]) {
      if (path === directory || path.startsWith(prefix)) this.directories.delete(path);
    }
  }

  async syncDirectoryAsync(directory: string): Promise<void> {
    this.syncDirectory(directory);
  }

  syncDirectory(directory: string): void {
    this.checkFault('sync', directory);
    // Deleting the entry being visited is safe while iterating a Map.
    for (const path of this.durable.keys()) {
      if (isEntryOf(path, directory) && !this.live.has(path)) this.durable.delete(path);
    }
    for (const [path, inode] of this.live) {
      if (isEntryOf(path, directory)) this.durable.set(path, inode);
    }
  }

  tryLockFile(path: string): FileLock | undefined {
    if (this.locks.has(path)) return undefined;
    this.open(path, { create: true }).close();
    const lock: MemoryFileLock = new MemoryFileLock(
      path,
      () => this.locks.get(path) === lock,
      () => this.locks.delete(path),
    );
    this.locks.set(path, lock);
    return lock;
  }

  /** The current bytes of a file (a copy), for assertions in tests. */
  readFile(path: string): Buffer {
    const inode = this.live.get(path);
    if (inode === undefined) throw new FileSystemError('ENOENT', 'read', path);
    return Buffer.from(inode.data.subarray(0, inode.size));
  }
}

class MemoryFileHandle implements FileHandle {
  readonly path: string;
  private closed = false;

  constructor(
    private readonly fileSystem: MemoryFileSystem,
    path: string,
    private readonly inode: Inode,
    private readonly readOnly: boolean,
    private readonly generation: number,
  ) {
    this.path = path;
  }

  private check(operation: FaultOperation): void {
    if (this.closed || !this.fileSystem.isCurrent(this.generation)) {
      throw new FileSystemError('EBADF', operation, this.path);
    }
    this.fileSystem.checkFault(operation, this.path);
  }

  read(target: Uint8Array, targetOffset: number, length: number, position: number): number {
    this.check('read');
    const count = Math.max(0, Math.min(length, this.inode.size - position));
    if (count > 0) target.set(this.inode.data.subarray(position, position + count), targetOffset);
    return count;
  }

  write(source: Uint8Array, position: number): void {
    this.check('write');
    if (this.readOnly) throw new FileSystemError('EBADF', 'write', this.path);
    this.inode.write(source, position);
  }

  size(): number {
    // A stale handle must not report the size of a file it no longer has (as after a crash).
    if (this.closed || !this.fileSystem.isCurrent(this.generation)) {
      throw new FileSystemError('EBADF', 'stat', this.path);
    }
    return this.inode.size;
  }

  truncate(size: number): void {
    this.check('truncate');
    if (this.readOnly) throw new FileSystemError('EBADF', 'truncate', this.path);
    this.inode.truncate(size);
  }

  sync(): void {
    this.check('sync');
    this.fileSystem.syncCount += 1;
    this.inode.sync();
  }

  syncAsync(): Promise<void> {
    try {
      this.sync();
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  close(): void {
    this.closed = true;
  }
}

class MemoryFileLock implements FileLock {
  constructor(
    readonly path: string,
    /** Whether the file system still records this lock (a crash or a release ends that). */
    private readonly isCurrent: () => boolean,
    private readonly forget: () => void,
  ) {}

  isHeld(): boolean {
    return this.isCurrent();
  }

  release(): void {
    // After a crash the path may be locked by the next incarnation: leave that lock alone.
    if (this.isCurrent()) this.forget();
  }
}
