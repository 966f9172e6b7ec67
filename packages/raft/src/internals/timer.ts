/**
 * A deadline driven by the caller's clock (Kafka's `Timer`): nothing here reads time. `update`
 * moves "now" forward; `isExpired` compares it with the deadline.
 */
export class Timer {
  private currentTimeMs: number;
  private deadlineMs: number;
  private timeoutMs: number;

  constructor(nowMs: number, timeoutMs: number) {
    this.currentTimeMs = nowMs;
    this.timeoutMs = timeoutMs;
    this.deadlineMs = nowMs + timeoutMs;
  }

  update(nowMs: number): void {
    if (nowMs > this.currentTimeMs) this.currentTimeMs = nowMs;
  }

  reset(nowMs: number, timeoutMs: number): void {
    this.update(nowMs);
    this.timeoutMs = timeoutMs;
    this.deadlineMs = this.currentTimeMs + timeoutMs;
  }

  isExpired(): boolean {
    return this.currentTimeMs >= this.deadlineMs;
  }

  remainingMs(): number {
    return Math.max(0, this.deadlineMs - this.currentTimeMs);
  }

  deadline(): number {
    return this.deadlineMs;
  }

  timeout(): number {
    return this.timeoutMs;
  }
}
