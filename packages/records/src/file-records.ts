import { IllegalStateError, invariant } from '@kraft/protocol';
import { INCOMPLETE_HEADER, nextBatchSize } from './batch-framing.js';
import { CorruptRecordError } from './errors/corrupt-record-error.js';
import { IllegalArgumentError } from './errors/illegal-argument-error.js';
import { FileRecordBatch } from './file-record-batch.js';
import type { FileHandle, FileSystem } from './fs/file-system.js';
import { NodeFileSystem } from './fs/node-file-system.js';
import type { MemoryRecords } from './memory-records.js';
import { RecordBatch } from './record-batch.js';
import { MAX_RECORDS_SIZE_BYTES, RECORD_BATCH_OVERHEAD } from './record-batch-layout.js';

/** How {@link FileRecords.open} opens a log file; every field has a default. */
export interface FileRecordsOpenOptions {
  /** Read-write, creating the file if absent (default true); false opens an existing file read-only. */
  readonly mutable?: boolean;
  /**
   * Size to preallocate a new file to (zero-filled). The logical size stays the records written;
   * reopening finds the end by scanning batch headers; `close()` trims the zero tail.
   */
  readonly preallocateBytes?: number;
  /** The file port to open through; default a new `NodeFileSystem` (node:fs). */
  readonly fileSystem?: FileSystem;
}

/** Something `writeTo` can send to: a socket or any writable. `false` means "stop for now" (backpressure). */
export interface RecordsDestination {
  /**
   * Takes one chunk (a fresh buffer, so it may stay queued); returns false when it wants no more
   * for now, as `Writable.write` does, and `writeTo` then stops and reports how far it got.
   */
  write(chunk: Buffer): boolean;
}

/** Where `searchForOffsetWithSize` found the first batch whose last offset reaches the target. */
export interface LogOffsetPosition {
  readonly offset: number;
  /** Absolute file position of the batch. */
  readonly position: number;
  readonly sizeInBytes: number;
}

/** The open file behind a FileRecords and all its slices. */
interface SharedFile {
  readonly fileSystem: FileSystem;
  readonly handle: FileHandle;
  readonly mutable: boolean;
  path: string;
  /** Logical end of the records: never the preallocated zero tail. */
  size: number;
  closed: boolean;
}

/** Bytes per chunk when `writeTo` streams a slice. */
const WRITE_CHUNK_SIZE_BYTES = 64 * 1024;
/** Bytes per read when scanning headers to find the end of a preallocated file. */
const SCAN_CHUNK_SIZE_BYTES = 64 * 1024;

/**
 * Record batches in a file, or a slice of one (Kafka's FileRecords), over the synchronous
 * FileSystem port.
 *
 * THE SLICE RULE (KAFKA-20841): a FileRecords covers `[start, start + sizeInBytes())` of its
 * file and nothing else. `readInto`, `slice`, `writeTo` and `batches` all take their bounds from
 * one helper, `availableBytes`, so nothing past the end of a slice (later batches, a batch being
 * appended, a preallocated zero tail) is ever read.
 */
export class FileRecords {
  private readonly shared: SharedFile;
  /** Absolute file position of the first byte covered. */
  readonly start: number;
  /** Absolute end of a slice (exclusive); unused for the whole file, whose end moves with appends. */
  private readonly end: number;
  readonly isSlice: boolean;

  private constructor(shared: SharedFile, start: number, end: number, isSlice: boolean) {
    this.shared = shared;
    this.start = start;
    this.end = end;
    this.isSlice = isSlice;
  }

