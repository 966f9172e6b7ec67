/**
 * Kafka's ExponentialBackoff for reconnects: `initialMs * 2^failures`, capped at `maxMs`, then
 * spread by ±20 % jitter so that nodes that lost the same peer do not reconnect in lockstep. The
 * random source is injected (a seeded one in tests).
 */
export class ReconnectBackoff {
  private static readonly JITTER = 0.2;
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly random: () => number;
  private failures = 0;

  constructor(initialMs: number, maxMs: number, random: () => number) {
    this.initialMs = initialMs;
    this.maxMs = maxMs;
    this.random = random;
  }

  /** Records a failed connection and returns how long to wait before the next attempt. */
  nextDelayMs(): number {
    const exponent = Math.min(this.failures, 30);
    this.failures += 1;
    const base = Math.min(this.maxMs, this.initialMs * 2 ** exponent);
    const jitter = 1 + ReconnectBackoff.JITTER * (2 * this.random() - 1);
    return Math.max(0, Math.min(this.maxMs, Math.round(base * jitter)));
  }

  /** Forgets the failures after a successful connection: the next delay is `initialMs` again. */
  reset(): void {
    this.failures = 0;
  }
}
