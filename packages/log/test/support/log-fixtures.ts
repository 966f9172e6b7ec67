import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@kraft/protocol';
import {
  type FileHandle,
  type FileLock,
  type FileSystem,
  FileSystemError,
  MemoryFileSystem,
  type MemoryRecords,
  MemoryRecordsBuilder,
  NodeFileSystem,
  type OpenOptions,
  type Records,
  RecordsIterator,
} from '@kraft/records';
import { LogConfig, type LogConfigOptions } from '../../src/config/log-config.js';
import { RaftLog, type RaftLogOpenOptions } from '../../src/raft-log.js';

/** The clock the fixtures give the log: the batches' timestamp, so no segment rolls by age. */
export const TEST_NOW_MS = 1_700_000_000_000;

/** Small segments and a dense index so tests roll and index often. */
export function testConfig(options: LogConfigOptions = {}): LogConfig {
  return new LogConfig({
    internalSegmentBytes: 2048,
    indexIntervalBytes: 128,
    segmentIndexBytes: 4096,
    ...options,
  });
}

/** One data batch of `count` records whose values are `<prefix>-<i>`. */
export function dataBatch(
  options: {
    baseOffset?: number;
    epoch?: number;
    count?: number;
    valueBytes?: number;
    timestamp?: number;
    prefix?: string;
  } = {},
): MemoryRecords {
  const builder = new MemoryRecordsBuilder({
    baseOffset: options.baseOffset ?? 0,
    partitionLeaderEpoch: options.epoch ?? 0,
  });
  const count = options.count ?? 1;
  for (let index = 0; index < count; index += 1) {
    const text = `${options.prefix ?? 'v'}-${index}`;
    const value = Buffer.alloc(Math.max(options.valueBytes ?? 0, text.length), 0x61);
    value.write(text);
    builder.append({ timestamp: options.timestamp ?? 1_700_000_000_000, value });
  }
  return builder.build();
}

export interface BatchSummary {
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly epoch: number;
  readonly values: string[];
}

/** Decodes every complete batch (CRC-checked) with RecordsIterator's defaults. */
export function readBatches(records: Records): BatchSummary[] {
  const result: BatchSummary[] = [];
  for (const batch of new RecordsIterator(records)) {
    result.push({
      baseOffset: batch.baseOffset,
      lastOffset: batch.lastOffset,
      epoch: batch.epoch,
      values: batch.records.map((record) =>
        record.value === null ? '' : record.value.toString('utf8').replace(/a+$/, ''),
      ),
    });
  }
  return result;
}

/** Every batch from `from` to the end (`isolation`), read the way raft does: one read per step. */
export function readAll(
  log: RaftLog,
  isolation: 'committed' | 'uncommitted',
  from = log.startOffset(),
): BatchSummary[] {
  const result: BatchSummary[] = [];
  let offset = from;
  const end = isolation === 'committed' ? log.highWatermark() : log.endOffset();
  while (offset < end) {
    const batches = readBatches(log.read(offset, isolation).records);
    if (batches.length === 0) throw new Error(`no batch returned at ${offset} (end ${end})`);
    result.push(...batches);
    offset = (batches[batches.length - 1] as BatchSummary).lastOffset + 1;
  }
  return result;
}

export interface FileSystemFixture {
  readonly name: string;
  readonly fileSystem: FileSystem;
  readonly dir: string;
  open(options?: Partial<RaftLogOpenOptions>): RaftLog;
  cleanup(): void;
}

export function memoryFixture(): FileSystemFixture & { fileSystem: MemoryFileSystem } {
  const fileSystem = new MemoryFileSystem();
  const dir = '/data/metadata';
  fileSystem.mkdir(dir);
  return {
    name: 'MemoryFileSystem',
    fileSystem,
    dir,
    open: (options = {}) =>
      RaftLog.open({ dir, fileSystem, config: testConfig(), time: () => TEST_NOW_MS, ...options }),
    cleanup: () => {},
  };
}

