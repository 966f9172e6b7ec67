import { FileRecords, type FileSystem, type MemoryRecords } from '@kraft/records';
import type { LogConfig } from '../config/log-config.js';
import { joinPath } from '../files/atomic-file.js';
import { OffsetIndex } from '../index/offset-index.js';
import { TimeIndex } from '../index/time-index.js';
import {
  BATCH_CORRUPT,
  BATCH_INCOMPLETE,
  batchBaseOffset,
  batchLastOffset,
  batchLeaderEpoch,
  batchMaxTimestamp,
  batchSizeAt,
  checkBatchAt,
  declaredBatchSize,
  LOG_OVERHEAD,
  RECORD_BATCH_OVERHEAD,
} from './batch-header.js';

export const LOG_FILE_SUFFIX = '.log';
export const INDEX_FILE_SUFFIX = '.index';
export const TIME_INDEX_FILE_SUFFIX = '.timeindex';
/** Relative offsets in the indexes are int32: a segment may span at most this many offsets. */
const MAX_RELATIVE_OFFSET = 2 ** 31 - 1;
/** Recovery reads the log in chunks of this size (or one maximum batch if larger). */
const RECOVERY_CHUNK_BYTES = 8 * 1024 * 1024;

/** `%020d`: Kafka's segment file name stem. */
export function segmentFileStem(baseOffset: number): string {
  return String(baseOffset).padStart(20, '0');
}

/** Parses `<20 digits>.log`; undefined for any other name. */
export function parseSegmentFileName(name: string): number | undefined {
  const match = /^(\d{20})\.log$/.exec(name);
  if (match === null) return undefined;
  const baseOffset = Number(match[1]);
  return Number.isSafeInteger(baseOffset) ? baseOffset : undefined;
}

/** Where a batch sits in a segment. */
export interface BatchLocation {
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly position: number;
  readonly sizeInBytes: number;
}

/** Called for each valid batch during recovery; returning false treats the batch as corrupt. */
export type RecoveredBatchCheck = (baseOffset: number, lastOffset: number, epoch: number) => boolean;

/** Why a recovery scan stopped before the end of a segment. */
export type SegmentDamage =
  | 'incomplete batch'
  | 'corrupt batch'
  | 'offset out of sequence'
  | 'epoch mismatch';

export interface SegmentRecoveryResult {
  /** Offset after the last valid batch (the segment's base offset when it has none). */
  readonly nextOffset: number;
  /** Bytes from the start that hold valid batches; `discardInvalidTail` cuts the rest. */
  readonly validBytes: number;
  /** Bytes after the valid ones: torn, corrupt or out of sequence. */
  readonly invalidBytes: number;
  /** Set when `invalidBytes > 0`. */
  readonly damage: SegmentDamage | undefined;
}

/** What the next append would add to the active segment (Kafka's `RollParams`). */
export interface RollParams {
  readonly sizeInBytes: number;
  readonly lastOffset: number;
  /** The largest max timestamp among the batches to append. */
  readonly maxTimestampMs: number;
  /** The wall clock, read once per append. */
  readonly nowMs: number;
}

/**
 * One segment: `<base>.log` (a FileRecords), `<base>.index` and `<base>.timeindex` (Kafka
 * `LogSegment`). Only the last segment of a log takes appends. Positions are int32 as in Kafka.
 */
export class LogSegment {
  private nextOffsetValue: number;
  private bytesSinceLastIndexEntry = 0;
  /** The first batch's max timestamp, which time-based rolling measures from (undefined when empty). */
  private rollingBasedTimestamp: number | undefined;
  private unflushed = false;
  private deletedValue = false;
  /** Whether the last open found whole batches up to the end of the file (no torn tail). */
  private endsCleanly = true;
  private readonly header = Buffer.alloc(RECORD_BATCH_OVERHEAD);

  private constructor(
    private readonly fileSystem: FileSystem,
    private readonly directory: string,
    readonly baseOffset: number,
    private readonly config: LogConfig,
    readonly records: FileRecords,
    private offsetIndex: OffsetIndex,
    private timeIndex: TimeIndex,
    private readonly createdTimeMs: number,
  ) {
    this.nextOffsetValue = baseOffset;
  }

  static paths(directory: string, baseOffset: number): { log: string; index: string; timeIndex: string } {
    const stem = joinPath(directory, segmentFileStem(baseOffset));
    return {
      log: `${stem}${LOG_FILE_SUFFIX}`,
      index: `${stem}${INDEX_FILE_SUFFIX}`,
      timeIndex: `${stem}${TIME_INDEX_FILE_SUFFIX}`,
    };
  }

