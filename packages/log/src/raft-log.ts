import { IllegalStateError, type Logger, silentLogger, Uuid } from '@kraft/protocol';
import {
  ControlRecordType,
  CorruptRecordError,
  type FileSystem,
  type MemoryRecords,
  NodeFileSystem,
  type Records,
  RecordsIterator,
} from '@kraft/records';
import { LogConfig } from './config/log-config.js';
import {
  InconsistentLogStateError,
  InvalidConfigurationError,
  InvalidLogOperationError,
  InvalidRecordError,
  LogCorruptionError,
} from './errors/log-errors.js';
import { joinPath } from './files/atomic-file.js';
import { LogDirectoryLock } from './files/log-directory-lock.js';
import {
  LOG_START_OFFSET_CHECKPOINT_FILE,
  LogStartOffsetCheckpointFile,
} from './files/log-start-offset-checkpoint-file.js';
import { PARTITION_METADATA_FILE, PartitionMetadataFile } from './files/partition-metadata-file.js';
import {
  RECOVERY_POINT_OFFSET_CHECKPOINT_FILE,
  RecoveryPointCheckpointFile,
} from './files/recovery-point-checkpoint-file.js';
import { checkRaftLogOpenOptions } from './raft-log-open-options.js';
import {
  compareOffsetAndEpoch,
  type FollowerAppendRejection,
  type FollowerAppendResult,
  formatOffsetAndEpoch,
  type Isolation,
  type LogAppendInfo,
  type LogFetchInfo,
  type LogOffsetMetadata,
  type LostFlushedDataPolicy,
  type OffsetAndEpoch,
  type RawSnapshotReader,
  type RawSnapshotWriter,
  type ValidOffsetAndEpoch,
} from './raft-log-types.js';
import { SegmentedLog } from './segment/segmented-log.js';
import { FileRawSnapshotReader } from './snapshot/file-raw-snapshot-reader.js';
import { FileRawSnapshotWriter } from './snapshot/file-raw-snapshot-writer.js';
import {
  deletedSnapshotFilePath,
  parseSnapshotFileName,
  snapshotFilePath,
} from './snapshot/snapshot-path.js';

/** Kafka's metadata partition; the test server uses `__raft_performance_test-0`. */
export const METADATA_TOPIC_PARTITION = '__cluster_metadata-0';

/** What {@link RaftLog.open} opens; only `dir` is required. */
export interface RaftLogOpenOptions {
  /** The metadata log directory (`metadata.log.dir`); the partition directory is created inside. */
  readonly dir: string;
  /** Segment size, index interval, retention and the like; default `new LogConfig()`. */
  readonly config?: LogConfig;
  /** The file port; default a new `NodeFileSystem` (node:fs). */
  readonly fileSystem?: FileSystem;
  /** Where recovery and snapshot housekeeping report; default silent. */
  readonly logger?: Logger;
  /** `<topic>-<partition>`, the partition directory's name. */
  readonly topicPartition?: string;
  /**
   * Written to `partition.metadata` when absent (Kafka's metadata topic id by default); a directory
   * holding another topic id is refused.
   */
  readonly topicId?: Uuid;
  /** Milliseconds clock for segment rolls; read once per append, never elsewhere. */
  readonly time?: () => number;
  /**
   * The caller's lock on `dir`, when it took it earlier (the test server locks its directory
   * before reading anything). It stays the caller's: the log does not release it. Without it,
   * `open` locks `<dir>/.lock` itself and `close` releases it.
   */
  readonly lock?: LogDirectoryLock;
  /**
   * Damage below the recovery point (lost flushed data): `refuse` (default) throws
   * `FlushedDataLossError`; see `LostFlushedDataPolicy` for the others.
   */
  readonly lostFlushedData?: LostFlushedDataPolicy;
}

interface SnapshotEntry {
  readonly id: OffsetAndEpoch;
  reader: FileRawSnapshotReader | undefined;
  /** The header's `lastContainedLogTimestamp`, read once: a frozen snapshot never changes. */
  lastContainedLogTimestamp?: number;
}

