import type { Logger } from '@kraft/protocol';
import { FileRecords, type FileSystem, MemoryRecords, type Records } from '@kraft/records';
import type { LogConfig } from '../config/log-config.js';
import { LeaderEpochCache } from '../epoch/leader-epoch-cache.js';
import {
  type EpochEntry,
  LEADER_EPOCH_CHECKPOINT_FILE,
  LeaderEpochCheckpointFile,
} from '../epoch/leader-epoch-checkpoint-file.js';
import {
  type FlushedDataLoss,
  FlushedDataLossError,
  InvalidLogOperationError,
  InvalidRecordError,
  LogCorruptionError,
  OffsetOutOfRangeError,
} from '../errors/log-errors.js';
import { deleteFileDurably, joinPath, readSmallFile, writeFileAtomically } from '../files/atomic-file.js';
import type {
  RecoveryPointCheckpointFile,
  SavedRecoveryPoint,
} from '../files/recovery-point-checkpoint-file.js';
import type {
  Isolation,
  LogAppendInfo,
  LogFetchInfo,
  LogOffsetMetadata,
  LostFlushedDataPolicy,
} from '../raft-log-types.js';
import {
  BATCH_CORRUPT,
  BATCH_INCOMPLETE,
  batchBaseOffset,
  batchesBelow,
  batchLastOffset,
  batchLeaderEpoch,
  batchMaxTimestamp,
  batchSizeAt,
  checkBatchAt,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  PARTITION_LEADER_EPOCH_OFFSET,
  writeOffset,
} from './batch-header.js';
import {
  INDEX_FILE_SUFFIX,
  LogSegment,
  parseSegmentFileName,
  type RecoveredBatchCheck,
  TIME_INDEX_FILE_SUFFIX,
} from './log-segment.js';
import { SegmentList } from './segment-list.js';

/** Written on clean close, removed (durably) once an open succeeded: its presence means "no scan needed". */
export const CLEAN_SHUTDOWN_FILE = '.kraft_cleanshutdown';
/** Largest record set one append takes (Kafka sizes them as int32). */
const MAX_APPEND_BYTES = 2 ** 31 - 1;
/** Suffixes of Kafka's transient files; anything carrying them is left over from a crash. */
const STRAY_SUFFIXES = ['.tmp', '.deleted', '.cleaned', '.swap'];
/**
 * Bound on the bytes appended behind a truncation not yet durable (the driver flushes within a
 * turn, so this is reached only when flushes stall); past it the truncation is made durable at once.
 */
const MAX_HELD_APPEND_BYTES = 64 * 1024 * 1024;

export interface SegmentedLogOptions {
  /** The partition directory (`<log.dir>/__cluster_metadata-0`). */
  readonly directory: string;
  readonly config: LogConfig;
  readonly fileSystem: FileSystem;
  readonly logger: Logger;
  /** Milliseconds clock for time-based segment rolls, read once per append. */
  readonly time: () => number;
  /** Kafka's `recovery-point-offset-checkpoint`: how far the log is known to be flushed. */
  readonly recoveryPointFile: RecoveryPointCheckpointFile;
  /** What to do when recovery finds damage below the recovery point (default: refuse to open). */
  readonly lostFlushedData?: LostFlushedDataPolicy;
}

/** Where a recovery scan stopped, and what cutting there removes. */
interface FoundDamage {
  /** The segment to cut after `validBytes`; undefined when a whole segment is missing (a gap). */
  readonly segment: LogSegment | undefined;
  readonly validBytes: number;
  readonly nextOffset: number;
  /** Segments after the damage, all dropped with it. */
  readonly laterBaseOffsets: readonly number[];
  readonly file: string;
  readonly damage: string;
}

/** An append made while a truncation is pending: validated, offsets assigned, not yet written. */
interface HeldAppend {
  /** A private copy of the appended batches; its size is the append's size. */
  readonly records: MemoryRecords;
  readonly lastOffset: number;
  readonly maxTimestampMs: number;
}

/**
 * A truncation done in memory only (ADR 0029): the files still hold the old log until the
 * recovery point is durably lowered to `offset`; then the cut reaches the files and the held
 * appends are written. A crash before that finds the log as it was before the truncation.
 */
interface PendingTruncation {
  /** The lowest offset truncated to since the files were last cut. */
  offset: number;
  /**
   * Whether the active segment was cut in memory and its file still holds the removed bytes. Only
   * the active one can be: the segment list only shrinks while a truncation is pending (`roll`
   * settles it first, held appends never roll), so every cut lands in the last segment.
   */
  activeSegmentCut: boolean;
  /** Segments out of the log whose files still exist. */
  readonly removedSegments: LogSegment[];
  readonly heldAppends: HeldAppend[];
  /** The bytes of `heldAppends`, bounded by MAX_HELD_APPEND_BYTES. */
  heldSizeInBytes: number;
  /**
   * Set by a full truncation (ADR 0036): every segment is in `removedSegments`, the segment list is
   * empty, and the new active segment starts here once the files allow it. Its file is created
   * only after the old ones are unlinked, since one of them may have the same name.
   */
  restartOffset: number | undefined;
}

interface HighWatermarkLocation {
  /** Undefined while a full truncation has not created the new active segment yet. */
  readonly segment: LogSegment | undefined;
  readonly segmentBaseOffset: number;
  /** Byte position in `segment` where the batch holding the high watermark starts. */
  readonly position: number;
}

/**
 * Kafka's `UnifiedLog` reduced to what the metadata log needs: an ordered list of segments with
 * an active last segment, the leader-epoch cache, the high watermark with its byte position,
 * durable flushing, and crash recovery on open.
 *
 * Invariants: `logStartOffset <= highWatermark <= logEndOffset`; segments are contiguous (each
 * base offset equals the previous segment's next offset); every batch below the durable recovery
 * point, and below the flushed offset reported, has its epoch in the durable leader-epoch
 * checkpoint (a flush writes the checkpoint before it syncs the batches: ADR 0033).
 */
export class SegmentedLog {
  private readonly segments = new SegmentList();
  private logStartOffsetValue = 0;
  private logEndOffsetValue = 0;
  private highWatermarkValue = 0;
  private highWatermarkCache: HighWatermarkLocation | undefined;
  private flushedOffset = 0;
  /** Lowest log end a truncation set while a flush was in flight: caps what that flush may claim. */
  private truncatedDuringFlush = Number.POSITIVE_INFINITY;
  private directoryDirty = false;
  private pendingTruncation: PendingTruncation | undefined;
  /**
   * The lowest offset of a cut that reached the files (ftruncate, unlinks) but no fdatasync has
   * made durable yet: a power loss can still undo it, bringing the removed batches back. Cleared by
   * the flush that syncs the files after it; +Infinity when there is none.
   */
  private unsyncedCutOffset = Number.POSITIVE_INFINITY;
  /** Counts cuts into the files, so a flush clears only the ones made before its syncs. */
  private fileCuts = 0;
  private flushChain: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Deleted segments whose log files stay open for readers of earlier slices (see `retire`). */
  private retiredSegments: LogSegment[] = [];
  /**
   * The offset `recovery-point-offset-checkpoint` durably holds: every batch below it was flushed
   * when it was written, and recovery refuses to cut below it. Undefined after a failed write.
   */
  private checkpointedRecoveryPoint: number | undefined;
  /** The offset last written to the checkpoint's bytes, durable or still being synced. */
  private recoveryPointOnFile: number | undefined;
  /** The background checkpoint write after a flush, if one runs (never more than one). */
  private checkpointWrite: Promise<void> | undefined;
  /** A flush reported more while `checkpointWrite` ran: write again once it settles. */
  private checkpointBehind = false;
  /** Bumped by each synchronous checkpoint write: an older background write may not claim its offset. */
  private checkpointGeneration = 0;
  /** A failed background checkpoint write; the next flush rethrows it. */
  private checkpointFailure: unknown;
  /**
   * Full truncations made, and how many of them the directory durably shows (their old segments
   * unlinked, the new one created, the directory synced). Until they agree the old segments may
   * come back after a crash, so the recovery point may not rise to the new log's offsets (ADR 0036).
   */
  private restarts = 0;
  private durableRestarts = 0;
  /**
   * While recovering lost flushed data from the quorum: the old recovery point the log must be
   * fetched and flushed back past. The checkpoint keeps holding it (a log end below its recovery
   * point is the durable form of this state), so a restart during catch-up stays in recovery.
   */
  private recoveryTarget: number | undefined;
  private readonly recoveryPointFile: RecoveryPointCheckpointFile;
  private readonly lostFlushedData: LostFlushedDataPolicy;
  private readonly directory: string;
  readonly config: LogConfig;
  private readonly fileSystem: FileSystem;
  private readonly logger: Logger;
  private readonly time: () => number;