  /**
   * Opens the log file at `path` as records covering the whole file. With `preallocateBytes`, a
   * new file is zero-filled to that size and an existing one is scanned batch header by batch
   * header to find where the records end: the end is the first byte that does not start a
   * whole batch, and a last batch whose CRC fails (torn by a crash) is left out.
   *
   * @throws {@link FileSystemError} when the file cannot be opened (`ENOENT` for a missing file
   * opened read-only) or read.
   *
   * @example
   * ```ts
   * const segment = FileRecords.open('/data/__cluster_metadata-0/00000000000000000000.log');
   * segment.append(records);
   * segment.flush();
   * for (const batch of segment.batches()) console.log(batch.baseOffset, batch.position);
   * segment.close();
   * ```
   */
  static open(path: string, options: FileRecordsOpenOptions = {}): FileRecords {
    const fileSystem = options.fileSystem ?? new NodeFileSystem();
    const mutable = options.mutable ?? true;
    const preallocateBytes = options.preallocateBytes ?? 0;
    invariant(
      Number.isSafeInteger(preallocateBytes) &&
        preallocateBytes >= 0 &&
        preallocateBytes <= MAX_RECORDS_SIZE_BYTES,
      () => `invalid preallocateBytes ${preallocateBytes}`,
    );
    const existed = fileSystem.exists(path);
    const handle = fileSystem.open(path, { create: mutable, readOnly: !mutable });
    let size: number;
    try {
      if (!existed && mutable && preallocateBytes > 0) {
        handle.truncate(preallocateBytes);
        size = 0;
      } else if (preallocateBytes > 0) {
        size = scanLogicalEnd(handle, handle.size());
      } else {
        size = handle.size();
      }
    } catch (error) {
      handle.close();
      throw error;
    }
    return new FileRecords({ fileSystem, handle, mutable, path, size, closed: false }, 0, 0, false);
  }

  get path(): string {
    return this.shared.path;
  }

  /**
   * Bytes covered: a slice's fixed length, or the whole file's logical size (which grows with
   * appends and never counts a preallocated zero tail).
   */
  sizeInBytes(): number {
    return this.isSlice ? this.end - this.start : this.shared.size;
  }

  private ensureOpen(): void {
    if (this.shared.closed) throw new IllegalStateError(`FileRecords '${this.shared.path}' is closed`);
  }

  private ensureWritableFile(operation: string): void {
    this.ensureOpen();
    if (this.isSlice) throw new IllegalStateError(`cannot ${operation} a slice of '${this.shared.path}'`);
    if (!this.shared.mutable)
      throw new IllegalStateError(`cannot ${operation} read-only '${this.shared.path}'`);
  }

