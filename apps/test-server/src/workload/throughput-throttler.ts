/**
 * Kafka's test-server throttler: the `count`-th record is due at `start + count / throughput ·
 * 1000 ms`. A sender that falls behind is not slowed down; it sends what is due at once.
 */
export class ThroughputThrottler {
  private startMs: number;

  constructor(
    private readonly recordsPerSecond: number,
    startMs: number,
  ) {
    if (!(recordsPerSecond > 0)) throw new RangeError(`throughput must be positive, got ${recordsPerSecond}`);
    this.startMs = startMs;
  }

  reset(nowMs: number): void {
    this.startMs = nowMs;
  }

  /** When record number `count` (0-based) is due. */
  dueTimeMs(count: number): number {
    return this.startMs + (count / this.recordsPerSecond) * 1000;
  }

  /** How long to wait before record number `count` (0-based) is due; 0 when it already is. */
  delayMs(count: number, nowMs: number): number {
    const deadlineMs = this.dueTimeMs(count);
    return deadlineMs > nowMs ? deadlineMs - nowMs : 0;
  }

  /** How many records in total are due by `nowMs` (the count the sender should have reached). */
  dueCount(nowMs: number): number {
    if (nowMs < this.startMs) return 0;
    return Math.floor(((nowMs - this.startMs) * this.recordsPerSecond) / 1000) + 1;
  }
}
