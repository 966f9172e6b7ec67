import { invariant, KRaftError } from '@kraft/protocol';
import { CorruptRecordError, MemoryRecords, type Records } from '@kraft/records';
import { RaftLogStateError } from '../../src/errors/raft-log-state-error.js';
import type {
  FollowerAppendRejection,
  FollowerAppendResult,
  Isolation,
  LogAppendInfo,
  LogFetchInfo,
  OffsetAndEpoch,
  RaftLog,
  RawSnapshotReader,
  RawSnapshotWriter,
  ValidOffsetAndEpoch,
} from '../../src/ports/raft-log.js';

interface LogBatch {
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly epoch: number;
  readonly bytes: Buffer;
}

interface EpochStartOffset {
  readonly epoch: number;
  readonly startOffset: number;
}

/** Batch header fields that the CRC does not cover, so a leader append may rewrite them. */
const BASE_OFFSET_POSITION = 0;
const PARTITION_LEADER_EPOCH_POSITION = 12;

function snapshotKey(id: OffsetAndEpoch): string {
  return `${id.offset}:${id.epoch}`;
}

/**
 * The fetched batches as the log would store them, or the rejection of the first that does not
 * continue the log at `expectedOffset`. Throws CorruptRecordError for bytes that fail their checks.
 */
function followerBatches(
  records: MemoryRecords,
  expectedOffset: number,
): LogBatch[] | FollowerAppendRejection {
  const batches: LogBatch[] = [];
  let nextOffset = expectedOffset;
  for (const batch of records.batches()) {
    batch.ensureValid();
    if (batch.baseOffset !== nextOffset) {
      const error = new KRaftError(
        'INVALID_RECORD',
        `batch at ${batch.baseOffset} does not follow the log end ${nextOffset}`,
      );
      return { kind: 'rejected', reason: 'invalid', error };
    }
    batches.push({
      baseOffset: batch.baseOffset,
      lastOffset: batch.lastOffset,
      epoch: batch.partitionLeaderEpoch,
      bytes: Buffer.from(batch.bytes),
    });
    nextOffset = batch.lastOffset + 1;
  }
  return batches;
}

function compareIds(left: OffsetAndEpoch, right: OffsetAndEpoch): number {
  return left.offset !== right.offset ? left.offset - right.offset : left.epoch - right.epoch;
}

/**
 * An in-memory RaftLog (Kafka's `MockLog`): whole batches in an array, an epoch cache, snapshots
 * as byte buffers. Flushing is explicit (`flush()` / `flushSync()`); `crashAndReopen()` drops
 * everything not flushed and forgets the high watermark, like a hard kill.
 */
export class MockLog implements RaftLog {
  private batches: LogBatch[] = [];
  private epochStartOffsets: EpochStartOffset[] = [];
  private readonly snapshots = new Map<string, { id: OffsetAndEpoch; bytes: Buffer }>();
  private logStartOffset = 0;
  private highWatermarkOffset = 0;
  private flushedOffset = 0;
  /** See `startRecoveringLostData`. */
  private recoveryTarget: number | undefined;
  private closed = false;
  /** Counts flushes, for tests that check the core asked for one. */
  flushCount = 0;

  appendAsLeader(records: MemoryRecords, epoch: number): LogAppendInfo {
    const batches = [...records.batches()];
    invariant(batches.length > 0, () => 'appendAsLeader with no batches');
    let nextOffset = this.endOffset();
    const firstOffset = nextOffset;
    for (const batch of batches) {
      const bytes = Buffer.from(batch.bytes);
      bytes.writeBigInt64BE(BigInt(nextOffset), BASE_OFFSET_POSITION);
      bytes.writeInt32BE(epoch, PARTITION_LEADER_EPOCH_POSITION);
      const count = batch.lastOffsetDelta + 1;
      this.appendBatch({ baseOffset: nextOffset, lastOffset: nextOffset + count - 1, epoch, bytes });
      nextOffset += count;
    }
    return { firstOffset, lastOffset: nextOffset - 1 };
  }