  /** Creates an empty segment (preallocated when configured); the caller syncs the directory. */
  static create(
    fileSystem: FileSystem,
    directory: string,
    baseOffset: number,
    config: LogConfig,
    nowMs: number,
  ): LogSegment {
    const paths = LogSegment.paths(directory, baseOffset);
    if (fileSystem.exists(paths.log)) fileSystem.unlink(paths.log);
    const records = FileRecords.open(paths.log, {
      mutable: true,
      fileSystem,
      ...(config.preallocate ? { preallocateBytes: config.segmentBytes } : {}),
    });
    const offsetIndex = OffsetIndex.create(
      fileSystem,
      paths.index,
      baseOffset,
      config.segmentIndexBytes,
      true,
    );
    const timeIndex = TimeIndex.create(
      fileSystem,
      paths.timeIndex,
      baseOffset,
      config.segmentIndexBytes,
      true,
    );
    return new LogSegment(fileSystem, directory, baseOffset, config, records, offsetIndex, timeIndex, nowMs);
  }

  /**
   * Opens an existing segment. Its indexes are loaded when they pass the sanity checks and rebuilt
   * from the log otherwise; `nextOffset` is found by scanning from the last index entry. Nothing is
   * CRC-checked here: this is the clean-shutdown path (`recover` is the other one).
   */
  static open(
    fileSystem: FileSystem,
    directory: string,
    baseOffset: number,
    config: LogConfig,
    nowMs: number,
    loadIndexes = true,
  ): LogSegment {
    const paths = LogSegment.paths(directory, baseOffset);
    const records = FileRecords.open(paths.log, { mutable: true, fileSystem });
    const size = records.sizeInBytes();
    const offsetIndex = loadIndexes
      ? OffsetIndex.load(fileSystem, paths.index, baseOffset, config.segmentIndexBytes, size)
      : undefined;
    const timeIndex =
      offsetIndex === undefined
        ? undefined
        : TimeIndex.load(
            fileSystem,
            paths.timeIndex,
            baseOffset,
            config.segmentIndexBytes,
            Number.MAX_SAFE_INTEGER,
          );
    const segment = new LogSegment(
      fileSystem,
      directory,
      baseOffset,
      config,
      records,
      offsetIndex ?? OffsetIndex.create(fileSystem, paths.index, baseOffset, config.segmentIndexBytes, false),
      timeIndex ?? TimeIndex.create(fileSystem, paths.timeIndex, baseOffset, config.segmentIndexBytes, false),
      nowMs,
    );
    // Without loadIndexes the caller runs recover(), which validates the data and rebuilds both.
    if (loadIndexes) segment.completeLoad(offsetIndex !== undefined && timeIndex !== undefined);
    segment.rollingBasedTimestamp = segment.firstBatchMaxTimestamp();
    return segment;
  }

  /** False when opening found bytes after the last whole batch: the segment needs `recover`. */
  get isWhole(): boolean {
    return this.endsCleanly;
  }

  /**
   * Trusts loaded indexes only if the last offset-index entry points at a batch that ends where it
   * says and the time index stays inside the data; finds the next offset from the last entry.
   */
  private completeLoad(indexesLoaded: boolean): void {
    if (!indexesLoaded) {
      this.rebuildIndexes();
      return;
    }
    const lastEntry = this.offsetIndex.lookupEntry(Number.MAX_SAFE_INTEGER);
    if (lastEntry !== undefined && !this.entryMatches(lastEntry.offset, lastEntry.position)) {
      this.rebuildIndexes();
      return;
    }
    this.nextOffsetValue = this.scanNextOffset(this.offsetIndex.lookup(Number.MAX_SAFE_INTEGER));
    if (this.timeIndex.lastOffset() >= this.nextOffsetValue) this.rebuildIndexes();
  }

  get deleted(): boolean {
    return this.deletedValue;
  }

  /** The offset after the last batch in this segment. */
  nextOffset(): number {
    return this.nextOffsetValue;
  }

  sizeInBytes(): number {
    return this.records.sizeInBytes();
  }

  isEmpty(): boolean {
    return this.records.sizeInBytes() === 0;
  }

  hasUnflushedData(): boolean {
    return this.unflushed;
  }

