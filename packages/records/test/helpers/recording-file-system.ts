import type { FileHandle, FileLock, FileSystem, OpenOptions } from '../../src/fs/file-system.js';

export interface ReadRange {
  readonly path: string;
  readonly position: number;
  readonly length: number;
}

/** Wraps a FileSystem and records every positional read, so tests can prove what was (not) read. */
export class RecordingFileSystem implements FileSystem {
  readonly reads: ReadRange[] = [];

  constructor(private readonly inner: FileSystem) {}

  open(path: string, options?: OpenOptions): FileHandle {
    const handle = this.inner.open(path, options);
    const reads = this.reads;
    return {
      path: handle.path,
      read(target, targetOffset, length, position) {
        reads.push({ path, position, length });
        return handle.read(target, targetOffset, length, position);
      },
      write: (source, position) => handle.write(source, position),
      size: () => handle.size(),
      truncate: (size) => handle.truncate(size),
      sync: () => handle.sync(),
      syncAsync: () => handle.syncAsync(),
      close: () => handle.close(),
    };
  }

  exists(path: string): boolean {
    return this.inner.exists(path);
  }

  list(directory: string): string[] {
    return this.inner.list(directory);
  }

  mkdir(directory: string): void {
    this.inner.mkdir(directory);
  }

  rename(from: string, to: string): void {
    this.inner.rename(from, to);
  }

  unlink(path: string): void {
    this.inner.unlink(path);
  }

  removeDirectory(directory: string): void {
    this.inner.removeDirectory(directory);
  }

  syncDirectory(directory: string): void {
    this.inner.syncDirectory(directory);
  }

  syncDirectoryAsync(directory: string): Promise<void> {
    return this.inner.syncDirectoryAsync(directory);
  }

  tryLockFile(path: string): FileLock | undefined {
    return this.inner.tryLockFile(path);
  }

  /** The furthest byte any read reached (exclusive). */
  furthestRead(): number {
    return this.reads.reduce((furthest, read) => Math.max(furthest, read.position + read.length), 0);
  }
}