  private constructor(
    options: SegmentedLogOptions,
    readonly epochCache: LeaderEpochCache,
  ) {
    this.directory = options.directory;
    this.config = options.config;
    this.fileSystem = options.fileSystem;
    this.logger = options.logger;
    this.time = options.time;
    this.recoveryPointFile = options.recoveryPointFile;
    this.lostFlushedData = options.lostFlushedData ?? 'refuse';
  }

  /**
   * Opens the log in `directory`, creating it if needed. After a clean shutdown nothing is scanned;
   * otherwise every segment is validated batch by batch and cut at the first bad one, if that
   * lies at or above the recovery point (a torn tail). Below it the bad batch is flushed data that
   * was lost: see `lostFlushedData`. The clean-shutdown marker stays until `removeCleanShutdownMarker`.
   */
  static open(options: SegmentedLogOptions): SegmentedLog {
    const { fileSystem, directory } = options;
    fileSystem.mkdir(directory);
    const markedEndOffset = readCleanShutdownMarker(fileSystem, directory);
    removeStrayFiles(fileSystem, directory);
    const checkpoint = new LeaderEpochCheckpointFile(
      fileSystem,
      joinPath(directory, LEADER_EPOCH_CHECKPOINT_FILE),
    );
    const entries = readCheckpointOrUndefined(checkpoint, options.logger);
    const log = new SegmentedLog(options, new LeaderEpochCache(checkpoint, entries ?? []));
    const baseOffsets = fileSystem
      .list(directory)
      .map((name) => parseSegmentFileName(name))
      .filter((offset): offset is number => offset !== undefined)
      .sort((left, right) => left - right);
    const saved = options.recoveryPointFile.read();
    const clean =
      markedEndOffset !== undefined && entries !== undefined && log.loadClean(baseOffsets, markedEndOffset);
    if (clean) log.checkAgainstRecoveryPoint(log.endOfLoadedSegments(), saved, undefined);
    else log.recover(baseOffsets, entries, saved);
    log.logStartOffsetValue = (log.segments.first() as LogSegment).baseOffset;
    log.logEndOffsetValue = (log.segments.last() as LogSegment).nextOffset();
    log.highWatermarkValue = log.logStartOffsetValue;
    log.flushedOffset = log.logEndOffsetValue;
    log.initializeRecoveryPoint(saved);
    options.logger.info(
      {
        clean,
        logStartOffset: log.logStartOffsetValue,
        logEndOffset: log.logEndOffsetValue,
        recoveryPoint: log.checkpointedRecoveryPoint,
        segments: log.segments.size(),
      },
      'opened log',
    );
    return log;
  }

  /** Opens every segment trusting its indexes; false (and nothing open) when they disagree. */
  private loadClean(baseOffsets: readonly number[], markedEndOffset: number): boolean {
    if (baseOffsets.length === 0) return false;
    let expected: number | undefined;
    for (const baseOffset of baseOffsets) {
      const segment = LogSegment.open(this.fileSystem, this.directory, baseOffset, this.config, this.time());
      this.segments.add(segment);
      if ((expected !== undefined && baseOffset !== expected) || !segment.isWhole) break;
      expected = segment.nextOffset();
    }
    if (expected === markedEndOffset && this.segments.size() === baseOffsets.length) return true;
    this.logger.warn(
      { markedEndOffset, logEndOffset: expected },
      'clean-shutdown marker disagrees with the log; recovering',
    );
    for (const segment of this.segments.removeWhere(() => true)) segment.close();
    return false;
  }

  /**
   * Validates every batch of every segment (CRC, offsets contiguous from the segment's base, epochs
   * consistent with the checkpoint), then cuts at the first failure, dropping later segments, once
   * `checkAgainstRecoveryPoint` allowed it. A missing or unreadable checkpoint is rebuilt from the
   * batches.
   */
  private recover(
    baseOffsets: readonly number[],
    entries: readonly EpochEntry[] | undefined,
    saved: SavedRecoveryPoint,
  ): void {
    const rebuilding = entries === undefined || entries.length === 0;
    // An epoch checkpoint on file but empty says no batch was flushed with its epoch durable (the
    // epochs are written before the batches they cover are synced, ADR 0033): a batch at or above
    // the recovery point then has an epoch nothing vouches for. The CRC leaves the epoch field out,
    // so a torn write there passes it; such a batch is cut as the unflushed tail it is.
    const unverifiedEpochsFrom =
      entries !== undefined && entries.length === 0 && saved.kind === 'offset'
        ? saved.offset
        : Number.POSITIVE_INFINITY;
    const earlierEpochs: EpochEntry[] = [];
    const found = this.scanSegments(
      baseOffsets,
      this.recoveryEpochCheck(rebuilding, earlierEpochs, unverifiedEpochsFrom),
    );
    const recoveredEnd = found?.nextOffset ?? this.endOfLoadedSegments();
    const lost = this.checkAgainstRecoveryPoint(recoveredEnd, saved, found);
    if (found !== undefined) this.cutAt(found, lost, saved);
    if (this.segments.size() === 0)
      this.segments.add(LogSegment.create(this.fileSystem, this.directory, 0, this.config, this.time()));
    const logEndOffset = (this.segments.last() as LogSegment).nextOffset();
    this.epochCache.truncateFromEnd(logEndOffset);
    this.epochCache.restoreEarlierEntries(earlierEpochs.filter((entry) => entry.startOffset < logEndOffset));
    if (rebuilding) this.epochCache.persist();
    else this.epochCache.persistUnwritten();
    // What survived a process crash may sit only in the page cache: make it durable before
    // reporting it as flushed.
    for (const segment of this.segments.all()) segment.flush();
    this.fileSystem.syncDirectory(this.directory);
  }

  /** Opens and validates segments in order until the first damage (returned) or the end. */
  private scanSegments(baseOffsets: readonly number[], check: RecoveredBatchCheck): FoundDamage | undefined {
    let expected: number | undefined;
    for (const [index, baseOffset] of baseOffsets.entries()) {
      if (expected !== undefined && baseOffset !== expected) {
        return {
          segment: undefined,
          validBytes: 0,
          nextOffset: expected,
          laterBaseOffsets: baseOffsets.slice(index),
          file: LogSegment.paths(this.directory, baseOffset).log,
          damage: `segment starts at offset ${baseOffset} where ${expected} was expected`,
        };
      }
      const segment = LogSegment.open(
        this.fileSystem,
        this.directory,
        baseOffset,
        this.config,
        this.time(),
        false,
      );
      const result = segment.recover(baseOffset, check);
      this.segments.add(segment);
      expected = result.nextOffset;
      if (result.invalidBytes > 0) {
        return {
          segment,
          validBytes: result.validBytes,
          nextOffset: result.nextOffset,
          laterBaseOffsets: baseOffsets.slice(index + 1),
          file: segment.records.path,
          damage: result.damage ?? 'invalid bytes',
        };
      }
    }
    return undefined;
  }

