/**
 * The Time port. The raft core itself never reads a clock: every handler takes `nowMs`. Time is
 * needed only by the driver (`src/io`) and by test contexts (`MockTime`), which share this shape.
 */
export interface Time {
  /** Milliseconds on a monotonic clock (the epoch is arbitrary). */
  milliseconds(): number;
}
