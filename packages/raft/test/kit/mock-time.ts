import type { Time } from '../../src/ports/time.js';

/** A clock that moves only when told to. */
export class MockTime implements Time {
  private nowMs: number;

  constructor(startMs = 0) {
    this.nowMs = startMs;
  }

  milliseconds(): number {
    return this.nowMs;
  }

  sleep(durationMs: number): void {
    this.nowMs += durationMs;
  }
}