  /** The offset after the last segment opened so far (0 with none). */
  private endOfLoadedSegments(): number {
    return this.segments.last()?.nextOffset() ?? 0;
  }

  /**
   * A log that would end at `recoveredEnd`, below what the checkpoint says was flushed, lost data
   * that may have been acknowledged: refused (typed error, nothing cut), or with the policy's
   * consent cut and either recovered from the quorum or accepted. Returns whether data was lost.
   * An unreadable checkpoint cannot vouch for any damage being a torn tail, so damage is refused.
   */
  private checkAgainstRecoveryPoint(
    recoveredEnd: number,
    saved: SavedRecoveryPoint,
    found: FoundDamage | undefined,
  ): boolean {
    const lost =
      saved.kind === 'offset'
        ? recoveredEnd < saved.offset
        : saved.kind === 'unreadable' && found !== undefined;
    if (!lost) return false;
    const loss = this.describeLoss(recoveredEnd, saved, found);
    const policy = this.lostFlushedData;
    if (policy === 'refuse' || (loss.recoveryPoint === undefined && policy !== 'accept-loss')) {
      for (const segment of this.segments.removeWhere(() => true)) segment.abandon();
      throw new FlushedDataLossError(loss);
    }
    if (policy === 'recover-from-quorum') this.recoveryTarget = loss.recoveryPoint;
    this.logger.error(
      { ...loss, policy },
      policy === 'recover-from-quorum'
        ? 'flushed data lost: truncating and rejoining as an observer until it is fetched back'
        : 'flushed data lost: truncating, the loss accepted by the operator',
    );
    return true;
  }

  private describeLoss(
    recoveredEnd: number,
    saved: SavedRecoveryPoint,
    found: FoundDamage | undefined,
  ): FlushedDataLoss {
    const last = this.segments.last();
    return {
      file: found?.file ?? last?.records.path ?? this.directory,
      positionBytes: found?.validBytes ?? last?.sizeInBytes() ?? 0,
      damage: found?.damage ?? 'the log ends before its recovery point',
      firstLostOffset: recoveredEnd,
      recoveryPoint: saved.kind === 'offset' ? saved.offset : undefined,
    };
  }

  /** Cuts the damaged segment after its valid bytes and deletes every later segment. */
  private cutAt(found: FoundDamage, lost: boolean, saved: SavedRecoveryPoint): void {
    const truncatedBytes = (found.segment?.sizeInBytes() ?? 0) - found.validBytes;
    found.segment?.discardInvalidTail(found.validBytes);
    for (const baseOffset of found.laterBaseOffsets) this.deleteSegmentFiles(baseOffset);
    if (lost) return;
    this.logger.warn(
      {
        file: found.file,
        positionBytes: found.validBytes,
        truncatedBytes,
        droppedSegments: found.laterBaseOffsets.length,
        offset: found.nextOffset,
        recoveryPoint: saved.kind === 'offset' ? saved.offset : undefined,
        damage: found.damage,
      },
      'truncated a torn log tail at or above the recovery point',
    );
  }

  /** After open: the checkpoint holds the recovered log end, or the recovery target while recovering. */
  private initializeRecoveryPoint(saved: SavedRecoveryPoint): void {
    if (this.recoveryTarget !== undefined) {
      this.checkpointedRecoveryPoint = this.recoveryTarget;
      this.recoveryPointOnFile = this.recoveryTarget;
      return;
    }
    if (saved.kind !== 'offset' || saved.offset !== this.logEndOffsetValue)
      this.writeRecoveryPointNow(this.logEndOffsetValue);
    this.checkpointedRecoveryPoint = this.logEndOffsetValue;
    this.recoveryPointOnFile = this.logEndOffsetValue;
  }

  /** Writes and fdatasyncs the checkpoint before returning (open, snapshot, close). */
  private writeRecoveryPointNow(offset: number): void {
    this.beginRecoveryPointWrite(offset);
    this.recoveryPointFile.write(offset);
    this.checkpointedRecoveryPoint = offset;
  }

  /** `writeRecoveryPointNow` with the fdatasync off the event loop (a truncation's first step). */
  private async writeRecoveryPointAsync(offset: number): Promise<void> {
    const generation = this.beginRecoveryPointWrite(offset);
    await this.recoveryPointFile.writeAsync(offset);
    if (generation === this.checkpointGeneration) this.checkpointedRecoveryPoint = offset;
  }

  /**
   * Supersedes any write still in flight (its completion no longer counts) and records `offset`
   * as the bytes on file, nothing as durable until this write lands; returns its generation.
   */
  private beginRecoveryPointWrite(offset: number): number {
    this.checkpointGeneration += 1;
    this.checkpointedRecoveryPoint = undefined;
    this.recoveryPointOnFile = offset;
    return this.checkpointGeneration;
  }

  /**
   * While recovering flushed data lost on this replica: the offset it must fetch and flush back
   * past before it may vote again. Undefined when nothing was lost (or it is all back).
   */
  recoveringUntilOffset(): number | undefined {
    return this.recoveryTarget;
  }

  private recoveryEpochCheck(
    rebuilding: boolean,
    earlierEpochs: EpochEntry[],
    unverifiedEpochsFrom: number,
  ): (baseOffset: number, lastOffset: number, epoch: number) => boolean {
    const earliest = this.epochCache.earliestEntry();
    let lastSeenEpoch = -1;
    return (baseOffset, lastOffset, epoch) => {
      if (epoch < lastSeenEpoch) return false;
      const epochChanged = epoch !== lastSeenEpoch;
      lastSeenEpoch = epoch;
      if (rebuilding) {
        if (baseOffset >= unverifiedEpochsFrom) return false;
        const latest = this.epochCache.latestEpoch();
        if (latest === undefined || epoch > latest) this.epochCache.assign(epoch, baseOffset);
        return true;
      }
      const expectedEpoch = this.epochCache.epochForOffset(baseOffset);
      // No other epoch may start inside the batch: an entry there was written for a batch that a
      // crash dropped, while older data it had truncated came back (the truncation was not synced).
      const epochAtEnd = this.epochCache.epochForOffset(lastOffset);
      if (epochAtEnd !== undefined && epochAtEnd !== epoch) return false;
      // Below the first entry (the log start moved up, then back to the segment base on restart)
      // only monotonicity can be checked.
      if (expectedEpoch !== undefined) return epoch === expectedEpoch;
      if (earliest !== undefined && epoch > earliest.epoch) return false;
      if (epochChanged) earlierEpochs.push({ epoch, startOffset: baseOffset });
      return true;
    };
  }

  private deleteSegmentFiles(baseOffset: number): void {
    const paths = LogSegment.paths(this.directory, baseOffset);
    this.fileSystem.unlink(paths.log);
    this.fileSystem.unlink(paths.index);
    this.fileSystem.unlink(paths.timeIndex);
  }

  logStartOffset(): number {
    return this.logStartOffsetValue;
  }

  logEndOffset(): number {
    return this.logEndOffsetValue;
  }

