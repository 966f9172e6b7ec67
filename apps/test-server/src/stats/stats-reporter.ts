import type { CommitStats } from './commit-stats.js';
import { formatStatsLine, type NodeStatus } from './format-stats-line.js';

/** Kafka's TestRaftServer prints every 5 s. */
export const STATS_INTERVAL_MS = 5000;

export interface StatsReporterOptions {
  readonly stats: CommitStats;
  readonly status: () => NodeStatus;
  /** Receives each line without its newline (stdout in production). */
  readonly writeLine: (line: string) => void;
  /** A monotonic clock in milliseconds. */
  readonly nowMs: () => number;
  readonly intervalMs?: number;
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
    this.timer = setInterval(() => this.report(), this.options.intervalMs ?? STATS_INTERVAL_MS);
    // The reporter alone must not keep a stopping process alive.
    this.timer.unref();
  }

  /** Prints the line for the time since the previous one. */
  report(): void {
    const nowMs = this.options.nowMs();
    const snapshot = this.options.stats.snapshotAndReset(nowMs - this.intervalStartMs);
    this.intervalStartMs = nowMs;
    this.options.writeLine(formatStatsLine(snapshot, this.options.status()));
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