/**
 * The replicated log under a KRaft replica (Kafka's `KafkaRaftLog`): a segmented log on disk
 * plus raft snapshots. Synchronous except `flush()`. See the package README for the layout.
 *
 * @example
 * ```ts
 * import { RaftLog } from '@kraft/log';
 * import { MemoryRecordsBuilder } from '@kraft/records';
 *
 * const log = RaftLog.open({ dir: '/var/lib/kraft/metadata' });
 * const builder = new MemoryRecordsBuilder({ baseOffset: log.endOffset() });
 * builder.append({ timestamp: Date.now(), value: Buffer.from('record') });
 * const { lastOffset } = log.appendAsLeader(builder.build(), 1);
 * await log.flush(); // durable up to lastOffset + 1
 * log.updateHighWatermark(lastOffset + 1);
 * const { records } = log.read(0, 'committed');
 * log.close();
 * ```
 */
export class RaftLog {
  private readonly snapshots: SnapshotEntry[] = [];
  /**
   * Readers of deleted snapshots, closed one deletion round later (or on close): a FetchSnapshot
   * answer may still be streaming from one (Kafka delays the file deletion for the same reason).
   */
  private retiredReaders: FileRawSnapshotReader[] = [];
  private nextPartialSnapshotId = 0;

  private constructor(
    private readonly log: SegmentedLog,
    private readonly fileSystem: FileSystem,
    readonly directory: string,
    readonly topicId: Uuid,
    private readonly logger: Logger,
    private readonly logStartCheckpoint: LogStartOffsetCheckpointFile,
    private readonly topicPartition: string,
    /** The directory lock `open` took itself (undefined when the caller handed one in). */
    private readonly ownedLock: LogDirectoryLock | undefined,
  ) {}

  /**
   * Opens (creating if needed) `<dir>/<topicPartition>`: recovers the segments, deletes partial and
   * deleted snapshot files and snapshots below the log start, refuses a log start above 0 with no
   * snapshot covering it (KAFKA-14240), then truncates fully if the latest snapshot is ahead of the
   * log (a follower that crashed after fetching a snapshot). Locks `dir` first (unless the caller
   * hands in its lock): a directory another process uses is refused before anything is read.
   */
  static open(options: RaftLogOpenOptions): RaftLog {
    checkRaftLogOpenOptions(options);
    const fileSystem = options.fileSystem ?? new NodeFileSystem();
    if (options.lock !== undefined) {
      requireHeldLockFor(options.lock, options.dir);
      return RaftLog.openLocked(options, fileSystem, undefined);
    }
    const ownedLock = LogDirectoryLock.acquire(fileSystem, options.dir);
    try {
      return RaftLog.openLocked(options, fileSystem, ownedLock);
    } catch (error) {
      ownedLock.release();
      throw error;
    }
  }

  private static openLocked(
    options: RaftLogOpenOptions,
    fileSystem: FileSystem,
    ownedLock: LogDirectoryLock | undefined,
  ): RaftLog {
    const topicPartition = options.topicPartition ?? METADATA_TOPIC_PARTITION;
    const directory = joinPath(options.dir, topicPartition);
    const logger = (options.logger ?? silentLogger).child({ component: 'raft-log', topicPartition });
    const created = !fileSystem.exists(directory);
    fileSystem.mkdir(directory);
    // A new partition directory's own entry must survive a power loss too.
    if (created) fileSystem.syncDirectory(options.dir);
    const topicId = ensurePartitionMetadata(fileSystem, directory, options.topicId);
    const log = SegmentedLog.open({
      directory,
      config: options.config ?? new LogConfig(),
      fileSystem,
      logger,
      time: options.time ?? Date.now,
      recoveryPointFile: new RecoveryPointCheckpointFile(
        fileSystem,
        joinPath(options.dir, RECOVERY_POINT_OFFSET_CHECKPOINT_FILE),
        topicPartition,
      ),
      ...(options.lostFlushedData === undefined ? {} : { lostFlushedData: options.lostFlushedData }),
    });
    const logStartCheckpoint = new LogStartOffsetCheckpointFile(
      fileSystem,
      joinPath(options.dir, LOG_START_OFFSET_CHECKPOINT_FILE),
    );
    const savedLogStart = readLogStartOrUndefined(logStartCheckpoint, topicPartition, logger);
    if (savedLogStart !== undefined) log.restoreLogStartOffset(savedLogStart);
    const raftLog = new RaftLog(
      log,
      fileSystem,
      directory,
      topicId,
      logger,
      logStartCheckpoint,
      topicPartition,
      ownedLock,
    );
    raftLog.recoverSnapshots();
    // Every check passed: only now may the next start take this directory for an unclean one.
    log.removeCleanShutdownMarker();
    raftLog.truncateToLatestSnapshot();
    return raftLog;
  }