  highWatermark(): number {
    return this.highWatermarkValue;
  }

  lastFlushedOffset(): number {
    return this.flushedOffset;
  }

  /** Total bytes of all segments. */
  sizeInBytes(): number {
    let total = 0;
    for (const segment of this.segments.all()) total += segment.sizeInBytes();
    return total;
  }

  /**
   * The log's size once the log start is raised to `startOffset` and `deleteOldSegments` ran:
   * every segment except those wholly below `startOffset` (never the active one).
   */
  sizeInBytesFrom(startOffset: number): number {
    const all = this.segments.all();
    let total = 0;
    for (const [index, segment] of all.entries()) {
      const next = all[index + 1];
      if (next === undefined || next.baseOffset > startOffset) total += segment.sizeInBytes();
    }
    return total;
  }

  /** With a full truncation not yet in the files: the offset its segment will start at. */
  segmentBaseOffsets(): number[] {
    const restartOffset = this.pendingTruncation?.restartOffset;
    if (restartOffset !== undefined) return [restartOffset];
    return this.segments.all().map((segment) => segment.baseOffset);
  }

  /**
   * Appends as leader: each batch is checked (length, magic, CRC) and gets its offsets from the
   * log end and `epoch` as its partition leader epoch, written in place (neither field is
   * covered by the CRC). An epoch below the latest one is refused.
   */
  appendAsLeader(records: MemoryRecords, epoch: number, minimumEpoch = 0): LogAppendInfo {
    this.ensureOpen();
    const buffer = records.buffer();
    if (buffer.length === 0) throw new InvalidRecordError('attempt to append an empty record set');
    if (!Number.isInteger(epoch) || epoch < 0 || epoch > 2 ** 31 - 1)
      throw new InvalidRecordError(`invalid leader epoch ${epoch}`);
    const cached = this.epochCache.latestEpoch();
    const latest = cached ?? (minimumEpoch > 0 ? minimumEpoch : undefined);
    if (latest !== undefined && epoch < latest) {
      throw new InvalidRecordError(`leader epoch ${epoch} is below the log's latest epoch ${latest}`);
    }
    const firstOffset = this.logEndOffsetValue;
    let nextOffset = firstOffset;
    let maxTimestampMs = Number.NEGATIVE_INFINITY;
    let position = 0;
    while (position < buffer.length) {
      const size = this.checkIncomingBatch(buffer, position, true);
      maxTimestampMs = Math.max(maxTimestampMs, batchMaxTimestamp(buffer, position));
      writeOffset(buffer, position, nextOffset);
      buffer.writeInt32BE(epoch, position + PARTITION_LEADER_EPOCH_OFFSET);
      nextOffset += buffer.readInt32BE(position + LAST_OFFSET_DELTA_OFFSET) + 1;
      position += size;
    }
    if (cached === undefined || epoch > cached) this.epochCache.assign(epoch, firstOffset);
    this.appendValidated(records, nextOffset - 1, buffer.length, maxTimestampMs);
    return { firstOffset, lastOffset: nextOffset - 1 };
  }

  /**
   * Appends batches fetched from the leader, keeping their offsets and epochs: the first must
   * start at the log end, each must follow the previous one, epochs may not go backwards nor exceed
   * `epoch`. A trailing partial batch (a byte-limited fetch) is dropped, as Kafka does.
   */
  appendAsFollower(records: Records, epoch: number, minimumEpoch = 0): LogAppendInfo {
    this.ensureOpen();
    const memory = records instanceof FileRecords ? this.readIntoMemory(records) : records;
    const buffer = memory.buffer();
    const firstOffset = this.logEndOffsetValue;
    const newEpochs: EpochEntry[] = [];
    const cachedEpoch = this.epochCache.latestEpoch();
    let latest = cachedEpoch ?? minimumEpoch - 1;
    let expectedOffset = firstOffset;
    let maxTimestampMs = Number.NEGATIVE_INFINITY;
    let position = 0;
    while (position < buffer.length) {
      const size = this.checkIncomingBatch(buffer, position, false);
      if (size === BATCH_INCOMPLETE) break;
      maxTimestampMs = Math.max(maxTimestampMs, batchMaxTimestamp(buffer, position));
      const baseOffset = batchBaseOffset(buffer, position);
      if (baseOffset !== expectedOffset) {
        throw new InvalidRecordError(
          `batch at offset ${baseOffset} does not follow the log end ${expectedOffset}`,
        );
      }
      const batchEpoch = batchLeaderEpoch(buffer, position);
      if (batchEpoch < latest || batchEpoch > epoch) {
        throw new InvalidRecordError(
          `batch at offset ${baseOffset} has epoch ${batchEpoch}: below ${latest} or above the leader's ${epoch}`,
        );
      }
      if (batchEpoch > latest || (cachedEpoch === undefined && newEpochs.length === 0))
        newEpochs.push({ epoch: batchEpoch, startOffset: baseOffset });
      latest = batchEpoch;
      expectedOffset = batchLastOffset(buffer, position) + 1;
      position += size;
    }
    if (position === 0) throw new InvalidRecordError('no complete batch to append');
    for (const entry of newEpochs) this.epochCache.assign(entry.epoch, entry.startOffset);
    const valid =
      position === buffer.length ? memory : MemoryRecords.readableRecords(buffer.subarray(0, position));
    this.appendValidated(valid, expectedOffset - 1, position, maxTimestampMs);
    return { firstOffset, lastOffset: expectedOffset - 1 };
  }

  /** Batch size, BATCH_INCOMPLETE for a trailing partial batch (follower only), or a typed error. */
  private checkIncomingBatch(buffer: Buffer, position: number, requireComplete: boolean): number {
    if (buffer.length - position >= LOG_OVERHEAD) {
      const declared = batchSizeAt(buffer, position);
      if (declared > this.config.maxBatchSizeInBytes) {
        throw new InvalidRecordError(
          `batch of ${declared} bytes exceeds the maximum ${this.config.maxBatchSizeInBytes}`,
        );
      }
    }
    const size = checkBatchAt(buffer, position, buffer.length, this.config.maxBatchSizeInBytes);
    if (size === BATCH_CORRUPT)
      throw new LogCorruptionError(`corrupt batch at byte ${position} of the appended records`);
    if (size === BATCH_INCOMPLETE && requireComplete) {
      throw new InvalidRecordError(`partial batch at byte ${position} of the appended records`);
    }
    return size;
  }

  private readIntoMemory(records: FileRecords): MemoryRecords {
    const size = records.sizeInBytes();
    // Kafka's record sets are int32-sized; anything larger cannot be a fetch response.
    if (size > MAX_APPEND_BYTES)
      throw new InvalidRecordError(`records of ${size} bytes are too large to append at once`);
    const buffer = Buffer.allocUnsafe(size);
    records.readInto(buffer, 0);
    return MemoryRecords.readableRecords(buffer);
  }

  /** `maxTimestampMs`: the batches' largest max timestamp, gathered by the validation walk. */
  private appendValidated(
    records: MemoryRecords,
    lastOffset: number,
    sizeInBytes: number,
    maxTimestampMs: number,
  ): void {
    const pending = this.pendingTruncation;
    if (pending !== undefined && pending.heldSizeInBytes + sizeInBytes > MAX_HELD_APPEND_BYTES) {
      this.logger.warn(
        { heldBytes: pending.heldSizeInBytes, offset: pending.offset },
        'appends held behind a truncation exceed their bound: making the truncation durable now',
      );
      this.settlePendingTruncationNow();
    }
    if (this.pendingTruncation === undefined) {
      this.writeToSegments(records, lastOffset, sizeInBytes, maxTimestampMs);
    } else {
      this.pendingTruncation.heldAppends.push({
        // A copy: the caller may reuse its buffer (a network read buffer) once the append returns.
        records: MemoryRecords.readableRecords(Buffer.from(records.buffer())),
        lastOffset,
        maxTimestampMs,
      });
      this.pendingTruncation.heldSizeInBytes += sizeInBytes;
    }
    this.logEndOffsetValue = lastOffset + 1;
  }

