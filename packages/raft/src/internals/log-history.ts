import { checkInteger, invariant } from '@kraft/protocol';

/** One value of a {@link LogHistory} and the log offset it took effect at. */
export interface LogHistoryEntry<T> {
  readonly offset: number;
  readonly value: T;
}

/**
 * The lowest offset a value may be added at: -1 is the last contained offset of the bootstrap
 * checkpoint (snapshot 0-0), whose values hold before the first record of the log.
 */
export const LOG_HISTORY_MIN_OFFSET = -1;

/**
 * Entries a history holds by default. Entries are added only for a value that changed (see
 * VoterSetHistory) and dropped below every new log start, so reaching this means a log kept ten
 * thousand voter or kraft.version changes without one snapshot: something is broken.
 */
export const DEFAULT_MAX_LOG_HISTORY_ENTRIES = 10_000;

/**
 * Values by the log offset they took effect at (Kafka's `LogHistory`): the value at an offset is
 * the one added at the greatest offset at or before it. Offsets are added in increasing order (the
 * log is read forward), so a sorted array with appends at the end is enough; lookups bisect it.
 *
 * Truncation follows the log: `truncateNewEntries` when the log's tail is cut on divergence,
 * `truncateOldEntries` when its start moves to a snapshot.
 */
export class LogHistory<T> {
  private entries: LogHistoryEntry<T>[] = [];
  private readonly maxEntries: number;

  constructor(maxEntries: number = DEFAULT_MAX_LOG_HISTORY_ENTRIES) {
    checkInteger('LogHistory: maxEntries', maxEntries, { minimum: 1 });
    this.maxEntries = maxEntries;
  }

  /** Adds `value` at `offset`, which must be above every offset added so far (and at least -1). */
  addAt(offset: number, value: T): void {
    invariant(
      Number.isSafeInteger(offset) && offset >= LOG_HISTORY_MIN_OFFSET,
      () => `a log history offset must be an integer of at least ${LOG_HISTORY_MIN_OFFSET}, got ${offset}`,
    );
    const last = this.lastEntry();
    invariant(
      last === undefined || offset > last.offset,
      () => `a log history offset must grow: ${offset} after ${last?.offset}`,
    );
    invariant(
      this.entries.length < this.maxEntries,
      () => `the log history is full (${this.maxEntries} entries) at offset ${offset}`,
    );
    this.entries.push({ offset, value });
  }

  /** The value added at the greatest offset at or before `offset`, or undefined when there is none. */
  valueAtOrBefore(offset: number): T | undefined {
    const index = this.indexAtOrBefore(offset);
    return index < 0 ? undefined : this.entries[index]?.value;
  }

  /** The entry added last, or undefined when the history is empty. */
  lastEntry(): LogHistoryEntry<T> | undefined {
    return this.entries[this.entries.length - 1];
  }

  /** The number of entries held. */
  size(): number {
    return this.entries.length;
  }

  /** Drops every entry at or above `endOffset` (the log was truncated to end there). */
  truncateNewEntries(endOffset: number): void {
    this.entries.length = this.indexAtOrBefore(endOffset - 1) + 1;
  }

  /**
   * Drops the entries below `startOffset` (the log now starts there), except the newest of them:
   * it is still the value at `startOffset` unless an entry sits exactly there, so
   * `valueAtOrBefore` keeps answering for every offset of the log.
   */
  truncateOldEntries(startOffset: number): void {
    const keepFrom = this.indexAtOrBefore(startOffset);
    if (keepFrom > 0) this.entries = this.entries.slice(keepFrom);
  }

  /** Drops every entry (a snapshot replaces what was read). */
  clear(): void {
    this.entries = [];
  }

  /** Index of the last entry whose offset is ≤ `offset`, or -1. */
  private indexAtOrBefore(offset: number): number {
    let low = 0;
    let high = this.entries.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      if ((this.entries[middle] as LogHistoryEntry<T>).offset <= offset) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found;
  }
}
