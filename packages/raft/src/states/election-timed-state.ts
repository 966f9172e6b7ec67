import { Timer } from '../internals/timer.js';

/**
 * What Unattached, Prospective, Candidate and Resigned share: an epoch, the voter ids their
 * election names, the high watermark carried over from the state before, and the election timer
 * whose expiry moves them on. Each subclass says what it stores and which votes it grants.
 */
export abstract class ElectionTimedState {
  readonly epoch: number;
  protected readonly voters: readonly number[];
  private readonly highWatermarkOffset: number | undefined;
  private readonly electionTimer: Timer;

  protected constructor(options: {
    epoch: number;
    voters: readonly number[];
    highWatermark: number | undefined;
    electionTimeoutMs: number;
    nowMs: number;
  }) {
    this.epoch = options.epoch;
    this.voters = options.voters;
    this.highWatermarkOffset = options.highWatermark;
    this.electionTimer = new Timer(options.nowMs, options.electionTimeoutMs);
  }

  highWatermark(): number | undefined {
    return this.highWatermarkOffset;
  }

  hasElectionTimeoutExpired(nowMs: number): boolean {
    this.electionTimer.update(nowMs);
    return this.electionTimer.isExpired();
  }

  remainingElectionTimeMs(nowMs: number): number {
    this.electionTimer.update(nowMs);
    return this.electionTimer.remainingMs();
  }

  /** These states own nothing that outlives them. */
  close(): void {}
}