  /**
   * The one bound shared by `slice`, `readInto` and `writeTo` (Kafka's availableBytes): how many
   * bytes from `position` (relative to this records) may be read when `size` are asked for. The
   * current size is read once, so a concurrent append cannot move the end between checks.
   */
  private availableBytes(position: number, size: number): number {
    const currentSizeInBytes = this.sizeInBytes();
    if (!Number.isSafeInteger(position) || position < 0) {
      throw new IllegalArgumentError(
        `invalid position ${position} in '${this.shared.path}' (size ${currentSizeInBytes})`,
      );
    }
    if (position > currentSizeInBytes) {
      throw new IllegalArgumentError(
        `position ${position} is past the end of '${this.shared.path}' (size ${currentSizeInBytes})`,
      );
    }
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new IllegalArgumentError(`invalid size ${size} in '${this.shared.path}'`);
    }
    return Math.min(size, currentSizeInBytes - position);
  }

  /**
   * A view of `[position, position + size)` of these records, clamped to their current end.
   * Positions of a slice of a slice are relative to the outer slice.
   */
  slice(position: number, size: number): FileRecords {
    this.ensureOpen();
    const available = this.availableBytes(position, size);
    const start = this.start + position;
    return new FileRecords(this.shared, start, start + available, true);
  }

  /**
   * Copies exactly `min(target.length, sizeInBytes() - position)` bytes from `start + position`
   * into `target[0..]` and returns that count. Never reads past the end of these records.
   */
  readInto(target: Uint8Array, position: number): number {
    this.ensureOpen();
    const count = this.availableBytes(position, target.length);
    this.readFully(target, 0, count, this.start + position);
    return count;
  }

  private readFully(target: Uint8Array, targetOffset: number, length: number, filePosition: number): void {
    if (length === 0) return;
    const read = this.shared.handle.read(target, targetOffset, length, filePosition);
    invariant(
      read === length,
      () =>
        `'${this.shared.path}' ended at ${filePosition + read}, inside records that end at ${filePosition + length}`,
    );
  }

  /** Appends the batches of `records` at the end of the file; returns the bytes written. */
  append(records: MemoryRecords): number {
    this.ensureWritableFile('append to');
    const bytes = records.buffer();
    if (bytes.length > MAX_RECORDS_SIZE_BYTES - this.shared.size) {
      throw new IllegalArgumentError(
        `append of ${bytes.length} bytes is too large for '${this.shared.path}' at size ${this.shared.size}`,
      );
    }
    this.shared.handle.write(bytes, this.shared.size);
    this.shared.size += bytes.length;
    return bytes.length;
  }

  /** fdatasync: everything appended so far survives a crash once this returns. */
  flush(): void {
    this.ensureOpen();
    this.shared.handle.sync();
  }

  /** fdatasync off the event loop; a closed file rejects rather than throwing synchronously. */
  flushAsync(): Promise<void> {
    try {
      this.ensureOpen();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.shared.handle.syncAsync();
  }

  /**
   * Truncates the file to `size` bytes (also dropping any preallocated tail); returns the bytes
   * removed. Growing is refused, as in Kafka. With `keepFileBytes` only the logical size moves:
   * nothing past it is read again, and a later `truncateTo(sizeInBytes())` cuts the file itself
   * (a log defers that cut until its recovery point is durably lowered).
   */
  truncateTo(size: number, keepFileBytes = false): number {
    this.ensureWritableFile('truncate');
    const originalSize = this.shared.size;
    if (!Number.isSafeInteger(size) || size < 0 || size > originalSize) {
      throw new IllegalArgumentError(
        `cannot truncate '${this.shared.path}' to ${size} bytes: its size is ${originalSize} bytes`,
      );
    }
    if (!keepFileBytes && size < this.shared.handle.size()) this.shared.handle.truncate(size);
    this.shared.size = size;
    return originalSize - size;
  }

  /** Batches in order (header in memory, body on demand); stops at a trailing partial batch. */
  batches(): IterableIterator<FileRecordBatch> {
    return this.batchesFrom(0);
  }

  private *batchesFrom(startPosition: number): IterableIterator<FileRecordBatch> {
    this.ensureOpen();
    const size = this.sizeInBytes();
    const loader = (filePosition: number, batchSize: number): Buffer => {
      this.ensureOpen();
      const bytes = Buffer.allocUnsafe(batchSize);
      this.readFully(bytes, 0, batchSize, filePosition);
      return bytes;
    };
    let position = startPosition;
    while (size - position >= RECORD_BATCH_OVERHEAD) {
      const header = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD);
      this.readFully(header, 0, RECORD_BATCH_OVERHEAD, this.start + position);
      const batchSize = nextBatchSize(header, 0, RECORD_BATCH_OVERHEAD, this.start + position);
      if (batchSize === INCOMPLETE_HEADER || batchSize > size - position) return;
      yield new FileRecordBatch(header, this.start + position, loader);
      position += batchSize;
    }
  }

  /**
   * The first batch at or after `startingPosition` (relative to these records) whose last offset
   * is at least `targetOffset`, or undefined.
   */
  searchForOffsetWithSize(targetOffset: number, startingPosition: number): LogOffsetPosition | undefined {
    this.availableBytes(startingPosition, 0);
    for (const batch of this.batchesFrom(startingPosition)) {
      const lastOffset = batch.lastOffset;
      if (lastOffset >= targetOffset) {
        return { offset: lastOffset, position: batch.position, sizeInBytes: batch.sizeInBytes };
      }
    }
    return undefined;
  }

  /**
   * Sends `[position, position + length)` (relative, clamped to the end like `slice`) to
   * `destination` in chunks of at most 64 KiB, so memory stays bounded whatever the length.
   * Stops early after a chunk the destination refused more of (backpressure) and returns the
   * bytes written; call again from `position + written` once it drains.
   */
  writeTo(destination: RecordsDestination, position: number, length: number): number {
    this.ensureOpen();
    const count = this.availableBytes(position, length);
    let written = 0;
    while (written < count) {
      const chunkSize = Math.min(WRITE_CHUNK_SIZE_BYTES, count - written);
      // A fresh buffer per chunk: the destination may keep it queued after write() returns.
      const chunk = Buffer.allocUnsafe(chunkSize);
      this.readFully(chunk, 0, chunkSize, this.start + position + written);
      written += chunkSize;
      if (!destination.write(chunk)) break;
    }
    return written;
  }

  /**
   * Closes the file: a writable file is first trimmed to its records (dropping a preallocated
   * tail) and synced. Closing a slice does nothing: slices share their file's handle.
   */
  close(): void {
    if (this.isSlice || this.shared.closed) return;
    if (this.shared.mutable) {
      if (this.shared.handle.size() > this.shared.size) this.shared.handle.truncate(this.shared.size);
      this.shared.handle.sync();
    }
    this.shared.closed = true;
    this.shared.handle.close();
  }

  /** Closes (without trimming) and removes the file; returns whether it existed. */
  deleteIfExists(): boolean {
    invariant(!this.isSlice, () => `cannot delete through a slice of '${this.shared.path}'`);
    if (!this.shared.closed) {
      this.shared.closed = true;
      this.shared.handle.close();
    }
    const existed = this.shared.fileSystem.exists(this.shared.path);
    this.shared.fileSystem.unlink(this.shared.path);
    return existed;
  }

  /** Renames the file; the handle stays open. Syncing the directory is the caller's job. */
  renameTo(path: string): void {
    this.shared.fileSystem.rename(this.shared.path, path);
    this.shared.path = path;
  }

  /** The path, start position and size, for logs and error messages. */
  toString(): string {
    return `FileRecords(path=${this.shared.path}, start=${this.start}, size=${this.sizeInBytes()})`;
  }
}

