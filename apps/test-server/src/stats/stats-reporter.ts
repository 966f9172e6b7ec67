import type { CommitStats } from './commit-stats.js';
import { formatStatsLine, type NodeStatus } from './format-stats-line.js';

/** Kafka's TestRaftServer prints every 5 s. */
export const STATS_INTERVAL_MS = 5000;

/** The part of `perf_hooks.monitorEventLoopDelay()`'s histogram the reporter uses (nanoseconds). */
export interface EventLoopDelayHistogram {
  readonly count: number;
  percentile(percentile: number): number;
  reset(): void;
  enable(): boolean;
  disable(): boolean;
}

export interface StatsReporterOptions {
  readonly stats: CommitStats;
  readonly status: () => NodeStatus;
  /** Receives each line without its newline (stdout in production). */
  readonly writeLine: (line: string) => void;
  /** A monotonic clock in milliseconds. */
  readonly nowMs: () => number;
  readonly intervalMs?: number;
  /** `monitorEventLoopDelay()`: its p99 joins each line and it restarts with each interval. */
  readonly eventLoopDelay?: EventLoopDelayHistogram;
}

/** Prints one stats line per interval; the measured interval is the real elapsed time. */
export class StatsReporter {
  private timer: NodeJS.Timeout | undefined;
  private intervalStartMs: number;

  constructor(private readonly options: StatsReporterOptions) {
    this.intervalStartMs = options.nowMs();
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.intervalStartMs = this.options.nowMs();
    this.options.eventLoopDelay?.enable();
    this.timer = setInterval(() => this.report(), this.options.intervalMs ?? STATS_INTERVAL_MS);
    // The reporter alone must not keep a stopping process alive.
    this.timer.unref();
  }

  /** Prints the line for the time since the previous one. */
  report(): void {
    const nowMs = this.options.nowMs();
    const snapshot = this.options.stats.snapshotAndReset(nowMs - this.intervalStartMs);
    this.intervalStartMs = nowMs;
    const status = this.options.status();
    const histogram = this.options.eventLoopDelay;
    if (histogram === undefined) {
      this.options.writeLine(formatStatsLine(snapshot, status));
      return;
    }
    // The histogram records nanoseconds; with no sample yet it reports 0.
    const eventLoopDelayP99Ms = histogram.count === 0 ? 0 : histogram.percentile(99) / 1e6;
    histogram.reset();
    this.options.writeLine(formatStatsLine(snapshot, { ...status, eventLoopDelayP99Ms }));
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.options.eventLoopDelay?.disable();
  }
}
