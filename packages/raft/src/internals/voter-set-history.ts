import { NonOverlappingVoterSetError } from '../errors/non-overlapping-voter-set-error.js';
import type { VoterSet } from '../voter-set.js';
import { DEFAULT_MAX_LOG_HISTORY_ENTRIES, LogHistory, type LogHistoryEntry } from './log-history.js';

/**
 * The voter sets of the log by offset (Kafka's `VoterSetHistory`, KIP-853): the VotersRecords read
 * from the latest snapshot (the bootstrap checkpoint's at offset -1) and from the log after it,
 * over the static voter set (`controller.quorum.voters`), which holds wherever no VotersRecord does.
 *
 * Rule (KIP-853): a voter set from the log keeps an overlapping majority with the one before it,
 * so that two leaders can never be elected by disjoint majorities while the change is replicated.
 * The rule is not applied across the static set or the bootstrap checkpoint's set (offset -1):
 * those come from each node's configuration, and no leader ever made replicas agree on them.
 *
 * A VotersRecord in the log that restates the last set read from the log adds no entry (a
 * kraft.version 1 leader restates the set at every epoch start): `valueAtOrBefore` answers the
 * same at every offset, and the history grows with voter changes only, not with elections. The
 * first copy of the bootstrap set in the log is kept, so an entry at -1 still means "the
 * checkpoint's set has not been written to the log yet", as in Kafka.
 */
export class VoterSetHistory {
  private readonly history: LogHistory<VoterSet>;

  constructor(
    private readonly staticVoterSet: VoterSet,
    maxEntries: number = DEFAULT_MAX_LOG_HISTORY_ENTRIES,
  ) {
    this.history = new LogHistory<VoterSet>(maxEntries);
  }

  /**
   * Adds the voter set of the VotersRecord at `offset` (above every offset added so far).
   * @throws NonOverlappingVoterSetError when it changes more than one voter from the last set the
   *   log holds.
   */
  addAt(offset: number, voters: VoterSet): void {
    const last = this.history.lastEntry();
    const lastIsFromLog = last !== undefined && last.offset >= 0;
    if (lastIsFromLog && last.value.equals(voters)) return;
    if (lastIsFromLog && !last.value.hasOverlappingMajority(voters)) {
      throw new NonOverlappingVoterSetError(
        offset,
        `the voter set ${voters.toString()} at offset ${offset} has no overlapping majority with ${last.value.toString()} at offset ${last.offset}`,
      );
    }
    this.history.addAt(offset, voters);
  }

  /** The voter set at `offset`: the last VotersRecord at or before it, else the static set. */
  valueAtOrBefore(offset: number): VoterSet {
    return this.history.valueAtOrBefore(offset) ?? this.staticVoterSet;
  }

  /** The latest voter set: the last VotersRecord read, else the static set. */
  lastValue(): VoterSet {
    return this.history.lastEntry()?.value ?? this.staticVoterSet;
  }

  /**
   * The last VotersRecord read that changed the set, or undefined when the set is still the static
   * one. While its offset is at or above the high watermark, a voter change is uncommitted, and a
   * leader must not start another (KIP-853: one change at a time).
   */
  lastEntry(): LogHistoryEntry<VoterSet> | undefined {
    return this.history.lastEntry();
  }

  /** The log was truncated to end at `endOffset`: the sets read at or above it are gone. */
  truncateNewEntries(endOffset: number): void {
    this.history.truncateNewEntries(endOffset);
  }

  /** The log now starts at `startOffset`: older sets go, but the one in force there stays. */
  truncateOldEntries(startOffset: number): void {
    this.history.truncateOldEntries(startOffset);
  }

  /** Forgets every set read (a snapshot is read in their place). */
  clear(): void {
    this.history.clear();
  }
}
