import { PendingReadsFullError } from '../errors/pending-reads-full-error.js';
import type { VoterSet } from '../voter-set.js';

/** Read barriers a leader holds at once; beyond it `readIndex` is refused (backpressure). */
export const MAX_PENDING_READS = 10_000;

/** A read barrier waiting for its offset (the epoch start to commit) and for a quorum round. */
export interface PendingRead {
  readonly id: number;
  /** The order of the registration among the leader's fetch events (see PendingReads). */
  readonly sequence: number;
  readonly deadlineMs: number;
  /** The bound it was given (for the timeout error). */
  readonly timeoutMs: number;
  /** The high watermark at registration; unknown until the epoch's first batch commits. */
  readOffset: number | undefined;
}

/** A confirmed read: its barrier offset. */
export interface ConfirmedRead {
  readonly id: number;
  readonly readOffset: number;
}

/**
 * The leader's read barriers (etcd's ReadIndex, in Kafka's shape; ADR 0024). A read is
 * confirmed when a majority of voters (the leader counts itself) proves it still led this epoch
 * after the read was registered. A Fetch proves it only when it is causally later than the
 * registration: it must arrive after the leader answered a Fetch of the same voter after the
 * registration. A fetch merely received after registration may have been sent before it, by a
 * voter that has since voted for a new leader, who may have committed and acknowledged writes
 * the read would miss. One counter orders registrations, answers and fetch arrivals; per voter
 * the leader keeps the sequence of the answer its latest fetch followed, so a quorum check is a
 * sort of the voters, not a scan of the reads per fetch.
 */
export class PendingReads {
  private sequence = 0;
  /** Reads in registration (sequence) order. */
  private reads: PendingRead[] = [];
  /** Voter id → sequence of the latest Fetch answer this node sent it. */
  private readonly lastAnswerSequence = new Map<number, number>();
  /** Voter id → sequence of the answer its latest fetch arrived after: it proves the epoch until then. */
  private readonly provenSequence = new Map<number, number>();

  size(): number {
    return this.reads.length;
  }

  /** Registers read `id`; throws PendingReadsFullError when MAX_PENDING_READS already wait. */
  register(id: number, nowMs: number, timeoutMs: number, highWatermark: number | undefined): void {
    if (this.reads.length >= MAX_PENDING_READS) {
      throw new PendingReadsFullError(`${this.reads.length} read barriers already wait for confirmation`);
    }
    this.sequence += 1;
    this.reads.push({
      id,
      sequence: this.sequence,
      deadlineMs: nowMs + timeoutMs,
      timeoutMs,
      readOffset: highWatermark,
    });
  }

  /** The leader sent a Fetch answer to `voterId`. */
  onFetchAnswered(voterId: number): void {
    this.sequence += 1;
    this.lastAnswerSequence.set(voterId, this.sequence);
  }

  /** A Fetch of this epoch arrived from `voterId`: it was sent after our latest answer to it. */
  onVoterFetch(voterId: number): void {
    const answered = this.lastAnswerSequence.get(voterId);
    if (answered !== undefined) this.provenSequence.set(voterId, answered);
  }

  /**
   * Takes the reads a quorum has confirmed, oldest first. Reads registered before the epoch start
   * committed take the first known high watermark as their offset: it covers every write
   * acknowledged before them (all were committed below the epoch start or in this epoch).
   */
  takeConfirmed(voters: VoterSet, localId: number, highWatermark: number | undefined): ConfirmedRead[] {
    if (this.reads.length === 0 || highWatermark === undefined) return [];
    const quorumSequence = this.quorumSequence(voters, localId);
    let confirmed = 0;
    while (
      confirmed < this.reads.length &&
      (this.reads[confirmed] as PendingRead).sequence < quorumSequence
    ) {
      confirmed += 1;
    }
    if (confirmed === 0) return [];
    return this.reads.splice(0, confirmed).map((read) => ({
      id: read.id,
      readOffset: read.readOffset ?? highWatermark,
    }));
  }

  /**
   * Removes the reads whose deadline passed, handing each to `onExpired` (oldest first), and
   * returns the milliseconds until the earliest deadline of those left (infinite when none
   * waits). One pass, compacting in place: it runs on every poll while reads wait.
   */
  expire(nowMs: number, onExpired: (read: PendingRead) => void): number {
    let soonestMs = Number.POSITIVE_INFINITY;
    let kept = 0;
    for (const read of this.reads) {
      if (nowMs >= read.deadlineMs) {
        onExpired(read);
      } else {
        this.reads[kept] = read;
        kept += 1;
        soonestMs = Math.min(soonestMs, read.deadlineMs - nowMs);
      }
    }
    this.reads.length = kept;
    return soonestMs;
  }

  /** Leadership ended: every waiting read fails. */
  takeAll(): PendingRead[] {
    const all = this.reads;
    this.reads = [];
    return all;
  }

  /**
   * The sequence below which a majority has proven this epoch: the leader counts itself (it
   * still leads now), each other voter up to its proven sequence.
   */
  private quorumSequence(voters: VoterSet, localId: number): number {
    const localIsVoter = voters.isVoterId(localId);
    const needed = voters.majoritySize() - (localIsVoter ? 1 : 0);
    if (needed <= 0) return Number.POSITIVE_INFINITY;
    const proven: number[] = [];
    for (const voterId of voters.voterIds()) {
      if (voterId !== localId) proven.push(this.provenSequence.get(voterId) ?? 0);
    }
    proven.sort((left, right) => right - left);
    return proven[needed - 1] ?? 0;
  }
}