  private recoverSnapshots(): void {
    const logStartOffset = this.log.logStartOffset();
    const retained: OffsetAndEpoch[] = [];
    const toDelete: string[] = [];
    for (const name of this.fileSystem.list(this.directory)) {
      const parsed = parseSnapshotFileName(name);
      if (parsed === undefined) continue;
      if (parsed.partial || parsed.deleted || parsed.snapshotId.offset < logStartOffset) toDelete.push(name);
      else retained.push(parsed.snapshotId);
    }
    retained.sort(compareOffsetAndEpoch);
    const latest = retained[retained.length - 1];
    if (logStartOffset > 0 && (latest === undefined || latest.offset < logStartOffset)) {
      throw new InconsistentLogStateError(
        `there must be a snapshot at or above the log start offset ${logStartOffset}, but the latest is ${latest === undefined ? 'none' : formatOffsetAndEpoch(latest)}`,
      );
    }
    for (const name of toDelete) this.fileSystem.unlink(joinPath(this.directory, name));
    if (toDelete.length > 0) this.fileSystem.syncDirectory(this.directory);
    for (const id of retained) this.snapshots.push({ id, reader: undefined });
    this.logger.info(
      { snapshots: retained.map(formatOffsetAndEpoch), deleted: toDelete.length },
      'initialized snapshots',
    );
  }

  /** Assigns offsets from the log end and `epoch` to every batch; epochs never go backwards. */
  appendAsLeader(records: MemoryRecords, epoch: number): LogAppendInfo {
    return this.log.appendAsLeader(records, epoch, this.snapshotEpochFloor());
  }

  /**
   * Appends fetched batches that must continue the log exactly; a trailing partial batch is
   * dropped. Records that fail the checks are `rejected` with nothing appended (the segmented log
   * validates every batch before it writes one); IO failures still throw.
   */
  appendAsFollower(records: Records, epoch: number): FollowerAppendResult {
    try {
      return { kind: 'appended', info: this.log.appendAsFollower(records, epoch, this.snapshotEpochFloor()) };
    } catch (error) {
      const rejection = followerAppendRejection(error);
      if (rejection === undefined) throw error;
      return rejection;
    }
  }

  /** With no batch in the log, appends may not carry an epoch older than the snapshot it starts at. */
  private snapshotEpochFloor(): number {
    if (this.log.epochCache.latestEpoch() !== undefined) return 0;
    const snapshotId = this.latestSnapshotId();
    return snapshotId !== undefined && snapshotId.offset === this.startOffset() ? snapshotId.epoch : 0;
  }

  /**
   * Batches from the one holding `startOffset`, up to the high watermark (`committed`) or the
   * log end (`uncommitted`), from a single segment, at most `maxSizeBytes` (default unbounded)
   * but always at least one whole batch when one is readable, so a fetch always progresses.
   *
   * @throws {@link OffsetOutOfRangeError} when `startOffset` is outside [log start, log end].
   * @throws {@link InvalidLogOperationError} for a negative `maxSizeBytes` or a closed log.
   */
  read(startOffset: number, isolation: Isolation, maxSizeBytes?: number): LogFetchInfo {
    return this.log.read(startOffset, isolation, maxSizeBytes);
  }

  /**
   * The log start offset: the first offset still in the log. Never above the latest snapshot's
   * end offset, so every record below it is in a snapshot.
   */
  startOffset(): number {
    return this.log.logStartOffset();
  }

  /** The log end offset: the offset the next appended record gets (Kafka's `endOffset().offset`). */
  endOffset(): number {
    return this.log.logEndOffset();
  }

  /**
   * The high watermark: offsets below it are committed. Held in memory only and starts at the
   * log start after a restart, as in Kafka, until the leader tells it again.
   */
  highWatermark(): number {
    return this.log.highWatermark();
  }

  /** The high watermark with its segment and byte position. */
  highWatermarkMetadata(): LogOffsetMetadata {
    return this.log.highWatermarkMetadata();
  }

  /**
   * Raises the high watermark to `offset`, clamped to [log start, log end]; a lower value is
   * ignored, since the high watermark never goes back.
   *
   * @throws {@link InvalidLogOperationError} when the log is closed.
   */
  updateHighWatermark(offset: number): void {
    this.log.updateHighWatermark(offset);
  }