  /**
   * Checks every batch (length, magic, CRC, contiguity) before appending any, as the real log
   * does, so a rejected fetch leaves the log as it was.
   */
  appendAsFollower(records: Records, _epoch: number): FollowerAppendResult {
    invariant(records instanceof MemoryRecords, () => 'MockLog appends MemoryRecords only');
    let batches: LogBatch[] | FollowerAppendRejection;
    try {
      batches = followerBatches(records, this.endOffset());
    } catch (error) {
      if (!CorruptRecordError.isCorruptRecordError(error)) throw error;
      return { kind: 'rejected', reason: 'corrupt', error };
    }
    if (!Array.isArray(batches)) return batches;
    const firstOffset = this.endOffset();
    for (const batch of batches) this.appendBatch(batch);
    return { kind: 'appended', info: { firstOffset, lastOffset: this.endOffset() - 1 } };
  }

  private appendBatch(batch: LogBatch): void {
    invariant(!this.closed, () => 'append to a closed log');
    const lastEpoch = this.epochStartOffsets.at(-1);
    if (lastEpoch === undefined || batch.epoch > lastEpoch.epoch) {
      this.epochStartOffsets.push({ epoch: batch.epoch, startOffset: batch.baseOffset });
    }
    this.batches.push(batch);
  }

  read(startOffset: number, isolation: Isolation, maxSizeBytes = Number.POSITIVE_INFINITY): LogFetchInfo {
    invariant(
      startOffset >= this.logStartOffset,
      () => `read at ${startOffset} below the log start ${this.logStartOffset}`,
    );
    const limitOffset = isolation === 'committed' ? this.highWatermarkOffset : this.endOffset();
    const selected: Buffer[] = [];
    let size = 0;
    let position = 0;
    for (const batch of this.batches) {
      if (batch.lastOffset < startOffset) {
        position += batch.bytes.length;
        continue;
      }
      if (batch.lastOffset >= limitOffset) break;
      if (selected.length > 0 && size + batch.bytes.length > maxSizeBytes) break;
      selected.push(batch.bytes);
      size += batch.bytes.length;
    }
    return {
      records: MemoryRecords.readableRecords(Buffer.concat(selected)),
      startOffsetMetadata: {
        offset: startOffset,
        segmentBaseOffset: this.logStartOffset,
        relativePositionBytes: position,
      },
    };
  }

  startOffset(): number {
    return this.logStartOffset;
  }

  endOffset(): number {
    const last = this.batches.at(-1);
    return last === undefined ? this.logStartOffset : last.lastOffset + 1;
  }

  highWatermark(): number {
    return this.highWatermarkOffset;
  }

  updateHighWatermark(offset: number): void {
    const clamped = Math.min(offset, this.endOffset());
    invariant(
      clamped >= this.highWatermarkOffset,
      () => `high watermark cannot go back from ${this.highWatermarkOffset} to ${clamped}`,
    );
    this.highWatermarkOffset = clamped;
  }

  lastFetchedEpoch(): number {
    const last = this.epochStartOffsets.at(-1);
    if (last !== undefined) return last.epoch;
    return this.latestSnapshotId()?.epoch ?? 0;
  }

  endOffsetForEpoch(epoch: number): OffsetAndEpoch {
    let lowerEpoch = this.earliestSnapshotId()?.epoch ?? 0;
    for (const entry of this.epochStartOffsets) {
      if (entry.epoch > epoch) return { offset: entry.startOffset, epoch: lowerEpoch };
      lowerEpoch = entry.epoch;
    }
    return { offset: this.endOffset(), epoch: this.lastFetchedEpoch() };
  }

  validateOffsetAndEpoch(offset: number, epoch: number): ValidOffsetAndEpoch {
    if (this.logStartOffset === 0 && offset === 0) return { kind: 'valid' };
    const earliest = this.earliestSnapshotId();
    if (
      earliest !== undefined &&
      (offset < this.logStartOffset ||
        (offset === this.logStartOffset && epoch !== earliest.epoch) ||
        epoch < earliest.epoch)
    ) {
      const latest = this.latestSnapshotId();
      invariant(latest !== undefined, () => 'a log with snapshots has a latest snapshot');
      return { kind: 'snapshot', offsetAndEpoch: latest };
    }
    const end = this.endOffsetForEpoch(epoch);
    if (end.epoch !== epoch || end.offset < offset) return { kind: 'diverging', offsetAndEpoch: end };
    return { kind: 'valid' };
  }