  private writeToSegments(
    records: MemoryRecords,
    lastOffset: number,
    sizeInBytes: number,
    maxTimestampMs: number,
  ): void {
    const nowMs = this.time();
    let active = this.segments.last() as LogSegment;
    if (active.shouldRoll({ sizeInBytes, lastOffset, maxTimestampMs, nowMs })) active = this.roll(nowMs);
    active.append(records);
  }

  /** Starts a new active segment at the log end; the next flush makes its directory entry durable. */
  roll(nowMs = this.time()): LogSegment {
    // Trimming the active segment would cut its file before the recovery point is lowered.
    this.settlePendingTruncationNow();
    const active = this.segments.last() as LogSegment;
    if (active.isEmpty()) return active;
    active.onBecomeInactive();
    const baseOffset = active.nextOffset();
    const segment = LogSegment.create(this.fileSystem, this.directory, baseOffset, this.config, nowMs);
    this.segments.add(segment);
    this.directoryDirty = true;
    this.logger.debug({ offset: baseOffset }, 'rolled segment');
    return segment;
  }

  /**
   * Reads from `startOffset` (at least one batch when there is data): one segment's bytes up to
   * `maxSizeBytes`, stopping exactly at the high watermark's byte position for committed reads.
   */
  read(startOffset: number, isolation: Isolation, maxSizeBytes = Number.MAX_SAFE_INTEGER): LogFetchInfo {
    this.ensureOpen();
    if (!(maxSizeBytes >= 0)) throw new InvalidLogOperationError(`invalid maxSizeBytes ${maxSizeBytes}`);
    if (
      !Number.isSafeInteger(startOffset) ||
      startOffset < this.logStartOffsetValue ||
      startOffset > this.logEndOffsetValue
    ) {
      throw new OffsetOutOfRangeError(
        `offset ${startOffset} is outside the log [${this.logStartOffsetValue}, ${this.logEndOffsetValue}]`,
      );
    }
    const maxOffset = isolation === 'committed' ? this.highWatermarkValue : this.logEndOffsetValue;
    if (this.pendingTruncation !== undefined && startOffset >= this.writtenEndOffset())
      return this.readHeld(this.pendingTruncation, startOffset, maxOffset, maxSizeBytes);
    let segment = startOffset < maxOffset ? this.segments.floor(startOffset) : undefined;
    while (segment !== undefined) {
      const limit = isolation === 'committed' ? this.committedLimit(segment) : segment.sizeInBytes();
      const location = segment.translateOffset(startOffset, limit);
      if (location !== undefined) {
        const size = Math.min(limit - location.position, Math.max(maxSizeBytes, location.sizeInBytes));
        return {
          records: segment.slice(location.position, size),
          startOffsetMetadata: {
            offset: location.baseOffset,
            segmentBaseOffset: segment.baseOffset,
            relativePositionBytes: location.position,
          },
        };
      }
      segment = this.segments.next(segment);
    }
    return this.emptyRead(startOffset);
  }

  /**
   * Reads appends held behind a pending truncation, from memory: the batch holding `startOffset`
   * and those after it in the same append, within `maxSizeBytes` (at least one batch) and below
   * `maxOffset` (whole batches only, as a committed read stops at the high watermark's batch).
   * Positions are those the bytes will have once written.
   */
  private readHeld(
    pending: PendingTruncation,
    startOffset: number,
    maxOffset: number,
    maxSizeBytes: number,
  ): LogFetchInfo {
    const active = this.segments.last();
    let positionBytes = active?.sizeInBytes() ?? 0;
    for (const held of pending.heldAppends) {
      if (held.lastOffset < startOffset) {
        positionBytes += held.records.sizeInBytes();
        continue;
      }
      const buffer = held.records.buffer();
      const start = batchesBelow(buffer, startOffset).sizeInBytes;
      const limit = batchesBelow(buffer, maxOffset).sizeInBytes;
      if (start >= limit) break;
      let end = start + batchSizeAt(buffer, start);
      while (end < limit && end + batchSizeAt(buffer, end) - start <= maxSizeBytes)
        end += batchSizeAt(buffer, end);
      return {
        records: MemoryRecords.readableRecords(buffer.subarray(start, end)),
        startOffsetMetadata: {
          offset: batchBaseOffset(buffer, start),
          segmentBaseOffset: active?.baseOffset ?? this.writtenEndOffset(),
          relativePositionBytes: positionBytes + start,
        },
      };
    }
    return this.emptyRead(startOffset);
  }

  private emptyRead(startOffset: number): LogFetchInfo {
    const segment = this.segments.floor(startOffset) ?? this.segments.first();
    if (segment === undefined) {
      // A full truncation not yet in the files: the log is empty at its new start.
      return {
        records: MemoryRecords.EMPTY,
        startOffsetMetadata: {
          offset: startOffset,
          segmentBaseOffset: this.writtenEndOffset(),
          relativePositionBytes: 0,
        },
      };
    }
    const position = segment.translateOffset(startOffset)?.position ?? segment.sizeInBytes();
    return {
      records: segment.slice(position, 0),
      startOffsetMetadata: {
        offset: startOffset,
        segmentBaseOffset: segment.baseOffset,
        relativePositionBytes: position,
      },
    };
  }

  /** How far a committed read may go in `segment`: its end, or the high watermark's position. */
  private committedLimit(segment: LogSegment): number {
    const location = this.highWatermarkLocation();
    if (segment === location.segment) return location.position;
    return segment.baseOffset < location.segmentBaseOffset ? segment.sizeInBytes() : 0;
  }

  /** The high watermark with its physical position, computed once per change. */
  highWatermarkMetadata(): LogOffsetMetadata {
    const location = this.highWatermarkLocation();
    return {
      offset: this.highWatermarkValue,
      segmentBaseOffset: location.segmentBaseOffset,
      relativePositionBytes: location.position,
    };
  }

  private highWatermarkLocation(): HighWatermarkLocation {
    if (this.highWatermarkCache !== undefined) return this.highWatermarkCache;
    const offset = this.highWatermarkValue;
    const segment = this.segments.floor(offset) ?? this.segments.first();
    if (segment === undefined) return { segment, segmentBaseOffset: this.writtenEndOffset(), position: 0 };
    let position = segment.sizeInBytes();
    if (offset < segment.nextOffset()) {
      // Committed reads end here: an offset the segment holds but cannot locate must fail closed,
      // never fall back to the segment end and expose what lies above the high watermark.
      const location = segment.translateOffset(offset);
      if (location === undefined) {
        throw new LogCorruptionError(
          `high watermark ${offset} not found in segment ${segment.baseOffset} (next offset ${segment.nextOffset()})`,
        );
      }
      position = location.position;
    }
    this.highWatermarkCache = { segment, segmentBaseOffset: segment.baseOffset, position };
    return this.highWatermarkCache;
  }

  /** Moves the high watermark up (clamped to [log start, log end]); lower values are ignored. */
  updateHighWatermark(offset: number): number {
    this.ensureOpen();
    const clamped = Math.min(Math.max(offset, this.logStartOffsetValue), this.logEndOffsetValue);
    if (clamped > this.highWatermarkValue) {
      this.highWatermarkValue = clamped;
      this.highWatermarkCache = undefined;
    }
    return this.highWatermarkValue;
  }

