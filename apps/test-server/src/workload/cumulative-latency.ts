import { build, encodeIntoCompressedBase64, type Histogram } from 'hdr-histogram-js';

/** The line prefix the perf tool reads: the run's whole commit-latency histogram follows, HdrHistogram's compressed base64. */
export const COMMIT_LATENCY_HISTOGRAM_PREFIX = 'Commit latency histogram (us): ';
/** One minute, in microseconds, as the per-interval stats: slower commits count as one minute. */
const HIGHEST_TRACKABLE_MICROSECONDS = 60_000_000;
const SIGNIFICANT_DIGITS = 3;

/**
 * Every commit latency the leader measured since start, never reset (the stats lines reset each
 * interval), printed with each stats interval and when the server stops: the perf tool decodes
 * two of them and subtracts, to report the whole distribution over its window, not percentiles
 * of percentiles. Microseconds, as `CommitStats`.
 */
export class CumulativeLatency {
  private timer: NodeJS.Timeout | undefined;

  private readonly histogram: Histogram = build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_TRACKABLE_MICROSECONDS,
    numberOfSignificantValueDigits: SIGNIFICANT_DIGITS,
  });

  recordMs(latencyMs: number): void {
    this.histogram.recordValue(
      Math.min(HIGHEST_TRACKABLE_MICROSECONDS, Math.max(1, Math.round(latencyMs * 1000))),
    );
  }

  /** The histogram line; nothing before the first latency. */
  line(): string | undefined {
    if (this.histogram.totalCount === 0) return undefined;
    return `${COMMIT_LATENCY_HISTOGRAM_PREFIX}${encodeIntoCompressedBase64(this.histogram)}`;
  }

  /** Prints the line every `intervalMs` until `stop()`, which prints it once more. */
  start(intervalMs: number, writeLine: (line: string) => void): void {
    const write = () => {
      const line = this.line();
      if (line !== undefined) writeLine(line);
    };
    this.stop = () => {
      clearInterval(this.timer);
      this.timer = undefined;
      this.stop = () => {};
      write();
    };
    this.timer = setInterval(write, intervalMs);
    // The reporter alone must not keep a stopping process alive.
    this.timer.unref();
  }

  stop: () => void = () => {};
}
