import type { FileSystem } from '@kraft/records';
import { IndexFile } from './index-file.js';

/** `.timeindex` entry: int64 timestamp, int32 offset relative to the segment's base offset. */
const ENTRY_SIZE = 12;

/**
 * A segment's sparse time index (Kafka `TimeIndex`): entries are added next to offset-index
 * entries whenever the segment's max timestamp grew, mapping a timestamp to the first offset whose
 * batch may hold it. Raft never searches by time; the file exists so Kafka's tools find it.
 */
export class TimeIndex {
  private timestamps: number[] = [];
  private relativeOffsets: number[] = [];
  private readonly entry = Buffer.alloc(ENTRY_SIZE);

  private constructor(
    readonly baseOffset: number,
    private readonly file: IndexFile,
  ) {}

  /**
   * Starts an empty time index for the segment at `baseOffset`, truncating any file at `path`:
   * room for `maxIndexBytes / 12` entries, allocated at once when `preallocate` is set.
   *
   * @throws FileSystemError when the file cannot be created or sized.
   */
  static create(
    fileSystem: FileSystem,
    path: string,
    baseOffset: number,
    maxIndexBytes: number,
    preallocate: boolean,
  ): TimeIndex {
    return new TimeIndex(
      baseOffset,
      IndexFile.create(fileSystem, path, ENTRY_SIZE, maxIndexBytes, preallocate),
    );
  }

  /** Loads a time index; undefined when missing or not strictly increasing (then it is rebuilt). */
  static load(
    fileSystem: FileSystem,
    path: string,
    baseOffset: number,
    maxIndexBytes: number,
    lastOffset: number,
  ): TimeIndex | undefined {
    const opened = IndexFile.open(fileSystem, path, ENTRY_SIZE, maxIndexBytes);
    if (opened === undefined) return undefined;
    const index = new TimeIndex(baseOffset, opened.file);
    for (let position = 0; position < opened.bytes.length; position += ENTRY_SIZE) {
      const timestamp = Number(opened.bytes.readBigInt64BE(position));
      const relativeOffset = opened.bytes.readInt32BE(position + 8);
      const count = index.timestamps.length;
      const rising =
        count === 0 ||
        (timestamp > (index.timestamps[count - 1] as number) &&
          relativeOffset >= (index.relativeOffsets[count - 1] as number));
      if (!rising || relativeOffset < 0 || baseOffset + relativeOffset > lastOffset) {
        opened.file.close();
        return undefined;
      }
      index.timestamps.push(timestamp);
      index.relativeOffsets.push(relativeOffset);
    }
    return index;
  }

  /** How many (timestamp, offset) pairs the index holds. */
  entryCount(): number {
    return this.timestamps.length;
  }

  /** Whether the file has no room for another entry, which forces the segment to roll. */
  isFull(): boolean {
    return this.file.isFull();
  }

  /** The offset of the last entry, or -1 when empty. */
  lastOffset(): number {
    const count = this.relativeOffsets.length;
    return count === 0 ? -1 : this.baseOffset + (this.relativeOffsets[count - 1] as number);
  }

  /** The newest timestamp indexed, in ms, or -1 when the index is empty. */
  lastTimestamp(): number {
    return this.timestamps.length === 0 ? -1 : (this.timestamps[this.timestamps.length - 1] as number);
  }

  /** Adds `(timestamp, offset)` when the timestamp is newer than the last entry's. */
  maybeAppend(timestamp: number, offset: number): void {
    if (timestamp <= this.lastTimestamp()) return;
    this.timestamps.push(timestamp);
    this.relativeOffsets.push(offset - this.baseOffset);
    this.entry.writeBigInt64BE(BigInt(timestamp), 0);
    this.entry.writeInt32BE(offset - this.baseOffset, 8);
    this.file.appendEntry(this.entry);
  }

  /** The offset of the last entry whose timestamp is at most `timestamp`, or the base offset. */
  lookup(timestamp: number): number {
    let found = -1;
    let low = 0;
    let high = this.timestamps.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if ((this.timestamps[middle] as number) <= timestamp) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return this.baseOffset + (found === -1 ? 0 : (this.relativeOffsets[found] as number));
  }

  /** Drops entries for offsets at or above `offset`. */
  truncateTo(offset: number): void {
    let keep = this.timestamps.length;
    while (keep > 0 && this.baseOffset + (this.relativeOffsets[keep - 1] as number) >= offset) keep -= 1;
    this.timestamps.length = keep;
    this.relativeOffsets.length = keep;
    this.file.truncateEntries(keep);
  }

  /** Cuts a preallocated `.timeindex` down to its live entries (when the segment rolls or closes). */
  trim(): void {
    this.file.trim();
  }

  /** Makes the written entries durable (fdatasync); called on roll and close only. */
  flush(): void {
    this.file.flush();
  }

  /** Releases the file handle; writing again reopens the file. */
  close(): void {
    this.file.close();
  }

  /** Closes and unlinks the `.timeindex` file, along with its deleted segment. */
  delete(): void {
    this.file.delete();
  }
}