  /**
   * Removes offsets at and after `offset`; never below the high watermark. The log shows the cut
   * at once, but no file changes here: the next `flush` first lowers the recovery point durably,
   * then cuts the files, then writes what was appended since (see `PendingTruncation`).
   */
  truncateTo(offset: number): boolean {
    this.ensureOpen();
    if (!Number.isSafeInteger(offset) || offset < this.highWatermarkValue) {
      throw new InvalidLogOperationError(
        `cannot truncate to ${offset}, below the high watermark ${this.highWatermarkValue}`,
      );
    }
    if (offset >= this.logEndOffsetValue) return false;
    const pending = this.holdTruncation();
    if (offset < this.writtenEndOffset()) this.cutSegmentsInMemory(pending, offset);
    this.dropHeldAppendsFrom(pending, offset);
    this.epochCache.truncateFromEnd(offset);
    this.setLogEndAfterTruncation(
      (pending.heldAppends.at(-1)?.lastOffset ?? this.writtenEndOffset() - 1) + 1,
    );
    this.logger.debug({ offset }, 'truncated log (files cut on the next flush)');
    return true;
  }

  private holdTruncation(): PendingTruncation {
    if (this.pendingTruncation === undefined) {
      this.pendingTruncation = {
        offset: Number.POSITIVE_INFINITY,
        activeSegmentCut: false,
        removedSegments: [],
        heldAppends: [],
        heldSizeInBytes: 0,
        restartOffset: undefined,
      };
    }
    return this.pendingTruncation;
  }

  /** The log end of what the segments hold (held appends excluded); a full truncation's new start. */
  private writtenEndOffset(): number {
    const last = this.segments.last();
    return last === undefined ? (this.pendingTruncation?.restartOffset as number) : last.nextOffset();
  }

  private cutSegmentsInMemory(pending: PendingTruncation, offset: number): void {
    const first = this.segments.first();
    const removed = this.segments.removeWhere((segment) => segment !== first && segment.baseOffset > offset);
    pending.removedSegments.push(...removed);
    const active = this.segments.last() as LogSegment;
    active.truncateTo(offset, true);
    pending.activeSegmentCut = true;
    // The cut ends at a batch boundary, which may lie below `offset`: that is where recovery must
    // be allowed to find the log end.
    pending.offset = Math.min(pending.offset, active.nextOffset());
  }

  /**
   * Makes the pending truncation reach the files, in the order ADR 0029 argues: the recovery point
   * durably lowered, then the cut (ftruncate, unlinks), the epoch checkpoint durable, and only then
   * the held appends written (the flush that follows syncs them and the directory).
   */
  private async settlePendingTruncation(): Promise<void> {
    for (let pending = this.pendingTruncation; pending !== undefined; pending = this.pendingTruncation) {
      const offset = pending.offset;
      if (this.recoveryPointAbove(offset)) await this.writeRecoveryPointAsync(offset);
      if (this.pendingTruncation !== pending || pending.offset < offset) continue;
      if (pending.restartOffset !== undefined) {
        await this.settleFullTruncation(pending);
        continue;
      }
      this.cutFiles(pending);
      await this.epochCache.writeUnwritten();
      // Cut lower or appended a new epoch meanwhile: that too must be durable first.
      if (
        this.pendingTruncation !== pending ||
        pending.offset < offset ||
        this.epochCache.hasUnwrittenChanges()
      )
        continue;
      this.finishPendingTruncation(pending);
    }
  }

  /**
   * A full truncation's files, with the recovery point already durable at 0 (or holding the recovery
   * target): the epoch checkpoint written (empty, or the held appends' epochs); the old segments
   * above the new start unlinked, durably; the rest unlinked and the new one created; the held
   * appends written. The flush that follows syncs the directory before anything lets the recovery
   * point rise (ADR 0036).
   */
  private async settleFullTruncation(pending: PendingTruncation): Promise<void> {
    await this.epochCache.writeUnwritten();
    // Truncated or appended a new epoch meanwhile: the loop writes that first.
    if (this.pendingTruncation !== pending || this.epochCache.hasUnwrittenChanges()) return;
    if (this.unlinkSegmentsAboveRestart(pending)) {
      await this.fileSystem.syncDirectoryAsync(this.directory);
      if (this.pendingTruncation !== pending || this.epochCache.hasUnwrittenChanges()) return;
    }
    this.cutFiles(pending);
    this.finishPendingTruncation(pending);
  }

  /**
   * Unlinks the old segments above a full truncation's new start; true when there are any, and the
   * directory must be synced before the others go. Were they to outlive the lower ones, recovery
   * would start the log above the snapshot and delete that snapshot as below the log start.
   */
  private unlinkSegmentsAboveRestart(pending: PendingTruncation): boolean {
    const restartOffset = pending.restartOffset as number;
    const above = pending.removedSegments.filter((segment) => segment.baseOffset > restartOffset);
    for (const segment of above) if (!segment.deleted) segment.delete();
    return above.length > 0;
  }

  /** `settlePendingTruncation` with the syncs on the event loop: close, roll, overflow. */
  private settlePendingTruncationNow(): void {
    const pending = this.pendingTruncation;
    if (pending === undefined) return;
    this.lowerRecoveryPoint(pending.offset);
    if (pending.restartOffset !== undefined) {
      // In the flush's order: the epochs, then the segments above the new start, durably.
      this.epochCache.persistUnwritten();
      if (this.unlinkSegmentsAboveRestart(pending)) this.fileSystem.syncDirectory(this.directory);
    }
    this.cutFiles(pending);
    this.finishPendingTruncation(pending);
  }

  private cutFiles(pending: PendingTruncation): void {
    // A full truncation's old files come back beside the snapshot at its new start, which the
    // open installs again; any other cut stays undoable until the next flush syncs it.
    if (pending.restartOffset === undefined) {
      this.unsyncedCutOffset = Math.min(this.unsyncedCutOffset, pending.offset);
      this.fileCuts += 1;
    }
    if (pending.activeSegmentCut) (this.segments.last() as LogSegment).cutFileToSize();
    pending.activeSegmentCut = false;
    const removed = pending.removedSegments.splice(0);
    if (removed.length > 0) {
      this.retire(removed);
      this.directoryDirty = true;
    }
    const restartOffset = pending.restartOffset;
    if (restartOffset === undefined) return;
    // Only now that the old files are unlinked: one of them may carry the same name.
    this.segments.add(
      LogSegment.create(this.fileSystem, this.directory, restartOffset, this.config, this.time()),
    );
    pending.restartOffset = undefined;
    this.directoryDirty = true;
  }

  /** The files hold the cut and the epochs are durable (or written now): write the held appends. */
  private finishPendingTruncation(pending: PendingTruncation): void {
    this.pendingTruncation = undefined;
    this.epochCache.persistUnwritten();
    for (const held of pending.heldAppends)
      this.writeToSegments(held.records, held.lastOffset, held.records.sizeInBytes(), held.maxTimestampMs);
    this.highWatermarkCache = undefined;
  }

