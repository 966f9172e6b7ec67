import { invariant } from '@kraft/protocol';

/**
 * Admits at most `maxPerWindow` log lines per window of `windowMs` and counts the rest. A hostile
 * peer can make the server reject thousands of connections a second; logging each (with its
 * error and stack) would cost more than rejecting it, so such lines are sampled and the next
 * admitted line says how many were suppressed.
 */
export class LogSampler {
  private readonly maxPerWindow: number;
  private readonly windowMs: number;
  private windowStartMs = Number.NEGATIVE_INFINITY;
  private admittedInWindow = 0;
  private suppressed = 0;

  constructor(maxPerWindow: number, windowMs: number) {
    invariant(
      Number.isSafeInteger(maxPerWindow) && maxPerWindow > 0 && windowMs > 0,
      () => `log sampler needs a positive count and window, got ${maxPerWindow} per ${windowMs} ms`,
    );
    this.maxPerWindow = maxPerWindow;
    this.windowMs = windowMs;
  }

  /**
   * Whether a line may be logged at `nowMs`: the number of lines suppressed since the last
   * admitted one (0 or more), or -1 when this one is suppressed too.
   */
  admit(nowMs: number): number {
    if (nowMs - this.windowStartMs >= this.windowMs) {
      this.windowStartMs = nowMs;
      this.admittedInWindow = 0;
    }
    if (this.admittedInWindow >= this.maxPerWindow) {
      this.suppressed += 1;
      return -1;
    }
    this.admittedInWindow += 1;
    const suppressed = this.suppressed;
    this.suppressed = 0;
    return suppressed;
  }
}
