import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { STATS_LINE_PATTERN } from '../../src/stats/format-stats-line.js';

const APP_DIRECTORY = join(import.meta.dirname, '..', '..');
export const START_SCRIPT = join(APP_DIRECTORY, 'bin', 'test-kraft-server-start.sh');

/** One parsed stats line; the latency figures are absent on a line that measured none (a follower's). */
export interface StatsLine {
  readonly bytesPerSecond: number;
  readonly p75Ms: number | undefined;
  readonly p99Ms: number | undefined;
  readonly p999Ms: number | undefined;
  readonly recordsPerSecond: number;
  readonly maxLatencyMs: number | undefined;
  readonly role: string;
  readonly epoch: number;
  readonly highWatermark: number | undefined;
  readonly eventLoopDelayP99Ms: number | undefined;
  readonly leaderId: number | undefined;
  readonly logEndOffset: number;
  readonly line: string;
}

export function parseStatsLine(line: string): StatsLine | undefined {
  const groups = STATS_LINE_PATTERN.exec(line)?.groups;
  if (groups === undefined) return undefined;
  const optional = (name: string): number | undefined => {
    const value = groups[name];
    return value === undefined || value === 'unknown' || value === 'none' ? undefined : Number(value);
  };
  return {
    bytesPerSecond: Number(groups['bytesPerSecond']),
    p75Ms: optional('p75Ms'),
    p99Ms: optional('p99Ms'),
    p999Ms: optional('p999Ms'),
    recordsPerSecond: Number(groups['recordsPerSecond']),
    maxLatencyMs: optional('maxLatencyMs'),
    role: groups['role'] as string,
    epoch: Number(groups['epoch']),
    highWatermark: optional('highWatermark'),
    eventLoopDelayP99Ms: optional('eventLoopDelayP99Ms'),
    leaderId: optional('leaderId'),
    logEndOffset: Number(groups['logEndOffset']),
    line,
  };
}

export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface TestNodeOptions {
  /** For messages and look-ups only; the config decides the real node id. */
  readonly nodeId?: number;
  readonly configPath: string;
  /** `--replica-directory-id`; omitted, the server takes the one in the log dir's meta.properties. */
  readonly directoryId?: string;
  readonly extraArgs?: readonly string[];
  readonly statsIntervalMs?: number;
}

/** A server process started through `bin/test-kraft-server-start.sh`, with its output captured. */
export class TestNode {
  readonly stats: StatsLine[] = [];
  readonly stdoutLines: string[] = [];
  readonly stderrLines: string[] = [];
  readonly exited: Promise<ExitStatus>;
  readonly nodeId: number | undefined;
  private readonly child: ChildProcess;
  private readonly waiters = new Set<() => void>();

  constructor(options: TestNodeOptions) {
    this.nodeId = options.nodeId;
    this.child = spawn(
      START_SCRIPT,
      [
        '--config',
        options.configPath,
        ...(options.directoryId === undefined ? [] : ['--replica-directory-id', options.directoryId]),
        ...(options.extraArgs ?? []),
      ],
      {
        env: {
          ...process.env,
          LOG_LEVEL: process.env['KRAFT_TEST_LOG_LEVEL'] ?? 'info',
          KRAFT_STATS_INTERVAL_MS: String(options.statsIntervalMs ?? 1000),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.exited = once(this.child, 'exit').then(([code, signal]) => {
      this.notify();
      return { code: code as number | null, signal: signal as NodeJS.Signals | null };
    });
    createInterface({ input: this.child.stdout! }).on('line', (line) => {
      this.stdoutLines.push(line);
      const stats = parseStatsLine(line);
      if (stats !== undefined) this.stats.push(stats);
      this.notify();
    });
    createInterface({ input: this.child.stderr! }).on('line', (line) => {
      this.stderrLines.push(line);
      this.notify();
    });
  }

  get pid(): number {
    return this.child.pid as number;
  }

  latestStats(): StatsLine | undefined {
    return this.stats[this.stats.length - 1];
  }

  /** Resolves with the first stats line (from now on, or already seen if `includeSeen`) matching. */
  async waitForStats(
    predicate: (stats: StatsLine) => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<StatsLine> {
    let checked = 0;
    return this.waitFor(
      () => {
        for (; checked < this.stats.length; checked += 1) {
          const stats = this.stats[checked] as StatsLine;
          if (predicate(stats)) return stats;
        }
        return undefined;
      },
      timeoutMs,
      what,
    );
  }

  async waitForLog(pattern: RegExp, timeoutMs: number): Promise<string> {
    return this.waitFor(
      () => this.stderrLines.find((line) => pattern.test(line)),
      timeoutMs,
      `log ${pattern}`,
    );
  }

  /** SIGTERM (or SIGINT) and wait for the exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<ExitStatus> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }

  async killHard(): Promise<ExitStatus> {
    this.child.kill('SIGKILL');
    return this.exited;
  }

  /** The last lines of stderr, for failure messages. */
  tail(lines = 30): string {
    return [...this.stdoutLines.slice(-5), ...this.stderrLines.slice(-lines)].join('\n');
  }

  private waitFor<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = (): boolean => {
        const found = probe();
        if (found === undefined) {
          if (this.child.exitCode !== null || this.child.signalCode !== null) {
            finish();
            reject(new Error(`node exited while waiting for ${what}:\n${this.tail()}`));
            return true;
          }
          return false;
        }
        finish();
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}:\n${this.tail()}`));
      }, timeoutMs);
      const waiter = (): void => {
        check();
      };
      const finish = (): void => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
      };
      if (!check()) this.waiters.add(waiter);
    });
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}