  /** Drops held appends at and after `offset`, cutting the one that holds it after its last batch below. */
  private dropHeldAppendsFrom(pending: PendingTruncation, offset: number): void {
    const index = pending.heldAppends.findIndex((held) => held.lastOffset >= offset);
    if (index === -1) return;
    const straddling = pending.heldAppends.splice(index)[0] as HeldAppend;
    // Nothing is kept when the append starts at or after `offset`.
    const kept = batchesBelow(straddling.records.buffer(), offset);
    if (kept.sizeInBytes > 0) {
      pending.heldAppends.push({
        ...straddling,
        records: MemoryRecords.readableRecords(straddling.records.buffer().subarray(0, kept.sizeInBytes)),
        lastOffset: kept.lastOffset,
      });
    }
    pending.heldSizeInBytes = pending.heldAppends.reduce(
      (total, held) => total + held.records.sizeInBytes(),
      0,
    );
  }

  /**
   * Drops every segment and starts an empty log at `offset` (after installing a snapshot). In
   * memory at once: reads and appends see the empty log at `offset`, appends are held. No file
   * changes here: the next flush lowers the recovery point to 0, writes the epoch checkpoint,
   * unlinks the old segments, creates the new one and syncs the directory (ADR 0036). A crash
   * before that finds the old log, which the snapshot (frozen first) makes the open install again.
   */
  truncateFullyAndStartAt(offset: number): void {
    this.ensureOpen();
    const pending = this.holdTruncation();
    pending.removedSegments.push(...this.segments.removeWhere(() => true));
    // The active segment goes as a whole: its file is unlinked, never cut.
    pending.activeSegmentCut = false;
    // Any subset of the unlinks may reach the disk before the directory sync, leaving any prefix
    // of the old log or none (recovery then starts an empty log at 0): only 0 is below them all.
    pending.offset = 0;
    pending.restartOffset = offset;
    pending.heldAppends.splice(0);
    pending.heldSizeInBytes = 0;
    this.restarts += 1;
    this.epochCache.clear();
    // The frozen snapshot holds everything below `offset`: a recovery from the quorum it reaches is over.
    if (this.recoveryTarget !== undefined && offset >= this.recoveryTarget) this.finishRecovery(offset);
    this.logStartOffsetValue = offset;
    this.highWatermarkValue = offset;
    this.setLogEndAfterTruncation(offset);
    // Durable through the snapshot, not the segments: see RaftLog.truncateToLatestSnapshot.
    this.flushedOffset = offset;
    this.logger.info({ offset }, 'truncated the whole log (files changed on the next flush)');
  }

  /** Before removing batches below the recovery point (not while recovering: the target stays). */
  private lowerRecoveryPoint(offset: number): void {
    if (this.recoveryPointAbove(offset)) this.writeRecoveryPointNow(offset);
  }

  /** Whether the checkpoint may hold more than `offset` and must be lowered before a cut there. */
  private recoveryPointAbove(offset: number): boolean {
    // The bytes on file count, not only what is durable: a background write may be syncing more.
    const onFile = Math.max(
      this.recoveryPointOnFile ?? offset + 1,
      this.checkpointedRecoveryPoint ?? offset + 1,
    );
    return this.recoveryTarget === undefined && onFile > offset;
  }

  private finishRecovery(durableOffset: number): void {
    this.logger.info(
      { recoveryTarget: this.recoveryTarget, flushedOffset: durableOffset },
      'fetched and flushed back past the old recovery point: the lost flushed data is recovered',
    );
    this.recoveryTarget = undefined;
  }

  private setLogEndAfterTruncation(logEndOffset: number): void {
    this.logEndOffsetValue = logEndOffset;
    this.flushedOffset = Math.min(this.flushedOffset, logEndOffset);
    this.truncatedDuringFlush = Math.min(this.truncatedDuringFlush, logEndOffset);
    this.highWatermarkCache = undefined;
  }

  /**
   * On open: restores a log start that a snapshot had moved inside the first segment, capped at the
   * log end (the snapshot then covers the rest: see RaftLog.truncateToLatestSnapshot).
   */
  restoreLogStartOffset(offset: number): void {
    const restored = Math.min(offset, this.logEndOffsetValue);
    if (restored <= this.logStartOffsetValue) return;
    this.logStartOffsetValue = restored;
    this.highWatermarkValue = Math.max(this.highWatermarkValue, restored);
    this.highWatermarkCache = undefined;
    this.epochCache.truncateFromStart(restored);
  }

  /**
   * Raises the log start (up to the high watermark); the epoch cache forgets what lies below.
   * False, and nothing changes, at or below the current start or above a pending truncation.
   */
  maybeIncrementLogStartOffset(offset: number): boolean {
    this.ensureOpen();
    if (offset > this.highWatermarkValue) {
      throw new OffsetOutOfRangeError(
        `cannot move the log start to ${offset}, above the high watermark ${this.highWatermarkValue}`,
      );
    }
    if (offset <= this.logStartOffsetValue) return false;
    // The caller makes the new start durable at once. Above a truncation not yet in the files, a
    // power loss could bring the removed batches back around it, the start inside one of them:
    // wait for the flush that settles the truncation. After a full truncation they come back
    // beside the snapshot at the new start, which is ahead of them: the open installs it again.
    const pending = this.pendingTruncation;
    if (pending !== undefined && pending.restartOffset === undefined && pending.offset < offset) return false;
    // The same for a cut already in the files but not yet synced (a roll or close settles a
    // truncation with an ftruncate and leaves its sync to the next flush).
    if (this.unsyncedCutOffset < offset) return false;
    this.logStartOffsetValue = offset;
    this.epochCache.truncateFromStart(offset);
    return true;
  }

  /** Deletes segments wholly below the log start (never the active one); returns how many. */
  deleteOldSegments(): number {
    const all = this.segments.all();
    const removed = this.segments.removeWhere(
      (_segment, index) =>
        index < all.length - 1 && (all[index + 1] as LogSegment).baseOffset <= this.logStartOffsetValue,
    );
    this.retire(removed);
    if (removed.length > 0) {
      this.fileSystem.syncDirectory(this.directory);
      this.highWatermarkCache = undefined;
    }
    return removed.length;
  }

  /**
   * fdatasync of everything appended so far, off the event loop; resolves to the durable log end.
   * Calls are serialized. A truncation while a flush is in flight caps what that flush reports.
   */
  flush(): Promise<number> {
    const run = this.flushChain.then(() => this.flushNow());
    this.flushChain = run.catch(() => undefined);
    return run;
  }

  private async flushNow(): Promise<number> {
    this.ensureOpen();
    try {
      this.throwCheckpointFailure();
      await this.settlePendingTruncation();
      const cutsBeforeSync = this.fileCuts;
      const target = this.logEndOffsetValue;
      this.truncatedDuringFlush = Number.POSITIVE_INFINITY;
      // The epochs of the batches below `target` durable before those batches are synced and
      // reported (ADR 0033): until then a batch of a new epoch is at or above the recovery point,
      // where recovery cuts it as a torn tail. No truncation is pending here (settled just above,
      // no await since), so these entries never describe a cut the files do not hold yet.
      await this.epochCache.writeUnwritten();
      if (this.directoryDirty) {
        this.directoryDirty = false;
        // Every full truncation whose files changed (none still pending) is durable after this sync.
        const restarts =
          this.pendingTruncation?.restartOffset === undefined ? this.restarts : this.durableRestarts;
        await this.fileSystem.syncDirectoryAsync(this.directory).catch((error: unknown) => {
          this.directoryDirty = true;
          throw error;
        });
        this.durableRestarts = Math.max(this.durableRestarts, restarts);
      }
      for (const segment of this.segments.all().filter((each) => each.hasUnflushedData())) {
        try {
          await segment.flushAsync();
        } catch (error) {
          // A segment deleted by a truncation meanwhile has nothing left to make durable.
          if (!segment.deleted) {
            segment.markUnflushed();
            throw error;
          }
        }
      }
      // Every cut made before the syncs above is durable now; a later one waits for the next flush.
      if (this.fileCuts === cutsBeforeSync) this.unsyncedCutOffset = Number.POSITIVE_INFINITY;
      const durable = Math.min(target, this.truncatedDuringFlush, this.logEndOffsetValue);
      this.flushedOffset = Math.max(this.flushedOffset, durable);
      // Safe before the checkpoint catches up: it still holds the target, which is <= what is durable.
      if (this.recoveryTarget !== undefined && this.flushedOffset >= this.recoveryTarget)
        this.finishRecovery(this.flushedOffset);
      this.scheduleRecoveryPointWrite();
      return this.flushedOffset;
    } catch (error) {
      // close() settled, synced and closed everything itself meanwhile: what failed here is a
      // file it closed, not the disk. Say that, once, instead of an EBADF.
      if (this.closed)
        throw new InvalidLogOperationError('the log was closed during the flush', { cause: error });
      throw error;
    }
  }

