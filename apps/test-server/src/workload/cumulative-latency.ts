import { build, encodeIntoCompressedBase64, type Histogram } from 'hdr-histogram-js';

/** The line prefix the perf tool reads: the run's whole commit-latency histogram follows, HdrHistogram's compressed base64. */
export const COMMIT_LATENCY_HISTOGRAM_PREFIX = 'Commit latency histogram (us): ';
/** One minute, in microseconds, as the per-interval stats: slower commits count as one minute. */
const HIGHEST_TRACKABLE_MICROSECONDS = 60_000_000;
const SIGNIFICANT_DIGITS = 3;

/**
 * Every commit latency the leader measured since start, never reset (the stats lines reset each
 * interval): the perf tool decodes it to report the whole distribution, not percentiles of
 * percentiles. Microseconds, as `CommitStats`.
 */
export class CumulativeLatency {
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

  get count(): number {
    return this.histogram.totalCount;
  }

  /** The line the server prints when it stops. */
  line(): string {
    return `${COMMIT_LATENCY_HISTOGRAM_PREFIX}${encodeIntoCompressedBase64(this.histogram)}`;
  }
}