  truncateTo(offset: number): void {
    if (offset < this.highWatermarkOffset) {
      throw new RaftLogStateError(
        `cannot truncate to ${offset}, below the high watermark ${this.highWatermarkOffset}`,
      );
    }
    this.batches = this.batches.filter((batch) => batch.lastOffset < offset);
    this.epochStartOffsets = this.epochStartOffsets.filter((entry) => entry.startOffset < this.endOffset());
    this.flushedOffset = Math.min(this.flushedOffset, this.endOffset());
  }

  truncateToLatestSnapshot(): boolean {
    const latest = this.latestSnapshotId();
    if (latest === undefined) return false;
    const lastEpoch = this.epochStartOffsets.at(-1)?.epoch ?? 0;
    // As @kraft/log (wider than Kafka's equal-epoch rule): past the log end, or at it in another epoch.
    const endOffset = this.endOffset();
    const newer =
      latest.epoch > lastEpoch ||
      latest.offset > endOffset ||
      (latest.offset === endOffset && latest.epoch !== lastEpoch);
    if (!newer) return false;
    this.batches = [];
    this.epochStartOffsets = [];
    for (const [key, snapshot] of this.snapshots) {
      if (compareIds(snapshot.id, latest) < 0) this.snapshots.delete(key);
    }
    this.logStartOffset = latest.offset;
    this.highWatermarkOffset = Math.max(this.highWatermarkOffset, latest.offset);
    this.flushedOffset = latest.offset;
    return true;
  }

  initializeLeaderEpoch(epoch: number): void {
    const last = this.epochStartOffsets.at(-1);
    if (last === undefined || epoch > last.epoch)
      this.epochStartOffsets.push({ epoch, startOffset: this.endOffset() });
  }

  flush(): Promise<number> {
    return Promise.resolve(this.flushSync());
  }

  /** The synchronous flush tests use between polls. */
  flushSync(): number {
    this.flushCount += 1;
    this.flushedOffset = this.endOffset();
    if (this.recoveryTarget !== undefined && this.flushedOffset >= this.recoveryTarget)
      this.recoveryTarget = undefined;
    return this.flushedOffset;
  }

  lastFlushedOffset(): number {
    return this.flushedOffset;
  }

  /**
   * As `@kraft/log` opened with `recover-from-quorum` after cutting damage: the log must be fetched
   * and flushed back to `untilOffset` before the replica may vote. Survives `crashAndReopen`.
   */
  startRecoveringLostData(untilOffset: number): void {
    this.recoveryTarget = untilOffset;
  }

  recoveringUntilOffset(): number | undefined {
    return this.recoveryTarget;
  }

  /** A hard kill and restart: unflushed batches are gone, the high watermark is forgotten. */
  crashAndReopen(): void {
    this.truncateUnflushed();
    this.highWatermarkOffset = this.logStartOffset;
  }

  private truncateUnflushed(): void {
    this.batches = this.batches.filter((batch) => batch.lastOffset < this.flushedOffset);
    this.epochStartOffsets = this.epochStartOffsets.filter(
      (entry) => entry.startOffset < Math.max(this.endOffset(), this.logStartOffset + 1),
    );
  }

  createNewSnapshot(snapshotId: OffsetAndEpoch): RawSnapshotWriter | undefined {
    if (snapshotId.offset < this.logStartOffset) return undefined;
    if (snapshotId.offset > this.highWatermarkOffset) {
      throw new RaftLogStateError(
        `snapshot ${snapshotId.offset} is above the high watermark ${this.highWatermarkOffset}`,
      );
    }
    if (this.validateOffsetAndEpoch(snapshotId.offset, snapshotId.epoch).kind !== 'valid') {
      throw new RaftLogStateError(`snapshot ${snapshotId.offset}-${snapshotId.epoch} does not match the log`);
    }
    return this.createNewSnapshotUnchecked(snapshotId);
  }

  /** Durable at once in memory; the mock announces it on freeze (the core's announcement is then a no-op). */
  freezeFetchedSnapshot(writer: RawSnapshotWriter): Promise<void> {
    writer.freeze();
    return Promise.resolve();
  }

