import type { FileHandle, FileLock, FileSystem, OpenOptions } from '@kraft/records';

/** When a flush's fdatasync completes: the harness opens the gate after simulated time. */
export interface SyncGate {
  /** Called when a file sync is issued; resolves when it completes. */
  awaitCompletion(): Promise<void>;
}

/**
 * A node's disk as its log sees it, where fdatasync takes simulated time. `syncAsync()` makes
 * the bytes written so far durable at once (what an fdatasync issued now covers, and nothing
 * written later) but completes only when the harness opens the gate of the flush in flight, so
 * polls, appends, truncations and crashes land between a flush's start and its completion.
 * Synchronous syncs (segment roll, close, snapshot freeze) stay immediate, as does everything else.
 */
export class GatedSyncFileSystem implements FileSystem {
  constructor(
    private readonly disk: FileSystem,
    private readonly gate: SyncGate,
  ) {}

  open(path: string, options?: OpenOptions): FileHandle {
    return new GatedSyncFileHandle(this.disk.open(path, options), this.gate);
  }

  exists(path: string): boolean {
    return this.disk.exists(path);
  }

  list(directory: string): string[] {
    return this.disk.list(directory);
  }

  mkdir(directory: string): void {
    this.disk.mkdir(directory);
  }

  rename(from: string, to: string): void {
    this.disk.rename(from, to);
  }

  unlink(path: string): void {
    this.disk.unlink(path);
  }

  removeDirectory(directory: string): void {
    this.disk.removeDirectory(directory);
  }

  syncDirectory(directory: string): void {
    this.disk.syncDirectory(directory);
  }

  syncDirectoryAsync(directory: string): Promise<void> {
    return this.disk.syncDirectoryAsync(directory);
  }

  tryLockFile(path: string): FileLock | undefined {
    return this.disk.tryLockFile(path);
  }
}

class GatedSyncFileHandle implements FileHandle {
  readonly path: string;

  constructor(
    private readonly handle: FileHandle,
    private readonly gate: SyncGate,
  ) {
    this.path = handle.path;
  }

  read(target: Uint8Array, targetOffset: number, length: number, position: number): number {
    return this.handle.read(target, targetOffset, length, position);
  }

  write(source: Uint8Array, position: number): void {
    this.handle.write(source, position);
  }

  size(): number {
    return this.handle.size();
  }

  truncate(size: number): void {
    this.handle.truncate(size);
  }

  sync(): void {
    this.handle.sync();
  }

  async syncAsync(): Promise<void> {
    this.handle.sync();
    await this.gate.awaitCompletion();
  }

  close(): void {
    this.handle.close();
  }
}
