import type { Time } from '../ports/time.js';

/**
 * The production clock: whole milliseconds on a monotonic timeline (`performance.now()` from the
 * process's time origin), so timers never jump with NTP or a manual clock change, and values
 * stay integral for int64 wire fields.
 */
export class SystemTime implements Time {
  milliseconds(): number {
    return Math.floor(performance.timeOrigin + performance.now());
  }
}
