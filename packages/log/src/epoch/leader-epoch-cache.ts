import { IllegalStateError } from '@kraft/protocol';
import type { OffsetAndEpoch } from '../raft-log-types.js';
import type { EpochEntry, LeaderEpochCheckpointFile } from './leader-epoch-checkpoint-file.js';

/**
 * Kafka's `LeaderEpochFileCache`: the start offset of each leader epoch present in the log, in
 * increasing epoch and offset order. Changes take effect in memory at once and reach the checkpoint
 * file only when the log writes them (ADR 0033): `writeUnwritten` in a flush, off the event loop,
 * before the flush syncs the batches they describe and reports them durable; `persistUnwritten` on
 * the rare synchronous paths (open, close, a snapshot install). So a batch whose epoch is not yet
 * in the durable checkpoint is never below the log's recovery point, and recovery cuts it there as
 * a torn tail (it also relies on the durable checkpoint to detect bit flips in the uncovered
 * epoch field).
 */
export class LeaderEpochCache {
  private entries: EpochEntry[];
  /** Entries changed since the last write that landed (or the file was never written). */
  private unwritten = false;
  /**
   * Bumped by every synchronous write: an asynchronous write that started before one must not
   * rename its `.tmp` (the synchronous write used the same `.tmp`, wrote newer entries and renamed
   * it already), as the log's recovery point does with its `checkpointGeneration`.
   */
  private writeGeneration = 0;
  /** An asynchronous write is under way (two would share the `.tmp`: the second rename fails). */
  private writing = false;

  constructor(
    private readonly checkpoint: LeaderEpochCheckpointFile | undefined,
    entries: readonly EpochEntry[] = [],
  ) {
    this.entries = [...entries];
  }

  /** Every entry, oldest epoch first. Not a copy, but never changed in place: changes replace the list. */
  all(): readonly EpochEntry[] {
    return this.entries;
  }

  /** The highest epoch in the log, or undefined when the cache is empty (no batch has an epoch). */
  latestEpoch(): number | undefined {
    return this.entries[this.entries.length - 1]?.epoch;
  }

  /** The entry of the highest epoch, or undefined when the cache is empty. */
  latestEntry(): EpochEntry | undefined {
    return this.entries[this.entries.length - 1];
  }

  /** The entry of the lowest epoch still in the log, or undefined when the cache is empty. */
  earliestEntry(): EpochEntry | undefined {
    return this.entries[0];
  }

  /**
   * Records that `epoch` starts at `startOffset`. A no-op for the latest epoch at a later offset;
   * otherwise entries that would break monotonicity (epoch or start offset not below the new one)
   * are dropped first, as Kafka's `assign` does. Returns whether anything changed.
   */
  assign(epoch: number, startOffset: number): boolean {
    const latest = this.latestEntry();
    if (latest !== undefined && latest.epoch === epoch && startOffset >= latest.startOffset) return false;
    const kept = this.entries.filter((entry) => entry.epoch < epoch && entry.startOffset < startOffset);
    kept.push({ epoch, startOffset });
    this.replace(kept);
    return true;
  }

  /** The epoch the batch at `offset` must carry, or undefined when `offset` precedes every entry. */
  epochForOffset(offset: number): number | undefined {
    let epoch: number | undefined;
    for (const entry of this.entries) {
      if (entry.startOffset > offset) break;
      epoch = entry.epoch;
    }
    return epoch;
  }

  /**
   * Kafka's `endOffsetFor(requestedEpoch, logEndOffset)`: the requested epoch (or the largest below
   * it) and the start offset of the next higher epoch; the log end offset for the latest epoch;
   * undefined when the epoch is above every known epoch or the cache is empty.
   */
  endOffsetFor(requestedEpoch: number, logEndOffset: number): OffsetAndEpoch | undefined {
    const latest = this.latestEntry();
    if (latest === undefined || requestedEpoch < 0) return undefined;
    if (requestedEpoch === latest.epoch) return { offset: logEndOffset, epoch: latest.epoch };
    const higherIndex = this.entries.findIndex((entry) => entry.epoch > requestedEpoch);
    if (higherIndex === -1) return undefined;
    const higher = this.entries[higherIndex] as EpochEntry;
    const floor = higherIndex === 0 ? undefined : (this.entries[higherIndex - 1] as EpochEntry);
    return { offset: higher.startOffset, epoch: floor === undefined ? requestedEpoch : floor.epoch };
  }

