import { invariant, type Logger, silentLogger } from '@kraft/protocol';
import { type Batch, ControlRecordType, type Records, RecordsIterator } from '@kraft/records';
import type { OffsetAndEpoch, RaftLog } from '../ports/raft-log.js';
import { VoterSet } from '../voter-set.js';
import { MAX_BATCH_SIZE_BYTES } from './batch-accumulator.js';
import { DEFAULT_MAX_LOG_HISTORY_ENTRIES, LogHistory } from './log-history.js';
import { VoterSetHistory } from './voter-set-history.js';

/** What the state machine reads: the log's bounds, its uncommitted reads, and its latest snapshot. */
export type ControlRecordLog = Pick<
  RaftLog,
  'startOffset' | 'endOffset' | 'read' | 'latestSnapshotId' | 'readSnapshot'
>;

/**
 * What the code that changes the log tells the state machine (the narrow view the follower's
 * fetch path and the leader's epoch start get): the log grew or its start moved, or its tail was cut.
 */
export type ControlRecordsTracker = Pick<
  KRaftControlRecordStateMachine,
  'updateState' | 'truncateNewEntries'
>;

/** The kraft.version of a log with no KRaftVersionRecord: static voters. */
const DEFAULT_KRAFT_VERSION = 0;

export interface KRaftControlRecordStateMachineOptions {
  /** The voters of `controller.quorum.voters`: the set wherever the log holds no VotersRecord. */
  readonly staticVoterSet: VoterSet;
  readonly log: ControlRecordLog;
  /** The most bytes one log read asks for (the log still returns one whole batch when it is larger). */
  readonly readBufferBytes?: number;
  /** The bound on each history (voter sets, kraft.versions). */
  readonly maxHistoryEntries?: number;
  readonly logger?: Logger;
}

/**
 * Kafka's `KRaftControlRecordStateMachine` (KIP-853): follows the control records of the log that
 * say who votes (VotersRecord) and which kraft.version is finalized (KRaftVersionRecord), from the
 * latest snapshot (the bootstrap checkpoint of a formatted dynamic quorum included) through the log
 * **end**, uncommitted records included: a voter change takes effect when it is appended, not when
 * it commits (KIP-853), so that the new set is the one that commits it.
 *
 * Pure: it reads through the core's log port with the log's own bounded reads (`read` at the log
 * end isolation and a byte cap, a snapshot's `records()`) and the RecordsIterator, which never
 * reads a byte past the end of the slice it is given (KAFKA-20841). It keeps no bytes: only the
 * offset it has read up to and the two histories.
 *
 * The core calls `updateState` after the log grows or its start moves and `truncateNewEntries`
 * after it truncates the log's tail. `updateState` also notices on its own a log that now ends
 * below what was read or starts past it, so a missed call cannot leave a set from a cut tail
 * in force; but a tail cut and regrown between two calls is only seen through
 * `truncateNewEntries`.
 */
export class KRaftControlRecordStateMachine {
  private readonly log: ControlRecordLog;
  private readonly logger: Logger;
  private readonly readBufferBytes: number;
  private readonly voterSetHistory: VoterSetHistory;
  private readonly kraftVersionHistory: LogHistory<number>;
  /** The next log offset to read: everything below it has been read (from the log or a snapshot). */
  private nextOffset = 0;
  /** The log start when the state was last brought up to date; undefined before the first update. */
  private observedStartOffset: number | undefined;

  constructor(options: KRaftControlRecordStateMachineOptions) {
    const maxEntries = options.maxHistoryEntries ?? DEFAULT_MAX_LOG_HISTORY_ENTRIES;
    this.log = options.log;
    this.logger = options.logger ?? silentLogger;
    this.readBufferBytes = options.readBufferBytes ?? MAX_BATCH_SIZE_BYTES;
    this.voterSetHistory = new VoterSetHistory(options.staticVoterSet, maxEntries);
    this.kraftVersionHistory = new LogHistory<number>(maxEntries);
  }

