import { encodeIntoCompressedBase64, type Histogram } from 'hdr-histogram-js';
import { buildLatencyHistogram, latencyMicroseconds } from '../stats/commit-stats.js';

/** The line prefix the perf tool reads: the run's whole commit-latency histogram follows, HdrHistogram's compressed base64. */
export const COMMIT_LATENCY_HISTOGRAM_PREFIX = 'Commit latency histogram (us): ';

/**
 * Every commit latency the leader measured since start, never reset (the stats lines reset each
 * interval), printed with each stats interval and when the server stops: the perf tool decodes
 * two of them and subtracts, to report the whole distribution over its window, not percentiles
 * of percentiles. Microseconds, as `CommitStats`.
 */
export class CumulativeLatency {
  private readonly histogram: Histogram = buildLatencyHistogram();
  private timer: NodeJS.Timeout | undefined;
  private writeLine: (line: string) => void = () => {};

  recordMs(latencyMs: number): void {
    this.histogram.recordValue(latencyMicroseconds(latencyMs));
  }

  /** The histogram line; nothing before the first latency. */
  line(): string | undefined {
    if (this.histogram.totalCount === 0) return undefined;
    return `${COMMIT_LATENCY_HISTOGRAM_PREFIX}${encodeIntoCompressedBase64(this.histogram)}`;
  }

  /** Prints the line every `intervalMs` until `stop()`, which prints it once more. */
  start(intervalMs: number, writeLine: (line: string) => void): void {
    this.writeLine = writeLine;
    this.timer = setInterval(() => this.write(), intervalMs);
    // The reporter alone must not keep a stopping process alive.
    this.timer.unref();
  }

  /** Prints the line a last time; nothing before `start` or after the first stop. */
  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.write();
  }

  private write(): void {
    const line = this.line();
    if (line !== undefined) this.writeLine(line);
  }
}