  /**
   * Brings the checkpoint up to the flushed offset in the background: an in-place write and one
   * fdatasync off the event loop, never awaited by the flush, so the commit path pays no second
   * sync (ADR 0010). Until it lands, offsets the flush reported lie above the durable checkpoint:
   * the window in which damage to just-flushed bytes, found after a crash, is still cut as a torn
   * tail. At most one write runs; flushes meanwhile coalesce into the next one.
   */
  private scheduleRecoveryPointWrite(): void {
    // Until a full truncation's directory changes are durable, the flushed offset (its new start)
    // may lie above every old segment a crash could bring back: the next flush writes it.
    if (this.closed || this.durableRestarts !== this.restarts) return;
    if (this.checkpointWrite !== undefined) {
      this.checkpointBehind = true;
      return;
    }
    const offset = Math.max(this.flushedOffset, this.recoveryTarget ?? 0);
    if (offset === this.checkpointedRecoveryPoint && offset === this.recoveryPointOnFile) return;
    const generation = this.checkpointGeneration;
    this.recoveryPointOnFile = offset;
    this.checkpointWrite = this.recoveryPointFile
      .writeAsync(offset)
      .then(
        () => {
          if (generation === this.checkpointGeneration) this.checkpointedRecoveryPoint = offset;
        },
        (error: unknown) => {
          if (this.closed) return;
          this.checkpointFailure = error;
          this.checkpointedRecoveryPoint = undefined;
          this.recoveryPointOnFile = undefined;
        },
      )
      .finally(() => {
        this.checkpointWrite = undefined;
        if (!this.checkpointBehind) return;
        this.checkpointBehind = false;
        this.scheduleRecoveryPointWrite();
      });
  }

  /** A background checkpoint write failed: the disk is in trouble, so the next flush fails too. */
  private throwCheckpointFailure(): void {
    const failure = this.checkpointFailure;
    if (failure === undefined) return;
    this.checkpointFailure = undefined;
    throw failure;
  }

  /** Resolves once the checkpoint covers everything flushed so far (its background write settled). */
  async recoveryPointSettled(): Promise<void> {
    while (this.checkpointWrite !== undefined) await this.checkpointWrite;
    this.throwCheckpointFailure();
  }

  /** Trims, syncs and closes every segment, then writes the clean-shutdown marker. */
  close(): void {
    if (this.closed) return;
    this.settlePendingTruncationNow();
    // Before the recovery point rises to the log end below (and the marker trusts the checkpoint).
    this.epochCache.persistUnwritten();
    this.closed = true;
    this.releaseRetiredSegments();
    for (const segment of this.segments.all()) segment.close();
    this.fileSystem.syncDirectory(this.directory);
    if (this.recoveryTarget === undefined) this.writeRecoveryPointNow(this.logEndOffsetValue);
    // A background write still syncing keeps the handle until it settles.
    const file = this.recoveryPointFile;
    if (this.checkpointWrite === undefined) file.close();
    else void this.checkpointWrite.finally(() => file.close());
    const marker = JSON.stringify({ version: 0, logEndOffset: this.logEndOffsetValue });
    writeFileAtomically(
      this.fileSystem,
      joinPath(this.directory, CLEAN_SHUTDOWN_FILE),
      Buffer.from(marker, 'utf8'),
    );
  }

  /**
   * Deletes `segments` but keeps their log files open for one more deletion round: a slice handed
   * out earlier (a fetch response still being sent) stays readable, as Kafka's delayed file
   * deletion allows. Segments retired by the previous round are closed now.
   */
  private retire(segments: readonly LogSegment[]): void {
    if (segments.length === 0) return;
    this.releaseRetiredSegments();
    // A full truncation unlinked some already (those above its new start).
    for (const segment of segments) if (!segment.deleted) segment.delete();
    this.retiredSegments = [...segments];
  }

  private releaseRetiredSegments(): void {
    for (const segment of this.retiredSegments) {
      try {
        segment.release();
      } catch (error) {
        // The file is already unlinked: failing to close it loses nothing, but say so.
        this.logger.warn({ err: error, segment: segment.baseOffset }, 'closing a deleted segment failed');
      }
    }
    this.retiredSegments = [];
  }

  /**
   * Called once the whole open succeeded, before anything is written: from here on a crash is an
   * unclean stop. An open that fails keeps the marker, so the next start is not misled into
   * treating the same files as a torn tail.
   */
  removeCleanShutdownMarker(): void {
    const path = joinPath(this.directory, CLEAN_SHUTDOWN_FILE);
    if (this.fileSystem.exists(path)) deleteFileDurably(this.fileSystem, path);
  }

  private ensureOpen(): void {
    if (this.closed) throw new InvalidLogOperationError('the log is closed');
  }
}

/** The log end recorded by a clean shutdown; else undefined. The marker is removed later. */
function readCleanShutdownMarker(fileSystem: FileSystem, directory: string): number | undefined {
  const path = joinPath(directory, CLEAN_SHUTDOWN_FILE);
  const bytes = readSmallFile(fileSystem, path);
  if (bytes === undefined) return undefined;
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null || !('logEndOffset' in parsed)) return undefined;
    const offset = (parsed as { logEndOffset: unknown }).logEndOffset;
    return typeof offset === 'number' && Number.isSafeInteger(offset) && offset >= 0 ? offset : undefined;
  } catch {
    return undefined;
  }
}

function readCheckpointOrUndefined(
  checkpoint: LeaderEpochCheckpointFile,
  logger: Logger,
): EpochEntry[] | undefined {
  try {
    return checkpoint.read();
  } catch (error) {
    logger.warn({ err: error }, 'unreadable leader-epoch-checkpoint; rebuilding it from the log');
    return undefined;
  }
}

/** Deletes files a crash can leave behind: temporaries, deleted segments, indexes without a log. */
function removeStrayFiles(fileSystem: FileSystem, directory: string): void {
  const names = fileSystem.list(directory);
  const logs = new Set(names.filter((name) => name.endsWith('.log')).map((name) => name.slice(0, -4)));
  let removed = false;
  for (const name of names) {
    const isStray =
      (STRAY_SUFFIXES.some((suffix) => name.endsWith(suffix)) && !name.endsWith('.checkpoint.deleted')) ||
      ((name.endsWith(INDEX_FILE_SUFFIX) || name.endsWith(TIME_INDEX_FILE_SUFFIX)) &&
        !logs.has(name.replace(/\.(time)?index$/, '')));
    if (isStray) {
      fileSystem.unlink(joinPath(directory, name));
      removed = true;
    }
  }
  if (removed) fileSystem.syncDirectory(directory);
}
