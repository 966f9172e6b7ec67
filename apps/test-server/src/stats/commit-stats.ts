import { build, type Histogram } from 'hdr-histogram-js';

/** What one reporting interval committed, as rates and latency percentiles. */
export interface CommitStatsSnapshot {
  readonly intervalMs: number;
  readonly records: number;
  /** The records among them whose commit latency was measured (the leader's own appends). */
  readonly latencyRecords: number;
  readonly bytes: number;
  readonly bytesPerSecond: number;
  readonly recordsPerSecond: number;
  readonly p75Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxLatencyMs: number;
}

/** Latencies are recorded in microseconds so sub-millisecond commits keep their resolution. */
const MICROSECONDS_PER_MILLISECOND = 1000;
/** One minute: a commit slower than that is reported as one minute (and as the max). */
const HIGHEST_TRACKABLE_MICROSECONDS = 60_000_000;
/** Three significant digits: 0.1 % error, enough for a %.1f ms figure. */
const SIGNIFICANT_DIGITS = 3;

/** An empty commit-latency histogram, in microseconds, as every latency figure of the server keeps. */
export function buildLatencyHistogram(): Histogram {
  return build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_TRACKABLE_MICROSECONDS,
    numberOfSignificantValueDigits: SIGNIFICANT_DIGITS,
  });
}

/** A latency as the histograms record it: whole microseconds, at least 1, at most one minute. */
export function latencyMicroseconds(latencyMs: number): number {
  return Math.min(
    HIGHEST_TRACKABLE_MICROSECONDS,
    Math.max(1, Math.round(latencyMs * MICROSECONDS_PER_MILLISECOND)),
  );
}

/**
 * Commit latency and throughput over one interval (Kafka's WriteStats: `commit.latency` p75,
 * p99, p999 and `bytes.committed` rate). Unlike Kafka's 30 s sampled windows, each interval
 * starts empty, so a line describes exactly the 5 s before it.
 */
export class CommitStats {
  private readonly histogram: Histogram = buildLatencyHistogram();
  private records = 0;
  private bytes = 0;
  private maxLatencyMicroseconds = 0;
  private totalRecordsCommitted = 0;
  private totalBytesCommitted = 0;

  /** One committed record: its commit latency and its payload size. */
  recordCommit(latencyMs: number, sizeInBytes: number): void {
    this.recordCommits(latencyMs, 1, sizeInBytes);
  }

  /** `count` committed records of one latency, each of `bytesPerRecord`: one histogram insert. */
  recordCommits(latencyMs: number, count: number, bytesPerRecord: number): void {
    const microseconds = latencyMicroseconds(latencyMs);
    this.histogram.recordValueWithCount(microseconds, count);
    if (microseconds > this.maxLatencyMicroseconds) this.maxLatencyMicroseconds = microseconds;
    this.records += count;
    this.bytes += count * bytesPerRecord;
  }

  /** A committed record that counts toward throughput but carries no usable latency. */
  recordCommitWithoutLatency(sizeInBytes: number): void {
    this.recordCommitsWithoutLatency(1, sizeInBytes);
  }

  /** `count` committed records without latency, each of `bytesPerRecord`. */
  recordCommitsWithoutLatency(count: number, bytesPerRecord: number): void {
    this.records += count;
    this.bytes += count * bytesPerRecord;
  }

  totalRecords(): number {
    return this.totalRecordsCommitted + this.records;
  }

  totalBytes(): number {
    return this.totalBytesCommitted + this.bytes;
  }

  /** The interval's figures; the next interval starts empty. */
  snapshotAndReset(intervalMs: number): CommitStatsSnapshot {
    const seconds = intervalMs > 0 ? intervalMs / 1000 : Number.POSITIVE_INFINITY;
    const hasLatency = this.histogram.totalCount > 0;
    const percentileMs = (percentile: number): number =>
      hasLatency ? this.histogram.getValueAtPercentile(percentile) / MICROSECONDS_PER_MILLISECOND : 0;
    const snapshot: CommitStatsSnapshot = {
      intervalMs,
      records: this.records,
      latencyRecords: this.histogram.totalCount,
      bytes: this.bytes,
      bytesPerSecond: this.bytes / seconds,
      recordsPerSecond: this.records / seconds,
      p75Ms: percentileMs(75),
      p99Ms: percentileMs(99),
      p999Ms: percentileMs(99.9),
      maxLatencyMs: this.maxLatencyMicroseconds / MICROSECONDS_PER_MILLISECOND,
    };
    this.totalRecordsCommitted += this.records;
    this.totalBytesCommitted += this.bytes;
    this.histogram.reset();
    this.records = 0;
    this.bytes = 0;
    this.maxLatencyMicroseconds = 0;
    return snapshot;
  }
}