/**
 * The end of the records in a preallocated file: the first position where no complete batch
 * header follows (zero tail, torn header, garbage), reading headers in 64 KiB chunks. The last
 * batch found is also CRC-checked, since a crash during the last append can leave an intact
 * header over a torn body; checking every batch is the log's recovery, not this scan's.
 */
function scanLogicalEnd(handle: FileHandle, physicalSize: number): number {
  const chunk = Buffer.allocUnsafe(SCAN_CHUNK_SIZE_BYTES);
  let chunkStart = 0;
  let chunkLength = 0;
  let position = 0;
  let lastBatchStart = -1;
  while (physicalSize - position >= RECORD_BATCH_OVERHEAD) {
    if (position + RECORD_BATCH_OVERHEAD > chunkStart + chunkLength) {
      chunkStart = position;
      chunkLength = handle.read(chunk, 0, Math.min(SCAN_CHUNK_SIZE_BYTES, physicalSize - position), position);
      if (chunkLength < RECORD_BATCH_OVERHEAD) break;
    }
    const size = batchSizeOrZero(chunk, position - chunkStart, chunkLength);
    if (size === 0 || size > physicalSize - position) break;
    lastBatchStart = position;
    position += size;
  }
  if (lastBatchStart >= 0 && !isIntactBatch(handle, lastBatchStart, position - lastBatchStart))
    return lastBatchStart;
  return position;
}

function isIntactBatch(handle: FileHandle, position: number, size: number): boolean {
  const bytes = Buffer.allocUnsafe(size);
  return handle.read(bytes, 0, size, position) === size && new RecordBatch(bytes, position).isValid();
}

function batchSizeOrZero(chunk: Buffer, offset: number, chunkLength: number): number {
  try {
    const size = nextBatchSize(chunk, offset, chunkLength, 0);
    return size === INCOMPLETE_HEADER ? 0 : size;
  } catch (error) {
    // A zero tail or torn header is where the records end, not an error here.
    if (CorruptRecordError.isCorruptRecordError(error)) return 0;
    throw error;
  }
}