  /**
   * Whether the next append must go to a new segment (Kafka's `LogSegment.shouldRoll`): size, age
   * (`metadata.log.segment.ms`, see `timeWaitedForRollMs`), a full index, or offsets too far for
   * int32 deltas. Kafka subtracts `segment.jitter.ms` from the age limit; its metadata log never
   * sets it (0), so there is no jitter here.
   */
  shouldRoll(next: RollParams): boolean {
    if (this.isEmpty()) return false;
    return (
      this.sizeInBytes() > this.config.segmentBytes - next.sizeInBytes ||
      this.timeWaitedForRollMs(next.nowMs, next.maxTimestampMs) > this.config.segmentMs ||
      this.offsetIndex.isFull() ||
      this.timeIndex.isFull() ||
      next.lastOffset - this.baseOffset > MAX_RELATIVE_OFFSET
    );
  }

  /**
   * How long this segment has waited to roll (Kafka's `timeWaitedForRoll`). In record time when
   * the first batch has a timestamp: the incoming batches' max timestamp minus the first batch's,
   * so a follower replicating month-old batches fills segments instead of rolling one per append.
   * Otherwise (no batch yet, or a first batch without a timestamp) in wall-clock time since the
   * segment was created.
   */
  timeWaitedForRollMs(nowMs: number, incomingMaxTimestampMs: number): number {
    const firstBatchTimestamp = this.rollingBasedTimestamp;
    if (firstBatchTimestamp !== undefined && firstBatchTimestamp >= 0) {
      return incomingMaxTimestampMs - firstBatchTimestamp;
    }
    return nowMs - this.createdTimeMs;
  }

  /**
   * Appends validated batches (offsets already assigned). Index entries are added per batch once
   * `index.interval.bytes` have passed since the last one.
   */
  append(records: MemoryRecords): void {
    const buffer = records.buffer();
    const startPosition = this.records.sizeInBytes();
    this.records.append(records);
    this.indexBatches(buffer, startPosition);
    this.unflushed = true;
  }

  private indexBatches(buffer: Buffer, startPosition: number): void {
    let position = 0;
    while (position + LOG_OVERHEAD <= buffer.length) {
      const size = batchSizeAt(buffer, position);
      const lastOffset = batchLastOffset(buffer, position);
      const maxTimestamp = batchMaxTimestamp(buffer, position);
      if (this.rollingBasedTimestamp === undefined) this.rollingBasedTimestamp = maxTimestamp;
      if (this.bytesSinceLastIndexEntry > this.config.indexIntervalBytes) {
        this.offsetIndex.append(lastOffset, startPosition + position);
        this.timeIndex.maybeAppend(maxTimestamp, lastOffset);
        this.bytesSinceLastIndexEntry = 0;
      }
      this.bytesSinceLastIndexEntry += size;
      this.nextOffsetValue = lastOffset + 1;
      position += size;
    }
  }

  /**
   * The batch holding `offset` (the first whose last offset is at least `offset`), scanning headers
   * from the index's floor entry; undefined when the segment ends first.
   */
  translateOffset(offset: number, limitPosition = this.sizeInBytes()): BatchLocation | undefined {
    const entry = this.offsetIndex.lookupEntry(offset);
    let position = entry?.position ?? 0;
    if (entry !== undefined && !entry.verified) {
      if (this.entryMatches(entry.offset, entry.position)) {
        this.offsetIndex.markVerified(entry.entry);
      } else {
        // An index that points between batches (bit rot, a stale file) is rebuilt, never trusted.
        this.rebuildIndexes();
        position = this.offsetIndex.lookup(offset);
      }
    }
    while (position + RECORD_BATCH_OVERHEAD <= limitPosition) {
      const header = this.readHeader(position);
      const size = declaredBatchSize(header, 0, this.config.maxBatchSizeInBytes);
      if (size < 0) return undefined;
      const lastOffset = batchLastOffset(header, 0);
      if (lastOffset >= offset) {
        return { baseOffset: batchBaseOffset(header, 0), lastOffset, position, sizeInBytes: size };
      }
      position += size;
    }
    return undefined;
  }

  /** Whether the batch at `position` really ends at `lastOffset`, as its index entry claims. */
  private entryMatches(lastOffset: number, position: number): boolean {
    if (position + RECORD_BATCH_OVERHEAD > this.sizeInBytes()) return false;
    const header = this.readHeader(position);
    return (
      declaredBatchSize(header, 0, this.config.maxBatchSizeInBytes) > 0 &&
      batchLastOffset(header, 0) === lastOffset
    );
  }

  /** A view of bytes `[position, position + size)` of this segment. */
  slice(position: number, size: number): FileRecords {
    return this.records.slice(position, size);
  }