  /** Epoch of the last batch; for an empty log sitting on a snapshot, that snapshot's epoch; else 0. */
  lastFetchedEpoch(): number {
    const latestEpoch = this.log.epochCache.latestEpoch();
    if (latestEpoch !== undefined) return latestEpoch;
    const snapshotId = this.latestSnapshotId();
    if (snapshotId === undefined) return 0;
    if (snapshotId.offset === this.startOffset() && snapshotId.offset === this.endOffset())
      return snapshotId.epoch;
    throw new IllegalStateError(
      `the log has no epoch but a snapshot ${formatOffsetAndEpoch(snapshotId)}: expected it at the log start ${this.startOffset()} and end ${this.endOffset()}`,
    );
  }

  /** Kafka's `endOffsetForEpoch`, with its override to the oldest snapshot at the log start. */
  endOffsetForEpoch(epoch: number): OffsetAndEpoch {
    const found = this.log.epochCache.endOffsetFor(epoch, this.endOffset());
    if (found === undefined) return { offset: this.endOffset(), epoch: this.lastFetchedEpoch() };
    const earliest = this.earliestSnapshotId();
    if (earliest !== undefined && found.offset === earliest.offset && found.epoch === epoch) {
      return { offset: earliest.offset, epoch: earliest.epoch };
    }
    return found;
  }

  /** Kafka's `RaftLog.validateOffsetAndEpoch` (kraft-behaviour.md §2.5). */
  validateOffsetAndEpoch(offset: number, epoch: number): ValidOffsetAndEpoch {
    const startOffset = this.startOffset();
    if (startOffset === 0 && offset === 0) return { kind: 'valid' };
    const earliest = this.earliestSnapshotId();
    if (
      earliest !== undefined &&
      (offset < startOffset || (offset === startOffset && epoch !== earliest.epoch) || epoch < earliest.epoch)
    ) {
      const latest = this.latestSnapshotId() as OffsetAndEpoch;
      return { kind: 'snapshot', offsetAndEpoch: latest };
    }
    const endOffsetAndEpoch = this.endOffsetForEpoch(epoch);
    if (endOffsetAndEpoch.epoch !== epoch || endOffsetAndEpoch.offset < offset) {
      return { kind: 'diverging', offsetAndEpoch: endOffsetAndEpoch };
    }
    return { kind: 'valid' };
  }

  /**
   * Removes every record at and after `offset` (a follower whose log diverged from the leader's)
   * and makes the cut durable at once, with the epoch entries of the removed batches. An offset
   * at or past the log end does nothing.
   *
   * @throws {@link InvalidLogOperationError} when `offset` is below the high watermark (committed
   * records are never removed) or the log is closed.
   * @throws FileSystemError when the truncation or its sync fails.
   */
  truncateTo(offset: number): void {
    this.log.truncateTo(offset);
  }

  /**
   * After a snapshot was fetched: when the latest snapshot is ahead of the log (a higher epoch than
   * the log's latest, an offset past the log end, or at the log end in another epoch), drop the
   * whole log and start it at the snapshot. The log shows the change at once; its segment files,
   * recovery point and epoch checkpoint change in the next `flush` (ADR 0036). A crash before that
   * finds the old log beside the frozen snapshot and the new log start, and `open` installs it again.
   * The log-start checkpoint is written first, synchronously, unless `freezeFetchedSnapshot` already
   * made this start durable (ADR 0039).
   */
  truncateToLatestSnapshot(): boolean {
    const snapshotId = this.latestSnapshotId();
    if (snapshotId === undefined || !this.isAheadOfLog(snapshotId)) return false;
    if (!this.logStartCheckpoint.isDurable(this.topicPartition, snapshotId.offset)) {
      this.logStartCheckpoint.write(this.topicPartition, snapshotId.offset);
    }
    this.log.truncateFullyAndStartAt(snapshotId.offset);
    // The flush that settles the install syncs this directory (the segments live here too). Older
    // snapshots a crash brings back before it lie below the log start or the reinstalled snapshot,
    // and the open deletes them again.
    this.removeSnapshotsBefore(snapshotId, false);
    return true;
  }

