import { build, type Histogram } from 'hdr-histogram-js';

/** The percentiles every scenario reports, as `p50` ... `p99.99`, beside `max`. */
const PERCENTILES = [50, 75, 90, 99, 99.9, 99.99] as const;
/** One minute: a slower latency is recorded as one minute, as the test server's histograms do. */
const HIGHEST_TRACKABLE_MICROSECONDS = 60_000_000;
const MICROSECONDS_PER_MILLISECOND = 1000;

/** An empty latency histogram in microseconds, the test server's shape (3 significant digits). */
export function buildLatencyHistogram(): Histogram {
  return build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_TRACKABLE_MICROSECONDS,
    numberOfSignificantValueDigits: 3,
  });
}

/** A latency as the histograms record it: whole microseconds, at least 1, at most one minute. */
export function latencyMicroseconds(latencyMs: number): number {
  return Math.min(
    HIGHEST_TRACKABLE_MICROSECONDS,
    Math.max(1, Math.round(latencyMs * MICROSECONDS_PER_MILLISECOND)),
  );
}

/** The histogram's percentiles and max, in milliseconds. */
export function latencyPercentilesMs(histogram: Histogram): Record<string, number> {
  const percentilesMs: Record<string, number> = {};
  for (const percentile of PERCENTILES) {
    percentilesMs[`p${percentile}`] =
      histogram.getValueAtPercentile(percentile) / MICROSECONDS_PER_MILLISECOND;
  }
  percentilesMs['max'] = histogram.maxValue / MICROSECONDS_PER_MILLISECOND;
  return percentilesMs;
}