export function nodeFixture(): FileSystemFixture {
  const dir = mkdtempSync(join(tmpdir(), 'kraft-log-'));
  const fileSystem = new NodeFileSystem();
  return {
    name: 'NodeFileSystem',
    fileSystem,
    dir,
    open: (options = {}) =>
      RaftLog.open({ dir, fileSystem, config: testConfig(), time: () => TEST_NOW_MS, ...options }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A seeded xorshift generator for loops that must be reproducible. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 0x9e3779b9;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 2 ** 32;
  };
}

/** Every file under `directory` (one level of subdirectories), after a crash made all state durable. */
export function captureFiles(fileSystem: MemoryFileSystem, directory: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const visit = (path: string): void => {
    for (const name of fileSystem.list(path)) {
      const child = `${path}/${name}`;
      try {
        files.set(child, fileSystem.readFile(child));
      } catch {
        visit(child);
      }
    }
  };
  visit(directory);
  return files;
}

/** A fresh in-memory file system holding `files`, all durable. */
export function materialize(files: ReadonlyMap<string, Buffer>): MemoryFileSystem {
  const fileSystem = new MemoryFileSystem();
  const directories = new Set<string>();
  for (const [path, bytes] of files) {
    const directory = path.slice(0, path.lastIndexOf('/'));
    fileSystem.mkdir(directory);
    directories.add(directory);
    const handle = fileSystem.open(path, { create: true });
    handle.write(bytes, 0);
    handle.sync();
    handle.close();
  }
  for (const directory of directories) fileSystem.syncDirectory(directory);
  return fileSystem;
}

/**
 * A FileSystem that fails the `failAt`-th mutating call (create, write, truncate, sync, rename,
 * unlink, directory sync) with EIO: with a crash afterwards it puts a power loss at every step of
 * an operation.
 */
export class FailingFileSystem implements FileSystem {
  mutations = 0;

  /**
   * `asyncSyncs: 'next-turn'` makes each `syncAsync` take effect only on a later event-loop turn,
   * as a real fdatasync on the thread pool does: work done before awaiting it is not covered.
   */
  constructor(
    private readonly inner: FileSystem,
    private readonly failAt: number,
    readonly asyncSyncs: 'immediate' | 'next-turn' = 'immediate',
  ) {}

  /** Resolves when an asynchronous sync issued now may run. */
  syncTurn(): Promise<void> {
    if (this.asyncSyncs === 'immediate') return Promise.resolve();
    return new Promise((resolve) => setImmediate(resolve));
  }

  mutate(operation: string, path: string): void {
    this.mutations += 1;
    if (this.mutations === this.failAt) throw new FileSystemError('EIO', operation, path);
  }

  open(path: string, options?: OpenOptions): FileHandle {
    if (options?.create === true && !this.inner.exists(path)) this.mutate('open', path);
    return new FailingFileHandle(this, this.inner.open(path, options));
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
    this.mutate('rename', from);
    this.inner.rename(from, to);
  }

  unlink(path: string): void {
    this.mutate('unlink', path);
    this.inner.unlink(path);
  }

  removeDirectory(directory: string): void {
    this.mutate('rmdir', directory);
    this.inner.removeDirectory(directory);
  }

  syncDirectory(directory: string): void {
    this.mutate('syncDirectory', directory);
    this.inner.syncDirectory(directory);
  }

  syncDirectoryAsync(directory: string): Promise<void> {
    try {
      this.mutate('syncDirectory', directory);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.syncTurn().then(() => this.inner.syncDirectoryAsync(directory));
  }

  /** A lock changes no stored bytes: not a mutation, never a failure point. */
  tryLockFile(path: string): FileLock | undefined {
    return this.inner.tryLockFile(path);
  }
}

class FailingFileHandle implements FileHandle {
  constructor(
    private readonly fileSystem: FailingFileSystem,
    private readonly inner: FileHandle,
  ) {}

  get path(): string {
    return this.inner.path;
  }

  read(target: Uint8Array, targetOffset: number, length: number, position: number): number {
    return this.inner.read(target, targetOffset, length, position);
  }

  write(source: Uint8Array, position: number): void {
    this.fileSystem.mutate('write', this.inner.path);
    this.inner.write(source, position);
  }

  size(): number {
    return this.inner.size();
  }

  truncate(size: number): void {
    this.fileSystem.mutate('truncate', this.inner.path);
    this.inner.truncate(size);
  }

  sync(): void {
    this.fileSystem.mutate('sync', this.inner.path);
    this.inner.sync();
  }

  syncAsync(): Promise<void> {
    try {
      this.fileSystem.mutate('sync', this.inner.path);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.fileSystem.syncTurn().then(() => this.inner.syncAsync());
  }

  close(): void {
    this.inner.close();
  }
}

/**
 * A FailingFileSystem that runs a hook once an asynchronous sync has started on a file whose path
 * ends with a given suffix, before its caller resumes: it puts work (a truncation, a snapshot
 * install) inside the await of a flush.
 */
export class SyncHookFileSystem extends FailingFileSystem {
  private readonly hooks: Array<{ readonly pathEnd: string; readonly hook: () => void }> = [];
  private readonly slowSyncs: Array<{ readonly pathEnd: string; readonly extraTurns: number }> = [];

  constructor(
    inner: FileSystem,
    failAt = Number.POSITIVE_INFINITY,
    asyncSyncs: 'immediate' | 'next-turn' = 'immediate',
  ) {
    super(inner, failAt, asyncSyncs);
  }

  /** Runs `hook` at the next `syncAsync` on a file whose path ends with `pathEnd`. */
  onNextSyncAsync(pathEnd: string, hook: () => void): void {
    this.hooks.push({ pathEnd, hook });
  }

  /**
   * Every later `syncAsync` on a file whose path ends with `pathEnd` starts only `extraTurns`
   * event-loop turns after it is called: a sync slower than the others on the thread pool.
   */
  slowSyncsOf(pathEnd: string, extraTurns: number): void {
    this.slowSyncs.push({ pathEnd, extraTurns });
  }

  override open(path: string, options?: OpenOptions): FileHandle {
    const handle = super.open(path, options);
    const extraTurns = this.slowSyncs.find((each) => path.endsWith(each.pathEnd))?.extraTurns ?? 0;
    const syncAsync = (): Promise<void> => {
      const sync = extraTurns === 0 ? handle.syncAsync() : afterTurns(extraTurns, () => handle.syncAsync());
      const index = this.hooks.findIndex((each) => path.endsWith(each.pathEnd));
      try {
        if (index !== -1) this.hooks.splice(index, 1)[0]?.hook();
      } catch (error) {
        // The hook's failure (a file step it took failed) reaches the sync's caller, once it settled.
        const fail = (): never => {
          throw error;
        };
        return sync.then(fail, fail);
      }
      return sync;
    };
    return Object.assign(Object.create(handle) as FileHandle, { syncAsync });
  }
}

async function afterTurns(turns: number, run: () => Promise<void>): Promise<void> {
  for (let turn = 0; turn < turns; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  return run();
}

/** One call to a {@link recordingLogger}. */
export interface LogLine {
  readonly level: string;
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

/** A Logger that keeps what it is told, to check that a loss is never only a WARN. */
export function recordingLogger(lines: LogLine[], bound: Record<string, unknown> = {}): Logger {
  const at =
    (level: string) =>
    (fields: Record<string, unknown>, message?: string): void => {
      lines.push({ level, fields: { ...bound, ...fields }, message: message ?? '' });
    };
  return {
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    isLevelEnabled: () => true,
    child: (fields: Record<string, unknown>) => recordingLogger(lines, { ...bound, ...fields }),
  } as unknown as Logger;
}