  /**
   * Whether installing `snapshotId` replaces the log. Kafka asks for an equal epoch in the second
   * clause; we accept any snapshot at or past the log end unless the log already ends exactly at it
   * in its epoch. Safe: everything committed here lies below the high watermark <= the log end <=
   * the snapshot offset, so the (committed) snapshot holds it; a tail from another epoch ending at
   * or before the snapshot is uncommitted (a leader's entries that never committed: sim seed 705).
   */
  private isAheadOfLog(snapshotId: OffsetAndEpoch): boolean {
    const latestEpoch = this.log.epochCache.latestEpoch() ?? 0;
    const endOffset = this.endOffset();
    return (
      snapshotId.epoch > latestEpoch ||
      snapshotId.offset > endOffset ||
      (snapshotId.offset === endOffset && snapshotId.epoch !== latestEpoch)
    );
  }

  /**
   * The durable half of installing a fetched snapshot, every sync off the event loop (ADR 0039):
   * freezes `writer` (fdatasync, rename to its final name, directory sync) without announcing it,
   * then, when the snapshot is ahead of the log, writes its offset to the log-start checkpoint
   * atomically (fdatasync, rename, directory sync). The log shows nothing new: the caller then
   * announces the snapshot (`onSnapshotFrozen`) and installs it (`truncateToLatestSnapshot`), which
   * finds the log start durable and writes nothing. A crash at any step leaves a state `open`
   * already handles: no snapshot (the partial file is deleted), or a durable snapshot beside the
   * old log, with the old log start or the new one capped at the recovered end; `open` installs
   * the snapshot again.
   *
   * @throws IllegalStateError when `writer` is frozen, closed or freezing.
   * @throws FileSystemError when a sync or rename fails.
   */
  async freezeFetchedSnapshot(writer: RawSnapshotWriter): Promise<void> {
    await writer.freezeAsync({ register: false });
    if (this.isAheadOfLog(writer.snapshotId)) {
      await this.logStartCheckpoint.writeAsync(this.topicPartition, writer.snapshotId.offset);
    }
  }

  /**
   * Records that `epoch` starts at the log end, as a new leader does before appending in it
   * (Kafka's `initializeLeaderEpoch`); entries for this epoch or later ones are replaced. In memory
   * at once (`lastFetchedEpoch`, `endOffsetForEpoch`); the next `flush` writes the leader epoch
   * checkpoint off the event loop before it syncs or reports anything appended in `epoch` (ADR 0033).
   */
  initializeLeaderEpoch(epoch: number): void {
    this.log.epochCache.assign(epoch, this.endOffset());
  }

  /**
   * Makes every record appended so far durable, with the leader epochs they start (the epoch
   * checkpoint written, then fdatasync of the segments with unflushed data, all off the event
   * loop), and resolves with the new flushed offset. Flushes run one at a time, in
   * call order. The recovery point checkpoint catches up in the background.
   *
   * Rejects with `FileSystemError` when a sync fails (or an earlier background checkpoint write
   * did), and with {@link InvalidLogOperationError} when the log is closed.
   */
  flush(): Promise<number> {
    return this.log.flush();
  }

  /**
   * The flushed offset (exclusive): every record below it survives a crash. A leader counts
   * itself toward the high watermark only up to here.
   */
  lastFlushedOffset(): number {
    return this.log.lastFlushedOffset();
  }

  /**
   * Resolves once `recovery-point-offset-checkpoint` covers everything flushed so far: flushes
   * report before their checkpoint write lands (ADR 0010). For tests and orderly shutdowns.
   */
  recoveryPointSettled(): Promise<void> {
    return this.log.recoveryPointSettled();
  }

  /**
   * While this replica recovers flushed data it lost (opened with `recover-from-quorum`): the
   * offset it must fetch and flush back past before it may vote or lead again; else undefined.
   * Durable: a restart before then is still recovering.
   */
  recoveringUntilOffset(): number | undefined {
    return this.log.recoveringUntilOffset();
  }

  /** Total bytes of the log segments. */
  sizeInBytes(): number {
    return this.log.sizeInBytes();
  }

  /** Base offsets of the segments, oldest first (for tests and tools). */
  segmentBaseOffsets(): number[] {
    return this.log.segmentBaseOffsets();
  }

  /** Starts a new segment at the log end (Kafka rolls on size and age; tests roll on demand). */
  roll(): void {
    this.log.roll();
  }