  /** Removes the entries starting at or after `endOffset` (the log was truncated there). */
  truncateFromEnd(endOffset: number): void {
    const kept = this.entries.filter((entry) => entry.startOffset < endOffset);
    if (kept.length !== this.entries.length) this.replace(kept);
  }

  /**
   * Drops entries wholly below `startOffset` and moves the last of them up to `startOffset`, so the
   * epoch in force at the new log start stays known (Kafka `truncateFromStart`).
   */
  truncateFromStart(startOffset: number): void {
    let lastBelow = -1;
    for (let index = 0; index < this.entries.length; index += 1) {
      if ((this.entries[index] as EpochEntry).startOffset <= startOffset) lastBelow = index;
    }
    if (lastBelow === -1) return;
    const moved = this.entries[lastBelow] as EpochEntry;
    if (lastBelow === 0 && moved.startOffset === startOffset) return;
    this.replace([{ epoch: moved.epoch, startOffset }, ...this.entries.slice(lastBelow + 1)]);
  }

  /**
   * Adds epochs found in the log before the first entry (data below a log start that moved up,
   * which is the log start again after a restart). Entries must be older than the first one; one of
   * the same epoch moves the first entry's start down.
   */
  restoreEarlierEntries(earlier: readonly EpochEntry[]): void {
    if (earlier.length === 0) return;
    const first = this.entries[0];
    const kept = earlier.filter((entry) => first === undefined || entry.epoch < first.epoch);
    const sameAsFirst =
      first === undefined ? undefined : earlier.find((entry) => entry.epoch === first.epoch);
    const rest =
      sameAsFirst === undefined
        ? this.entries
        : [
            {
              epoch: sameAsFirst.epoch,
              startOffset: Math.min(sameAsFirst.startOffset, (first as EpochEntry).startOffset),
            },
            ...this.entries.slice(1),
          ];
    this.replace([...kept, ...rest]);
  }

  /** Drops every entry (the log was deleted to restart at a snapshot). */
  clear(): void {
    if (this.entries.length > 0) this.replace([]);
  }

  /**
   * Writes the current entries synchronously (open, close, a snapshot install), superseding an
   * asynchronous `writeUnwritten` still in flight: that one then skips its rename.
   *
   * @throws FileSystemError when the checkpoint write fails.
   */
  persist(): void {
    this.writeGeneration += 1;
    this.unwritten = false;
    this.checkpoint?.write(this.entries);
  }

  /** `persist` when entries changed since the last write that landed. */
  persistUnwritten(): void {
    if (this.unwritten) this.persist();
  }

  /** Whether entries changed since the last write that landed. */
  hasUnwrittenChanges(): boolean {
    return this.unwritten;
  }

  /**
   * Writes the changed entries once, with the syncs off the event loop; the entries are taken
   * before the first await, so they cover every batch appended before the call. They count as
   * unwritten until the write lands, so a `persist` meanwhile writes them synchronously; that write
   * supersedes this one, which then skips its rename (never two writes through the `.tmp` at once).
   * Changes made meanwhile stay unwritten: the caller checks `hasUnwrittenChanges` when it must.
   * One at a time (the log calls it only inside its chained flushes).
   *
   * @throws IllegalStateError while another `writeUnwritten` is in flight.
   * @throws FileSystemError when the checkpoint write fails.
   */
  async writeUnwritten(): Promise<void> {
    if (this.writing) throw new IllegalStateError('an epoch checkpoint write is already in flight');
    if (this.checkpoint === undefined) this.unwritten = false;
    if (!this.unwritten || this.checkpoint === undefined) return;
    const generation = this.writeGeneration;
    const entries = this.entries;
    const stillCurrent = (): boolean => generation === this.writeGeneration;
    this.writing = true;
    try {
      await this.checkpoint.writeAsync(entries, stillCurrent);
    } finally {
      this.writing = false;
    }
    if (stillCurrent() && this.entries === entries) this.unwritten = false;
  }

  private replace(entries: EpochEntry[]): void {
    this.entries = entries;
    this.unwritten = true;
  }
}