  /**
   * Removes every batch holding `offset` or later. Returns the bytes removed. The caller has
   * checked that `offset` is at or after the segment's base offset. With `keepFileBytes` the
   * removed bytes stay in the file (unread) until `cutFileToSize`.
   */
  truncateTo(offset: number, keepFileBytes = false): number {
    const location = this.translateOffset(offset);
    if (location === undefined) return 0;
    const removed = this.sizeInBytes() - location.position;
    this.records.truncateTo(location.position, keepFileBytes);
    this.offsetIndex.truncateTo(offset);
    this.timeIndex.truncateTo(offset);
    this.nextOffsetValue = location.position === 0 ? this.baseOffset : location.baseOffset;
    this.bytesSinceLastIndexEntry =
      this.offsetIndex.entryCount() === 0
        ? location.position
        : location.position - this.offsetIndex.lookup(offset);
    if (location.position === 0) this.rollingBasedTimestamp = undefined;
    this.unflushed = true;
    return removed;
  }

  /**
   * Validates every batch (length, magic, CRC, offsets, and `check`) and rebuilds both indexes up
   * to the first batch that fails: a torn write, garbage, preallocated zeros or bit rot. Nothing is
   * cut here: the caller decides (a torn tail goes, lost flushed data may be refused) and calls
   * `discardInvalidTail`.
   */
  recover(expectedBaseOffset: number, check: RecoveredBatchCheck): SegmentRecoveryResult {
    if (this.offsetIndex.entryCount() > 0 || this.timeIndex.entryCount() > 0) this.resetIndexes();
    this.bytesSinceLastIndexEntry = 0;
    const fileSize = this.sizeInBytes();
    const chunkSize = Math.min(fileSize, Math.max(RECOVERY_CHUNK_BYTES, this.config.maxBatchSizeInBytes));
    const chunk = Buffer.allocUnsafe(chunkSize);
    let chunkStart = 0;
    let chunkLength = 0;
    let position = 0;
    let expectedOffset = expectedBaseOffset;
    let damage: SegmentDamage | undefined;
    while (position < fileSize) {
      const available = chunkStart + chunkLength - position;
      if (
        available < RECORD_BATCH_OVERHEAD ||
        available < this.declaredSizeIn(chunk, position - chunkStart)
      ) {
        chunkStart = position;
        chunkLength = this.records.readInto(chunk, position);
      }
      const relative = position - chunkStart;
      const size = checkBatchAt(chunk, relative, chunkLength, this.config.maxBatchSizeInBytes);
      if (size === BATCH_INCOMPLETE || size === BATCH_CORRUPT) {
        damage = size === BATCH_INCOMPLETE ? 'incomplete batch' : 'corrupt batch';
        break;
      }
      const baseOffset = batchBaseOffset(chunk, relative);
      const lastOffset = batchLastOffset(chunk, relative);
      if (baseOffset !== expectedOffset) {
        damage = 'offset out of sequence';
        break;
      }
      if (!check(baseOffset, lastOffset, batchLeaderEpoch(chunk, relative))) {
        damage = 'epoch mismatch';
        break;
      }
      this.indexRecoveredBatch(chunk.subarray(relative, relative + size), position);
      expectedOffset = lastOffset + 1;
      position += size;
    }
    this.nextOffsetValue = expectedOffset;
    // Read before the tail is cut: only a valid first batch may set the roll clock.
    this.rollingBasedTimestamp = position === 0 ? undefined : this.firstBatchMaxTimestamp();
    return { nextOffset: expectedOffset, validBytes: position, invalidBytes: fileSize - position, damage };
  }

  /** Cuts what `recover` found invalid after `validBytes`. */
  discardInvalidTail(validBytes: number): void {
    if (validBytes < this.sizeInBytes()) this.records.truncateTo(validBytes);
  }

  /** The size the length field at `relative` declares, clamped to [0, max batch size]. */
  private declaredSizeIn(chunk: Buffer, relative: number): number {
    const size = batchSizeAt(chunk, relative);
    return size > 0 && size <= this.config.maxBatchSizeInBytes ? size : 0;
  }

  private indexRecoveredBatch(batch: Buffer, position: number): void {
    const before = this.bytesSinceLastIndexEntry;
    if (before > this.config.indexIntervalBytes) {
      const lastOffset = batchLastOffset(batch, 0);
      this.offsetIndex.append(lastOffset, position);
      this.timeIndex.maybeAppend(batchMaxTimestamp(batch, 0), lastOffset);
      this.bytesSinceLastIndexEntry = 0;
    }
    this.bytesSinceLastIndexEntry += batch.length;
  }

