import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import { FileSystemError } from '../errors/file-system-error.js';
import type { FileHandle, FileLock, FileSystem, OpenOptions } from './file-system.js';

/**
 * The OS lock calls of `fs-native-extensions` (Node has none): on Linux an open-file-description
 * `fcntl` lock over the whole file (F_OFD_SETLK), elsewhere flock(2). Both belong to the open
 * file, so they die with the process. See docs/adr/0012.
 */
interface NativeFileLocks {
  /** True when the exclusive lock was taken, false when another holder has it. */
  tryLock(fd: number): boolean;
  unlock(fd: number): void;
}

const nativeFileLocks = createRequire(import.meta.url)('fs-native-extensions') as NativeFileLocks;

function attempt<T>(operation: string, path: string, body: () => T): T {
  try {
    return body();
  } catch (error) {
    throw FileSystemError.fromNode(error, operation, path);
  }
}

class NodeFileHandle implements FileHandle {
  readonly path: string;
  private readonly fd: number;
  private closed = false;

  constructor(path: string, fd: number) {
    this.path = path;
    this.fd = fd;
  }

  read(target: Uint8Array, targetOffset: number, length: number, position: number): number {
    return attempt('read', this.path, () => {
      let total = 0;
      // readSync may return short counts; loop until `length` or end of file.
      while (total < length) {
        const count = fs.readSync(this.fd, target, targetOffset + total, length - total, position + total);
        if (count === 0) break;
        total += count;
      }
      return total;
    });
  }

  write(source: Uint8Array, position: number): void {
    attempt('write', this.path, () => {
      let written = 0;
      while (written < source.length) {
        written += fs.writeSync(this.fd, source, written, source.length - written, position + written);
      }
    });
  }

  size(): number {
    return attempt('stat', this.path, () => fs.fstatSync(this.fd).size);
  }

  truncate(size: number): void {
    attempt('truncate', this.path, () => fs.ftruncateSync(this.fd, size));
  }

  sync(): void {
    attempt('fdatasync', this.path, () => fs.fdatasyncSync(this.fd));
  }

  syncAsync(): Promise<void> {
    return new Promise((resolve, reject) => {
      fs.fdatasync(this.fd, (error) => {
        if (error) reject(FileSystemError.fromNode(error, 'fdatasync', this.path));
        else resolve();
      });
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    attempt('close', this.path, () => fs.closeSync(this.fd));
  }
}

class NodeFileLock implements FileLock {
  readonly path: string;
  private fd: number | undefined;

  constructor(path: string, fd: number) {
    this.path = path;
    this.fd = fd;
  }

  isHeld(): boolean {
    return this.fd !== undefined;
  }

  release(): void {
    const fd = this.fd;
    if (fd === undefined) return;
    this.fd = undefined;
    // Closing alone would release it too; unlocking first says so, whatever the platform.
    try {
      attempt('unlock', this.path, () => nativeFileLocks.unlock(fd));
    } finally {
      attempt('close', this.path, () => fs.closeSync(fd));
    }
  }
}

/** The file port over node:fs with positional, synchronous reads and writes. */
export class NodeFileSystem implements FileSystem {
  open(path: string, options: OpenOptions = {}): FileHandle {
    const flags = options.readOnly ? 'r' : options.create ? fs.constants.O_RDWR | fs.constants.O_CREAT : 'r+';
    return new NodeFileHandle(
      path,
      attempt('open', path, () => fs.openSync(path, flags, 0o644)),
    );
  }

  exists(path: string): boolean {
    return fs.existsSync(path);
  }

  list(directory: string): string[] {
    return attempt('readdir', directory, () => fs.readdirSync(directory).sort());
  }

  mkdir(directory: string): void {
    attempt('mkdir', directory, () => fs.mkdirSync(directory, { recursive: true }));
  }

  rename(from: string, to: string): void {
    attempt('rename', from, () => fs.renameSync(from, to));
  }

  unlink(path: string): void {
    attempt('unlink', path, () => fs.rmSync(path, { force: true }));
  }

  removeDirectory(directory: string): void {
    attempt('rmdir', directory, () => fs.rmSync(directory, { recursive: true, force: true }));
  }

  tryLockFile(path: string): FileLock | undefined {
    const fd = attempt('open', path, () =>
      fs.openSync(path, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o644),
    );
    let locked = false;
    try {
      locked = attempt('lock', path, () => nativeFileLocks.tryLock(fd));
    } finally {
      if (!locked) fs.closeSync(fd);
    }
    return locked ? new NodeFileLock(path, fd) : undefined;
  }

  syncDirectory(directory: string): void {
    attempt('fsync directory', directory, () => {
      const fd = fs.openSync(directory, 'r');
      try {
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
    });
  }

  async syncDirectoryAsync(directory: string): Promise<void> {
    let handle: fs.promises.FileHandle | undefined;
    try {
      handle = await fs.promises.open(directory, 'r');
      await handle.sync();
    } catch (error) {
      throw FileSystemError.fromNode(error as NodeJS.ErrnoException, 'fsync directory', directory);
    } finally {
      await handle?.close();
    }
  }
}