  // --- reading the log ----------------------------------------------------------------------

  /**
   * Brings the histories up to the log end: the latest snapshot first when the log start moved
   * past what was read (or on the first call), then every batch from the next offset on.
   */
  updateState(): void {
    this.maybeLoadSnapshot();
    const endOffset = this.log.endOffset();
    if (endOffset < this.nextOffset) this.truncateNewEntries(endOffset);
    this.readLogToEnd(endOffset);
  }

  /** The log was truncated to end at `endOffset` (divergence): what was read at or above it is gone. */
  truncateNewEntries(endOffset: number): void {
    this.voterSetHistory.truncateNewEntries(endOffset);
    this.kraftVersionHistory.truncateNewEntries(endOffset);
    // Read the new tail again from the cut; without this a regrown tail below the old next
    // offset would never be read.
    this.nextOffset = Math.min(this.nextOffset, endOffset);
  }

  /** The log now starts at `startOffset`: entries below it go, except the ones in force there. */
  truncateOldEntries(startOffset: number): void {
    this.voterSetHistory.truncateOldEntries(startOffset);
    this.kraftVersionHistory.truncateOldEntries(startOffset);
  }

  private maybeLoadSnapshot(): void {
    const startOffset = this.log.startOffset();
    const previousStart = this.observedStartOffset;
    this.observedStartOffset = startOffset;
    // Most updates find the start where it was: nothing to look up.
    if (previousStart !== undefined && startOffset <= previousStart) return;
    const latest = this.log.latestSnapshotId();
    if (previousStart === undefined) {
      // The first update reads the latest snapshot, as Kafka's listener does from offset 0.
      if (latest !== undefined) this.loadSnapshot(latest);
      return;
    }
    // The start moved. Retention keeps the log from the snapshot on: what was read stays true.
    // A fetched snapshot that replaced the log (it ended below the snapshot, or past it in a
    // tail the snapshot overrides) makes the snapshot the truth again.
    // (At the start exactly, the log ended at the snapshot, maybe in another epoch: reloading is
    // always right, since the snapshot holds the set in force at its end.)
    const replaced = this.nextOffset <= startOffset || this.nextOffset > this.log.endOffset();
    if (replaced && latest !== undefined) this.loadSnapshot(latest);
    else this.truncateOldEntries(startOffset);
  }

  /**
   * Replaces the histories with the snapshot's control records, which hold at its last contained
   * offset (-1 for the bootstrap checkpoint 0-0). Kafka's snapshot writer puts KRaftVersionRecord
   * and VotersRecord in the header batch, so reading stops at the first data batch: a snapshot's
   * data can be large and holds no control record.
   */
  private loadSnapshot(snapshotId: OffsetAndEpoch): void {
    const raw = this.log.readSnapshot(snapshotId);
    invariant(
      raw !== undefined,
      () => `latest snapshot ${snapshotId.offset}-${snapshotId.epoch} cannot be read`,
    );
    this.voterSetHistory.clear();
    this.kraftVersionHistory.clear();
    const lastContainedOffset = snapshotId.offset - 1;
    for (const batch of this.batchesOf(raw.records())) {
      if (!batch.isControl) break;
      this.handleControlBatch(batch, lastContainedOffset);
    }
    this.nextOffset = snapshotId.offset;
    this.logger.info(
      { offset: snapshotId.offset, epoch: snapshotId.epoch, voters: this.lastVoterSet().toString() },
      'control records loaded from snapshot',
    );
  }

