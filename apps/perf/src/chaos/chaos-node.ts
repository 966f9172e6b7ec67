import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/** The test server's start script (a process, never an import: nothing imports an app). */
export const START_SCRIPT = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'test-server',
  'bin',
  'test-kraft-server-start.sh',
);

/** The fields of the test server's stats line the runner follows (its README, "What a node does"). */
export interface NodeStatus {
  readonly role: string;
  readonly epoch: number;
  readonly highWatermark: number | undefined;
  readonly leaderId: number | undefined;
  readonly logEndOffset: number;
}

const STATUS_PATTERN =
  /Role: (?<role>\w+), Epoch: (?<epoch>\d+), High watermark: (?<highWatermark>\d+|unknown)(?:, [^,]+)*?, Leader: (?<leaderId>\d+|none), Log end offset: (?<logEndOffset>\d+)$/;

export function parseStatus(line: string): NodeStatus | undefined {
  const groups = STATUS_PATTERN.exec(line)?.groups;
  if (groups === undefined) return undefined;
  const numberOrUndefined = (text: string | undefined) =>
    text === undefined || text === 'unknown' || text === 'none' ? undefined : Number(text);
  return {
    role: groups['role'] as string,
    epoch: Number(groups['epoch']),
    highWatermark: numberOrUndefined(groups['highWatermark']),
    leaderId: numberOrUndefined(groups['leaderId']),
    logEndOffset: Number(groups['logEndOffset']),
  };
}

export interface ChaosNodeOptions {
  readonly nodeId: number;
  readonly namespace: string;
  /** A process whose mount namespace holds the node's tmpfs log dir; the node joins it. */
  readonly mountHolderPid: number | undefined;
  readonly configPath: string;
  readonly directoryId: string;
  readonly historyPath: string;
  readonly stderrPath: string;
  readonly throughputRecordsPerSecond: number;
  readonly recordSizeBytes: number;
  readonly statsIntervalMs: number;
}

/** A wall clock off by `offsetSeconds`, through libfaketime preloaded into the server. */
export interface FakeClock {
  readonly library: string;
  readonly offsetSeconds: number;
}

export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * One test server inside its node's namespace (`ip netns exec`, under `nsenter` into the mount
 * holder when the log dir is a tmpfs), restartable, optionally under faketime. Its stderr goes to
 * a file; its stats lines update `status` and `maxHighWatermark`.
 */
export class ChaosNode {
  status: NodeStatus | undefined;
  /** The highest high watermark this node ever reported: committed, whatever happened later. */
  maxHighWatermark = 0;
  private child: ChildProcess | undefined;
  private exitedPromise: Promise<ExitStatus> = Promise.resolve({ code: null, signal: null });
  private lastExit: ExitStatus | undefined;
  paused = false;

  constructor(readonly options: ChaosNodeOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.lastExit === undefined;
  }

  /** How the last process exited, or undefined while it runs (or before the first start). */
  get exitStatus(): ExitStatus | undefined {
    return this.lastExit;
  }

  /** With `clock`, the server's wall clock is off by its offset (libfaketime). */
  start(clock?: FakeClock): void {
    if (this.running) throw new Error(`node ${this.options.nodeId} is already running`);
    const { options } = this;
    const server = [
      START_SCRIPT,
      '--config',
      options.configPath,
      '--replica-directory-id',
      options.directoryId,
      '--throughput',
      String(options.throughputRecordsPerSecond),
      '--record-size',
      String(options.recordSizeBytes),
      '--history-file',
      options.historyPath,
    ];
    // Only the wall clock jumps: CLOCK_MONOTONIC stays the machine's, so history times compare.
    // The library is preloaded through `env` (which execs): the faketime wrapper would fork, and
    // signals meant for the server would reach the wrapper.
    const fakeClock =
      clock === undefined
        ? []
        : [
            'env',
            `LD_PRELOAD=${clock.library}`,
            `FAKETIME=${clock.offsetSeconds >= 0 ? '+' : ''}${clock.offsetSeconds}s`,
            'FAKETIME_DONT_FAKE_MONOTONIC=1',
          ];
    const inNamespace = ['ip', 'netns', 'exec', options.namespace, ...fakeClock, ...server];
    const command =
      options.mountHolderPid === undefined
        ? inNamespace
        : ['nsenter', `--target=${options.mountHolderPid}`, '--mount', '--', ...inNamespace];
    const stderr = openSync(options.stderrPath, 'a');
    try {
      this.child = spawn(command[0] as string, command.slice(1), {
        stdio: ['ignore', 'pipe', stderr],
        env: { ...process.env, KRAFT_STATS_INTERVAL_MS: String(options.statsIntervalMs), LOG_LEVEL: 'info' },
      });
    } finally {
      closeSync(stderr);
    }
    this.lastExit = undefined;
    this.paused = false;
    const child = this.child;
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => this.onLine(line));
    this.exitedPromise = new Promise<ExitStatus>((resolve) => {
      child.on('exit', (code, signal) => {
        this.lastExit = { code, signal };
        this.status = undefined;
        resolve(this.lastExit);
      });
    });
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child?.kill(signal);
  }

  pause(): void {
    this.signal('SIGSTOP');
    this.paused = true;
  }

  resume(): void {
    if (this.paused) this.signal('SIGCONT');
    this.paused = false;
  }

  /** Stops the process with `signal`, then SIGKILL after `graceMs`; resolves with how it exited. */
  async stop(signal: NodeJS.Signals, graceMs: number): Promise<ExitStatus | undefined> {
    if (!this.running) return this.lastExit;
    this.resume();
    this.signal(signal);
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    try {
      return await this.exitedPromise;
    } finally {
      clearTimeout(timer);
    }
  }

  private onLine(line: string): void {
    const status = parseStatus(line);
    if (status === undefined) return;
    this.status = status;
    if (status.highWatermark !== undefined && status.highWatermark > this.maxHighWatermark) {
      this.maxHighWatermark = status.highWatermark;
    }
  }
}
