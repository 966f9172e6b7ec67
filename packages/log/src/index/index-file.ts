import type { FileHandle, FileSystem } from '@kraft/records';

/**
 * The file under a sparse index: fixed-size big-endian entries written through at
 * `entries * entrySize`. An active segment's file is preallocated (Kafka: `segment.index.bytes`)
 * and trimmed to its entries on roll or close. Indexes are a cache of the log: they are never
 * fsynced on the append path and are rebuilt from the `.log` whenever they look wrong.
 */
export class IndexFile {
  private handle: FileHandle | undefined;
  private entries: number;
  /** Entries the file can hold before the segment must roll; Infinity when it simply grows. */
  private readonly capacity: number;

  private constructor(
    private readonly fileSystem: FileSystem,
    readonly path: string,
    readonly entrySize: number,
    handle: FileHandle,
    entries: number,
    capacity: number,
  ) {
    this.handle = handle;
    this.entries = entries;
    this.capacity = capacity;
  }

  /** Creates (or empties) the file; preallocates `maxIndexBytes` when asked. */
  static create(
    fileSystem: FileSystem,
    path: string,
    entrySize: number,
    maxIndexBytes: number,
    preallocate: boolean,
  ): IndexFile {
    const handle = fileSystem.open(path, { create: true });
    const capacity = Math.floor(maxIndexBytes / entrySize);
    handle.truncate(preallocate ? capacity * entrySize : 0);
    return new IndexFile(fileSystem, path, entrySize, handle, 0, capacity);
  }

  /** Opens an existing file for the entries it holds; undefined when absent or not whole entries. */
  static open(
    fileSystem: FileSystem,
    path: string,
    entrySize: number,
    maxIndexBytes: number,
  ): { file: IndexFile; bytes: Buffer } | undefined {
    if (!fileSystem.exists(path)) return undefined;
    const handle = fileSystem.open(path, { create: false });
    const size = handle.size();
    // Not whole entries, or larger than an index may grow: rebuilt instead (and never a huge read).
    if (size % entrySize !== 0 || size > Math.max(maxIndexBytes, entrySize)) {
      handle.close();
      return undefined;
    }
    const bytes = Buffer.alloc(size);
    handle.read(bytes, 0, size, 0);
    const entries = size / entrySize;
    const capacity = Math.max(entries, Math.floor(maxIndexBytes / entrySize));
    return { file: new IndexFile(fileSystem, path, entrySize, handle, entries, capacity), bytes };
  }

  entryCount(): number {
    return this.entries;
  }

  isFull(): boolean {
    return this.entries >= this.capacity;
  }

  /** Writes the next entry; the caller has encoded it into `entry` (exactly `entrySize` bytes). */
  appendEntry(entry: Buffer): void {
    this.openHandle().write(entry, this.entries * this.entrySize);
    this.entries += 1;
  }

  /** Keeps the first `entries` entries; the rest of a preallocated file is zeroed lazily by trim. */
  truncateEntries(entries: number): void {
    if (entries >= this.entries) return;
    const handle = this.openHandle();
    // Zero the dropped entries so a later load never sees stale ones past the live count.
    handle.write(Buffer.alloc((this.entries - entries) * this.entrySize), entries * this.entrySize);
    this.entries = entries;
  }

  /** Shrinks a preallocated file to its live entries (on roll and close). */
  trim(): void {
    const handle = this.openHandle();
    if (handle.size() !== this.entries * this.entrySize) handle.truncate(this.entries * this.entrySize);
  }

  flush(): void {
    this.handle?.sync();
  }

  close(): void {
    this.handle?.close();
    this.handle = undefined;
  }

  delete(): void {
    this.close();
    this.fileSystem.unlink(this.path);
  }

  private openHandle(): FileHandle {
    if (this.handle === undefined) this.handle = this.fileSystem.open(this.path, { create: true });
    return this.handle;
  }
}