  /** Rebuilds both indexes by walking batch headers (no CRC): for a clean segment whose index is bad. */
  private rebuildIndexes(): void {
    this.resetIndexes();
    const size = this.sizeInBytes();
    let position = 0;
    let nextOffset = this.baseOffset;
    while (position + RECORD_BATCH_OVERHEAD <= size) {
      const header = this.readHeader(position);
      const batchSize = declaredBatchSize(header, 0, this.config.maxBatchSizeInBytes);
      if (batchSize < 0 || position + batchSize > size) break;
      if (this.bytesSinceLastIndexEntry > this.config.indexIntervalBytes) {
        this.offsetIndex.append(batchLastOffset(header, 0), position);
        this.timeIndex.maybeAppend(batchMaxTimestamp(header, 0), batchLastOffset(header, 0));
        this.bytesSinceLastIndexEntry = 0;
      }
      this.bytesSinceLastIndexEntry += batchSize;
      nextOffset = batchLastOffset(header, 0) + 1;
      position += batchSize;
    }
    this.nextOffsetValue = nextOffset;
    this.endsCleanly = position === size;
  }

  private resetIndexes(): void {
    const paths = LogSegment.paths(this.directory, this.baseOffset);
    this.offsetIndex.close();
    this.timeIndex.close();
    this.offsetIndex = OffsetIndex.create(
      this.fileSystem,
      paths.index,
      this.baseOffset,
      this.config.segmentIndexBytes,
      false,
    );
    this.timeIndex = TimeIndex.create(
      this.fileSystem,
      paths.timeIndex,
      this.baseOffset,
      this.config.segmentIndexBytes,
      false,
    );
    this.bytesSinceLastIndexEntry = 0;
  }

  /** Walks headers from `position` to the end of the data; returns the offset after the last batch. */
  private scanNextOffset(startPosition: number): number {
    const size = this.sizeInBytes();
    let position = startPosition;
    let nextOffset = this.baseOffset;
    while (position + RECORD_BATCH_OVERHEAD <= size) {
      const header = this.readHeader(position);
      const batchSize = declaredBatchSize(header, 0, this.config.maxBatchSizeInBytes);
      if (batchSize < 0 || position + batchSize > size) break;
      nextOffset = batchLastOffset(header, 0) + 1;
      position += batchSize;
    }
    this.bytesSinceLastIndexEntry = position - startPosition;
    this.endsCleanly = position === size;
    return nextOffset;
  }

  private firstBatchMaxTimestamp(): number | undefined {
    if (this.sizeInBytes() < RECORD_BATCH_OVERHEAD) return undefined;
    return batchMaxTimestamp(this.readHeader(0), 0);
  }

  private readHeader(position: number): Buffer {
    const count = this.records.readInto(this.header, position);
    if (count < RECORD_BATCH_OVERHEAD) this.header.fill(0, count);
    return this.header;
  }

  /** This segment stops taking appends: trim preallocated files to their data. */
  onBecomeInactive(): void {
    this.offsetIndex.trim();
    this.timeIndex.trim();
    // Truncating to the logical size drops a preallocated zero tail.
    this.records.truncateTo(this.records.sizeInBytes());
    if (this.config.preallocate) this.unflushed = true;
  }

  /** Cuts the log file to the segment's size: the bytes a `keepFileBytes` truncation left behind. */
  cutFileToSize(): void {
    this.records.truncateTo(this.records.sizeInBytes());
    this.unflushed = true;
  }

  flush(): void {
    this.records.flush();
    this.offsetIndex.flush();
    this.timeIndex.flush();
    this.unflushed = false;
  }

  /** fdatasync of the log file off the event loop; indexes are rebuilt on recovery, never awaited. */
  async flushAsync(): Promise<void> {
    this.unflushed = false;
    await this.records.flushAsync();
  }

  markUnflushed(): void {
    this.unflushed = true;
  }

  /** Trims, syncs and closes the three files (the clean-shutdown path). */
  close(): void {
    this.onBecomeInactive();
    this.offsetIndex.flush();
    this.timeIndex.flush();
    this.offsetIndex.close();
    this.timeIndex.close();
    this.records.close();
  }

  /** Closes the three files as they are, without trimming: an open that is refused changes nothing. */
  abandon(): void {
    this.offsetIndex.close();
    this.timeIndex.close();
    this.records.close();
  }

  /** Deletes the three files; the caller syncs the directory and later calls `release()`. */
  delete(): void {
    this.deletedValue = true;
    this.offsetIndex.delete();
    this.timeIndex.delete();
    // The open handle keeps the unlinked bytes readable for slices already handed out (a fetch
    // response still being written); `release()` closes it later.
    this.fileSystem.unlink(this.records.path);
  }

  /** Closes the log file of a deleted segment once no earlier read can still be using it. */
  release(): void {
    this.records.close();
  }
}
