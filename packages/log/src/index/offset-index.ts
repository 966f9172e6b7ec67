import type { FileSystem } from '@kraft/records';
import { IndexFile } from './index-file.js';

/** `.index` entry: int32 offset relative to the segment's base offset, int32 byte position. */
const ENTRY_SIZE = 8;
const INITIAL_CAPACITY = 64;

/**
 * A segment's sparse offset index (Kafka `OffsetIndex`): one entry per `index.interval.bytes` of
 * log, mapping a batch's last offset to the byte position where that batch starts. Lookups binary
 * search an in-memory copy; the file is written through for Kafka's tools and fast clean restarts.
 */
export class OffsetIndex {
  private relativeOffsets = new Int32Array(INITIAL_CAPACITY);
  private positions = new Int32Array(INITIAL_CAPACITY);
  private count = 0;
  /**
   * Entries read from disk are checked against the log once, when first used (see
   * LogSegment.translateOffset); entries this process appended are right by construction.
   */
  private unverified: Uint8Array | undefined;
  private readonly entry = Buffer.alloc(ENTRY_SIZE);

  private constructor(
    readonly baseOffset: number,
    private readonly file: IndexFile,
  ) {}

  /**
   * Starts an empty offset index for the segment at `baseOffset`, truncating any file at `path`.
   * It holds at most `maxIndexBytes / 8` entries (`segment.index.bytes`), and the file is
   * sized to that up front when `preallocate` is set.
   *
   * @throws FileSystemError when the file cannot be created or sized.
   */
  static create(
    fileSystem: FileSystem,
    path: string,
    baseOffset: number,
    maxIndexBytes: number,
    preallocate: boolean,
  ): OffsetIndex {
    return new OffsetIndex(
      baseOffset,
      IndexFile.create(fileSystem, path, ENTRY_SIZE, maxIndexBytes, preallocate),
    );
  }

  /**
   * Loads an index written earlier. Returns undefined when the file is missing or fails the sanity
   * checks (strictly increasing offsets and positions, positions inside the segment), so the caller
   * rebuilds it from the log.
   */
  static load(
    fileSystem: FileSystem,
    path: string,
    baseOffset: number,
    maxIndexBytes: number,
    segmentSizeInBytes: number,
  ): OffsetIndex | undefined {
    const opened = IndexFile.open(fileSystem, path, ENTRY_SIZE, maxIndexBytes);
    if (opened === undefined) return undefined;
    const index = new OffsetIndex(baseOffset, opened.file);
    const entries = opened.bytes.length / ENTRY_SIZE;
    index.reserve(entries);
    for (let entry = 0; entry < entries; entry += 1) {
      const relativeOffset = opened.bytes.readInt32BE(entry * ENTRY_SIZE);
      const position = opened.bytes.readInt32BE(entry * ENTRY_SIZE + 4);
      const previous = entry === 0 ? -1 : (index.relativeOffsets[entry - 1] as number);
      const previousPosition = entry === 0 ? -1 : (index.positions[entry - 1] as number);
      if (relativeOffset <= previous || position <= previousPosition || position >= segmentSizeInBytes) {
        opened.file.close();
        return undefined;
      }
      index.relativeOffsets[entry] = relativeOffset;
      index.positions[entry] = position;
    }
    index.count = entries;
    index.unverified = new Uint8Array(entries).fill(1);
    return index;
  }

  /** Entries held: one per `index.interval.bytes` of log appended to the segment. */
  entryCount(): number {
    return this.count;
  }

  /** Whether `maxIndexBytes` is reached: the segment must roll before its next append. */
  isFull(): boolean {
    return this.file.isFull();
  }

  /** The last indexed offset, or the base offset when empty. */
  lastOffset(): number {
    return this.count === 0
      ? this.baseOffset
      : this.baseOffset + (this.relativeOffsets[this.count - 1] as number);
  }

  /** Adds an entry; `offset` and `position` must exceed the last entry's. */
  append(offset: number, position: number): void {
    const relativeOffset = offset - this.baseOffset;
    if (this.count > 0 && relativeOffset <= (this.relativeOffsets[this.count - 1] as number)) return;
    this.reserve(this.count + 1);
    this.relativeOffsets[this.count] = relativeOffset;
    this.positions[this.count] = position;
    this.count += 1;
    this.entry.writeInt32BE(relativeOffset, 0);
    this.entry.writeInt32BE(position, 4);
    this.file.appendEntry(this.entry);
  }

  /**
   * The last entry whose offset is at most `offset` (its batch holds `offset` or ends before it):
   * where to start scanning. Undefined when no entry qualifies (scan from the segment start).
   */
  lookupEntry(
    offset: number,
  ): { offset: number; position: number; verified: boolean; entry: number } | undefined {
    const relativeOffset = offset - this.baseOffset;
    let low = 0;
    let high = this.count - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if ((this.relativeOffsets[middle] as number) <= relativeOffset) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    if (found === -1) return undefined;
    return {
      offset: this.baseOffset + (this.relativeOffsets[found] as number),
      position: this.positions[found] as number,
      verified: this.unverified === undefined || this.unverified[found] !== 1,
      entry: found,
    };
  }

  /** Records that entry `entry` was checked against the log. */
  markVerified(entry: number): void {
    if (this.unverified !== undefined && entry < this.unverified.length) this.unverified[entry] = 0;
  }

  /** The position `lookupEntry` gives, or 0. */
  lookup(offset: number): number {
    return this.lookupEntry(offset)?.position ?? 0;
  }

  /** Drops the entries for offsets at or above `offset` (after the log was truncated there). */
  truncateTo(offset: number): void {
    const relativeOffset = offset - this.baseOffset;
    let keep = this.count;
    while (keep > 0 && (this.relativeOffsets[keep - 1] as number) >= relativeOffset) keep -= 1;
    this.count = keep;
    this.file.truncateEntries(keep);
  }

  /**
   * Shrinks a preallocated file to its entries, as Kafka does when a segment stops being active,
   * so the `.index` file's size says how many entries it has.
   */
  trim(): void {
    this.file.trim();
  }

  /** fdatasyncs the file (on roll and close; never on the append path, the index being rebuildable). */
  flush(): void {
    this.file.flush();
  }

  /** Closes the file; a later append or truncation reopens it. */
  close(): void {
    this.file.close();
  }

  /** Closes and removes the `.index` file (its segment is being deleted). */
  delete(): void {
    this.file.delete();
  }

  private reserve(entries: number): void {
    if (entries <= this.relativeOffsets.length) return;
    const capacity = Math.max(entries, this.relativeOffsets.length * 2);
    const relativeOffsets = new Int32Array(capacity);
    relativeOffsets.set(this.relativeOffsets.subarray(0, this.count));
    const positions = new Int32Array(capacity);
    positions.set(this.positions.subarray(0, this.count));
    this.relativeOffsets = relativeOffsets;
    this.positions = positions;
  }
}