  /**
   * A writer for a snapshot of the committed log up to `snapshotId.offset` (exclusive). Undefined
   * when that snapshot exists or lies below the log start; a typed error when it is above the high
   * watermark, not valid for the log's epochs, or not at a batch boundary.
   */
  createNewSnapshot(snapshotId: OffsetAndEpoch): RawSnapshotWriter | undefined {
    if (snapshotId.offset < this.startOffset()) {
      this.logger.info(
        { offset: snapshotId.offset, epoch: snapshotId.epoch },
        'snapshot id below the log start',
      );
      return undefined;
    }
    if (snapshotId.offset > this.highWatermark()) {
      throw new InvalidLogOperationError(
        `snapshot ${formatOffsetAndEpoch(snapshotId)} is above the high watermark ${this.highWatermark()}`,
      );
    }
    const validation = this.validateOffsetAndEpoch(snapshotId.offset, snapshotId.epoch);
    if (validation.kind !== 'valid') {
      throw new InvalidLogOperationError(
        `snapshot ${formatOffsetAndEpoch(snapshotId)} is not valid for the log: ${validation.kind}`,
      );
    }
    const baseOffset = this.read(snapshotId.offset, 'committed', 1).startOffsetMetadata.offset;
    if (baseOffset !== snapshotId.offset) {
      throw new InvalidLogOperationError(
        `snapshot offset ${snapshotId.offset} is not batch aligned: the batch holding it starts at ${baseOffset}`,
      );
    }
    return this.createNewSnapshotUnchecked(snapshotId);
  }

  /** A writer without the log checks: for a snapshot fetched from the leader (FetchSnapshot). */
  createNewSnapshotUnchecked(snapshotId: OffsetAndEpoch): RawSnapshotWriter | undefined {
    if (this.findSnapshot(snapshotId) !== undefined) return undefined;
    const unique = `${this.nextPartialSnapshotId++}`;
    return FileRawSnapshotWriter.create(this.fileSystem, this.directory, snapshotId, unique, (id) =>
      this.onSnapshotFrozen(id),
    );
  }

  /**
   * A reader of the frozen snapshot `snapshotId`, or undefined when the log has none by that id
   * (or its file has gone). Readers are shared and owned by the log: do not close them.
   *
   * @throws FileSystemError when the snapshot file cannot be opened.
   */
  readSnapshot(snapshotId: OffsetAndEpoch): RawSnapshotReader | undefined {
    const entry = this.findSnapshot(snapshotId);
    if (entry === undefined) return undefined;
    if (entry.reader === undefined) {
      if (!this.fileSystem.exists(snapshotFilePath(this.directory, snapshotId))) {
        this.logger.warn({ offset: snapshotId.offset, epoch: snapshotId.epoch }, 'snapshot file is missing');
        this.snapshots.splice(this.snapshots.indexOf(entry), 1);
        return undefined;
      }
      entry.reader = FileRawSnapshotReader.open(this.fileSystem, this.directory, snapshotId);
    }
    return entry.reader;
  }

  /** The id of the newest frozen snapshot (highest epoch, then offset), or undefined when none. */
  latestSnapshotId(): OffsetAndEpoch | undefined {
    return this.snapshots[this.snapshots.length - 1]?.id;
  }

  /** The id of the oldest frozen snapshot still kept, or undefined when none. */
  earliestSnapshotId(): OffsetAndEpoch | undefined {
    return this.snapshots[0]?.id;
  }

  /** Registers a frozen snapshot (called by the writers this log hands out). */
  onSnapshotFrozen(snapshotId: OffsetAndEpoch): void {
    if (this.findSnapshot(snapshotId) !== undefined) return;
    this.snapshots.push({ id: snapshotId, reader: undefined });
    this.snapshots.sort((left, right) => compareOffsetAndEpoch(left.id, right.id));
  }

  /**
   * When `snapshotId` is a known snapshot above the log start, at most the latest and at most the
   * high watermark: moves the log start to it, deletes the segments wholly below and the older
   * snapshots. A snapshot above the high watermark is skipped (false), not an error: after a restart
   * the high watermark starts low while snapshots written before sit above it, and the log start may
   * not pass the high watermark until the leader confirms it again.
   */
  deleteBeforeSnapshot(snapshotId: OffsetAndEpoch): boolean {
    if (!this.canDeleteBeforeSnapshot(snapshotId)) return false;
    if (!this.log.maybeIncrementLogStartOffset(snapshotId.offset)) return false;
    // Durable before any segment goes: after a crash the log start is at least where it was.
    this.logStartCheckpoint.write(this.topicPartition, snapshotId.offset);
    const deletedSegments = this.log.deleteOldSegments();
    const forgotten = this.removeSnapshotsBefore(snapshotId);
    return deletedSegments > 0 || forgotten > 0;
  }