  private readLogToEnd(endOffset: number): void {
    while (this.nextOffset < endOffset) {
      const before = this.nextOffset;
      const info = this.log.read(this.nextOffset, 'uncommitted', this.readBufferBytes);
      for (const batch of this.batchesOf(info.records)) {
        // A read starts at the batch holding the offset: skip what was read before.
        if (batch.lastOffset < this.nextOffset) continue;
        if (batch.isControl) this.handleControlBatch(batch, undefined);
        this.nextOffset = batch.lastOffset + 1;
      }
      invariant(
        this.nextOffset > before,
        () => `a log read at ${before} below the log end ${endOffset} returned no batch`,
      );
    }
  }

  /** The batches of `records`; data batches come without their records (nothing here reads them). */
  private batchesOf(records: Records): RecordsIterator {
    return new RecordsIterator(records, {
      maxBatchSizeBytes: this.readBufferBytes,
      decodeDataRecords: false,
    });
  }

  /** Adds the batch's voter sets and kraft.versions, each at its record's offset (or `overrideOffset`). */
  private handleControlBatch(batch: Batch, overrideOffset: number | undefined): void {
    for (const record of batch.controlRecords) {
      const offset = overrideOffset ?? record.offset;
      // A batch the log cut in the middle is read again from the cut; its records below were read.
      if (overrideOffset === undefined && offset < this.nextOffset) continue;
      if (record.type === ControlRecordType.KRAFT_VOTERS) {
        this.voterSetHistory.addAt(offset, VoterSet.fromVotersRecord(record.message));
      } else if (record.type === ControlRecordType.KRAFT_VERSION) {
        this.addKRaftVersionAt(offset, record.message.kRaftVersion);
      }
    }
  }

  /** As for voter sets, a record restating the kraft.version read from the log adds no entry. */
  private addKRaftVersionAt(offset: number, kraftVersion: number): void {
    const last = this.kraftVersionHistory.lastEntry();
    if (last !== undefined && last.offset >= 0 && last.value === kraftVersion) return;
    this.kraftVersionHistory.addAt(offset, kraftVersion);
  }

  // --- what it knows ------------------------------------------------------------------------

  /** The next log offset to read: the state reflects every record below it. */
  nextOffsetToRead(): number {
    return this.nextOffset;
  }

  /** The latest voter set: the last VotersRecord up to the log end, else the static voters. */
  lastVoterSet(): VoterSet {
    return this.voterSetHistory.lastValue();
  }

  /**
   * The offset of the last VotersRecord that changed the voter set, or undefined while the set is
   * the static one. A leader has an uncommitted voter change while this is at or above its high
   * watermark (see `hasUncommittedVoterChange`).
   */
  lastVoterSetOffset(): number | undefined {
    return this.voterSetHistory.lastEntry()?.offset;
  }

  /**
   * True while the last voter change is not committed below `highWatermark`. KIP-853 allows one
   * voter change at a time: a leader appends a VotersRecord only when this is false.
   */
  hasUncommittedVoterChange(highWatermark: number): boolean {
    const offset = this.lastVoterSetOffset();
    return offset !== undefined && offset >= highWatermark;
  }

  /** The voter set in force at `offset` (below the next offset to read): what a snapshot ending after it stores. */
  voterSetAtOffset(offset: number): VoterSet {
    this.checkOffsetWasRead(offset);
    return this.voterSetHistory.valueAtOrBefore(offset);
  }

  /** The finalized kraft.version: the last KRaftVersionRecord up to the log end, else 0. */
  lastKRaftVersion(): number {
    return this.kraftVersionHistory.lastEntry()?.value ?? DEFAULT_KRAFT_VERSION;
  }

  /** The kraft.version in force at `offset` (below the next offset to read). */
  kraftVersionAtOffset(offset: number): number {
    this.checkOffsetWasRead(offset);
    return this.kraftVersionHistory.valueAtOrBefore(offset) ?? DEFAULT_KRAFT_VERSION;
  }

  private checkOffsetWasRead(offset: number): void {
    invariant(
      offset < this.nextOffset,
      () => `offset ${offset} is not read yet: the control records are read up to ${this.nextOffset - 1}`,
    );
  }
}