  createNewSnapshotUnchecked(snapshotId: OffsetAndEpoch): RawSnapshotWriter | undefined {
    if (this.snapshots.has(snapshotKey(snapshotId))) return undefined;
    return new MockRawSnapshotWriter(snapshotId, (bytes) => {
      this.snapshots.set(snapshotKey(snapshotId), { id: snapshotId, bytes });
      this.onSnapshotFrozen(snapshotId);
    });
  }

  readSnapshot(snapshotId: OffsetAndEpoch): RawSnapshotReader | undefined {
    const snapshot = this.snapshots.get(snapshotKey(snapshotId));
    return snapshot === undefined ? undefined : new MockRawSnapshotReader(snapshot.id, snapshot.bytes);
  }

  latestSnapshotId(): OffsetAndEpoch | undefined {
    let latest: OffsetAndEpoch | undefined;
    for (const { id } of this.snapshots.values())
      if (latest === undefined || compareIds(id, latest) > 0) latest = id;
    return latest;
  }

  earliestSnapshotId(): OffsetAndEpoch | undefined {
    let earliest: OffsetAndEpoch | undefined;
    for (const { id } of this.snapshots.values())
      if (earliest === undefined || compareIds(id, earliest) < 0) earliest = id;
    return earliest;
  }

  onSnapshotFrozen(_snapshotId: OffsetAndEpoch): void {
    // Registration happens when the writer freezes; nothing else to track in memory.
  }

  deleteBeforeSnapshot(snapshotId: OffsetAndEpoch): boolean {
    if (!this.snapshots.has(snapshotKey(snapshotId)) || snapshotId.offset > this.highWatermarkOffset)
      return false;
    if (snapshotId.offset <= this.logStartOffset) return false;
    this.batches = this.batches.filter((batch) => batch.lastOffset >= snapshotId.offset);
    invariant(
      this.batches.length === 0 || (this.batches[0] as LogBatch).baseOffset === snapshotId.offset,
      () => `snapshot ${snapshotId.offset} is not at a batch boundary`,
    );
    this.logStartOffset = snapshotId.offset;
    for (const [key, snapshot] of this.snapshots) {
      if (compareIds(snapshot.id, snapshotId) < 0) this.snapshots.delete(key);
    }
    return true;
  }

  maybeClean(_nowMs: number): boolean {
    return false;
  }

  close(): void {
    this.closed = true;
  }
}

class MockRawSnapshotWriter implements RawSnapshotWriter {
  readonly snapshotId: OffsetAndEpoch;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private frozen = false;
  private closed = false;
  private readonly onFreeze: (bytes: Buffer) => void;

  constructor(snapshotId: OffsetAndEpoch, onFreeze: (bytes: Buffer) => void) {
    this.snapshotId = snapshotId;
    this.onFreeze = onFreeze;
  }

  sizeInBytes(): number {
    return this.size;
  }

  append(records: MemoryRecords): void {
    this.appendUnaligned(records.buffer());
  }

  appendUnaligned(bytes: Buffer): void {
    invariant(!this.frozen && !this.closed, () => 'append to a frozen or closed snapshot');
    this.chunks.push(Buffer.from(bytes));
    this.size += bytes.length;
  }

  isFrozen(): boolean {
    return this.frozen;
  }

  freeze(): void {
    invariant(!this.frozen && !this.closed, () => 'freeze of a frozen or closed snapshot');
    this.frozen = true;
    this.onFreeze(Buffer.concat(this.chunks));
  }

  close(): void {
    this.closed = true;
  }
}

class MockRawSnapshotReader implements RawSnapshotReader {
  readonly snapshotId: OffsetAndEpoch;
  private readonly bytes: Buffer;

  constructor(snapshotId: OffsetAndEpoch, bytes: Buffer) {
    this.snapshotId = snapshotId;
    this.bytes = bytes;
  }

  sizeInBytes(): number {
    return this.bytes.length;
  }

  records(): Records {
    return MemoryRecords.readableRecords(this.bytes);
  }

  slice(position: number, size: number): Records {
    return MemoryRecords.readableRecords(
      this.bytes.subarray(position, Math.min(this.bytes.length, position + size)),
    );
  }

  close(): void {}
}