  /** A known snapshot above the log start, at most the latest and at most the high watermark. */
  private canDeleteBeforeSnapshot(snapshotId: OffsetAndEpoch): boolean {
    const latest = this.latestSnapshotId();
    if (latest === undefined || this.findSnapshot(snapshotId) === undefined) return false;
    return (
      this.startOffset() < snapshotId.offset &&
      snapshotId.offset <= latest.offset &&
      snapshotId.offset <= this.highWatermark()
    );
  }

  /**
   * Retention (Kafka `maybeClean`): while log plus snapshots exceed `metadata.max.retention.bytes`,
   * or the oldest snapshot is older than `metadata.max.retention.ms` at `nowMs`, delete the oldest
   * snapshot and the log before the next one. The latest snapshot is always kept.
   */
  maybeClean(nowMs: number): boolean {
    // Both passes delete the oldest snapshot only while another one remains: nothing to do.
    if (this.snapshots.length < 2) return false;
    return this.cleanByRetentionBytes() || this.cleanByRetentionMs(nowMs);
  }

  private cleanByRetentionBytes(): boolean {
    const limit = this.config().retentionMaxBytes;
    if (limit < 0) return false;
    let snapshotBytes = 0;
    // A copy: `readSnapshot` forgets an entry whose file is gone, which must not skip the next one.
    for (const entry of [...this.snapshots]) snapshotBytes += this.readSnapshot(entry.id)?.sizeInBytes() ?? 0;
    return this.cleanOldestWhile((oldest, logSizeInBytes) => {
      if (logSizeInBytes + snapshotBytes <= limit) return false;
      snapshotBytes -= this.readSnapshot(oldest.id)?.sizeInBytes() ?? 0;
      return true;
    });
  }

  private cleanByRetentionMs(nowMs: number): boolean {
    const limit = this.config().retentionMs;
    if (limit < 0) return false;
    return this.cleanOldestWhile((oldest) => {
      const timestamp = this.lastContainedLogTimestamp(oldest);
      return timestamp !== undefined && nowMs - timestamp > limit;
    });
  }

  /**
   * Kafka deletes before each next snapshot in turn while `shouldDelete(oldest, logSizeInBytes)`
   * holds and two or more snapshots remain. This walks the same steps on paper (the log size each
   * step would leave) and then moves the log start once, to the last step's snapshot: the same
   * end state with one checkpoint write and one directory sync instead of one per snapshot.
   */
  private cleanOldestWhile(
    shouldDelete: (oldest: SnapshotEntry, logSizeInBytes: number) => boolean,
  ): boolean {
    let target: SnapshotEntry | undefined;
    for (let index = 0; index + 1 < this.snapshots.length; index += 1) {
      const oldest = this.snapshots[index] as SnapshotEntry;
      const next = this.snapshots[index + 1] as SnapshotEntry;
      if (!this.canDeleteBeforeSnapshot(next.id)) break;
      const logSizeInBytes =
        target === undefined ? this.log.sizeInBytes() : this.log.sizeInBytesFrom(target.id.offset);
      if (!shouldDelete(oldest, logSizeInBytes)) break;
      target = next;
    }
    return target !== undefined && this.deleteBeforeSnapshot(target.id);
  }

  /** The snapshot header's `lastContainedLogTimestamp` (its first control record). */
  private lastContainedLogTimestamp(entry: SnapshotEntry): number | undefined {
    if (entry.lastContainedLogTimestamp !== undefined) return entry.lastContainedLogTimestamp;
    const timestamp = this.readLastContainedLogTimestamp(entry.id);
    if (timestamp !== undefined) entry.lastContainedLogTimestamp = timestamp;
    return timestamp;
  }

  private readLastContainedLogTimestamp(snapshotId: OffsetAndEpoch): number | undefined {
    const reader = this.readSnapshot(snapshotId);
    if (reader === undefined || reader.sizeInBytes() === 0) return undefined;
    const first = new RecordsIterator(reader.records(), { maxBatchSizeBytes: 64 * 1024 }).next();
    if (first.done === true) return undefined;
    const header = first.value.controlRecords[0];
    if (header === undefined || header.type !== ControlRecordType.SNAPSHOT_HEADER) return undefined;
    return Number(header.message.lastContainedLogTimestamp);
  }

  private config(): LogConfig {
    return this.log.config;
  }

  /**
   * Flushes synchronously and writes the clean-shutdown marker; closes open snapshot readers;
   * releases the directory lock `open` took, even when closing fails.
   */
  close(): void {
    try {
      for (const entry of this.snapshots) entry.reader?.close();
      for (const reader of this.retiredReaders) reader.close();
      this.log.close();
    } finally {
      this.ownedLock?.release();
    }
  }

  private findSnapshot(snapshotId: OffsetAndEpoch): SnapshotEntry | undefined {
    return this.snapshots.find(
      (entry) => entry.id.offset === snapshotId.offset && entry.id.epoch === snapshotId.epoch,
    );
  }

  /**
   * Forgets snapshots ordered before `snapshotId`: renamed to `.deleted`, then removed, and the
   * directory synced unless the caller leaves that to the next flush.
   */
  private removeSnapshotsBefore(snapshotId: OffsetAndEpoch, syncDirectory = true): number {
    const expired = this.snapshots.filter((entry) => compareOffsetAndEpoch(entry.id, snapshotId) < 0);
    if (expired.length === 0) return 0;
    this.snapshots.splice(0, expired.length);
    for (const reader of this.retiredReaders) reader.close();
    this.retiredReaders = [];
    for (const entry of expired) {
      if (entry.reader !== undefined) this.retiredReaders.push(entry.reader);
      const deletedPath = deletedSnapshotFilePath(this.directory, entry.id);
      this.fileSystem.rename(snapshotFilePath(this.directory, entry.id), deletedPath);
      this.fileSystem.unlink(deletedPath);
      this.logger.info({ offset: entry.id.offset, epoch: entry.id.epoch }, 'deleted snapshot');
    }
    if (syncDirectory) this.fileSystem.syncDirectory(this.directory);
    return expired.length;
  }
}

/** Kafka's alias for the same class. */
export { RaftLog as KafkaRaftLog };

/** A lock handed to `open` must be held, and held for the directory being opened. */
function requireHeldLockFor(lock: LogDirectoryLock, dir: string): void {
  if (!lock.isFor(dir)) {
    throw new InvalidConfigurationError(`RaftLog.open: lock is for ${lock.directory}, not for dir ${dir}`);
  }
  if (!lock.isHeld()) throw new InvalidConfigurationError(`RaftLog.open: lock on ${dir} was released`);
}

/** Reads `partition.metadata`, writing it first when absent; a different topic id is refused. */
function ensurePartitionMetadata(
  fileSystem: FileSystem,
  directory: string,
  expected: Uuid | undefined,
): Uuid {
  const file = new PartitionMetadataFile(fileSystem, joinPath(directory, PARTITION_METADATA_FILE));
  const existing = file.read();
  if (existing === undefined) {
    const topicId = expected ?? Uuid.METADATA_TOPIC_ID;
    file.write(topicId);
    return topicId;
  }
  if (expected !== undefined && !existing.equals(expected)) {
    throw new InconsistentLogStateError(
      `${directory} belongs to topic id ${existing.toString()}, not ${expected.toString()}`,
    );
  }
  return existing;
}

/** The saved log start; an unreadable file only costs the fallback to the first segment's base. */
function readLogStartOrUndefined(
  checkpoint: LogStartOffsetCheckpointFile,
  topicPartition: string,
  logger: Logger,
): number | undefined {
  try {
    return checkpoint.read(topicPartition);
  } catch (error) {
    logger.warn(
      { err: error },
      'unreadable log-start-offset-checkpoint; using the first segment base offset',
    );
    return undefined;
  }
}

/**
 * The errors a follower append raises for bad input, by class: the segmented log's own checks
 * (InvalidRecordError, LogCorruptionError) and a batch `@kraft/records` could not decode
 * (CorruptRecordError). Undefined for anything else, which the caller rethrows.
 */
function followerAppendRejection(error: unknown): FollowerAppendRejection | undefined {
  if (error instanceof LogCorruptionError || error instanceof CorruptRecordError)
    return { kind: 'rejected', reason: 'corrupt', error };
  if (error instanceof InvalidRecordError) return { kind: 'rejected', reason: 'invalid', error };
  return undefined;
}
