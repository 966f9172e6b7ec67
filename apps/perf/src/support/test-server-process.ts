import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, createWriteStream, openSync } from 'node:fs';
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

/**
 * What the start script runs now: `built` (dist/, from `pnpm build`, newer than every source) or
 * `source` (TypeScript through tsx), as its own `kraft_entry_mode` decides (bin/exec-entry.sh).
 */
export function testServerEntryMode(): 'built' | 'source' {
  const binDirectory = join(START_SCRIPT, '..');
  const mode = execFileSync(
    'bash',
    ['-c', 'source "$1/exec-entry.sh" && kraft_entry_mode "$1/.." main', 'entry-mode', binDirectory],
    { encoding: 'utf8' },
  ).trim();
  return mode === 'built' ? 'built' : 'source';
}

/** The fields of the test server's stats line the runners follow (its README, "What a node does"). */
export interface NodeStatus {
  readonly role: string;
  readonly epoch: number;
  readonly highWatermark: number | undefined;
  readonly leaderId: number | undefined;
  readonly logEndOffset: number;
  /** The last offset the node's state machine applied, where the process reports one (kv-store). */
  readonly appliedOffset?: number | undefined;
  /** The log start offset, where the process reports it (kv-store). */
  readonly logStartOffset?: number | undefined;
  /** How often this process restored its state machine from a snapshot (kv-store). */
  readonly restores?: number | undefined;
  /** The reporting process's id, where it says (kv-store): tells a restart's counts apart. */
  readonly processId?: number | undefined;
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

export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface TestServerProcessOptions {
  readonly nodeId: number;
  /** The server's stderr (its pino log) is appended there. */
  readonly stderrPath: string;
  /**
   * When set, the server's stdout (its stats lines) is appended there as well: a kept run dir
   * then shows each node's role, epoch and leader over time, not only what it logged.
   */
  readonly stdoutPath?: string;
  readonly statsIntervalMs: number;
  /** Variables added to the process's environment (beside the stats interval and log level). */
  readonly environment?: Readonly<Record<string, string>>;
  /** Reads a status from one stdout line; the test server's stats line by default. */
  readonly parseStatus?: (line: string) => NodeStatus | undefined;
}

/**
 * One test server process, restartable: its stderr goes to a file, its stdout lines go to the
 * line handlers, and its stats lines update `status` and `maxHighWatermark`. What to run (the
 * start script, under `ip netns exec` or not) is the caller's: `launch(command)`. Another server
 * that prints a status line of its own (the kv-store example) runs the same way with its own
 * `parseStatus`.
 */
export class TestServerProcess {
  status: NodeStatus | undefined;
  /** The highest high watermark this node ever reported: committed, whatever happened later. */
  maxHighWatermark = 0;
  private child: ChildProcess | undefined;
  private exitedPromise: Promise<ExitStatus> = Promise.resolve({ code: null, signal: null });
  private lastExit: ExitStatus | undefined;
  /** `performance.now()` at the last launch. */
  private launchedAtMs: number | undefined;
  private readonly lineHandlers: ((line: string) => void)[] = [];
  private readonly statusHandlers: ((status: NodeStatus) => void)[] = [];

  constructor(readonly processOptions: TestServerProcessOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.lastExit === undefined;
  }

  /**
   * True once the running process printed a stats line: it loaded its modules, opened its log and
   * runs raft. `status` is cleared when a process exits, so this holds for the current start only.
   */
  get started(): boolean {
    return this.running && this.status !== undefined;
  }

  /** Milliseconds since the last launch (0 before the first). */
  millisecondsSinceLaunch(): number {
    return this.launchedAtMs === undefined ? 0 : performance.now() - this.launchedAtMs;
  }

  /** How the last process exited, or undefined while it runs (or before the first start). */
  get exitStatus(): ExitStatus | undefined {
    return this.lastExit;
  }

  /** Each stdout line of every later start goes to `handler` too. */
  onLine(handler: (line: string) => void): void {
    this.lineHandlers.push(handler);
  }

  /** Each stats line of every later start goes to `handler`, parsed once, after `status` took it. */
  onStatus(handler: (status: NodeStatus) => void): void {
    this.statusHandlers.push(handler);
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child?.kill(signal);
  }

  /** Stops the process with `signal`, then SIGKILL after `graceMs`; resolves with how it exited. */
  async stop(signal: NodeJS.Signals, graceMs: number): Promise<ExitStatus | undefined> {
    if (!this.running) return this.lastExit;
    this.signal(signal);
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    try {
      return await this.exitedPromise;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Resolves when the process exits (at once when none runs). */
  exited(): Promise<ExitStatus> {
    return this.exitedPromise;
  }

  protected launch(command: readonly string[]): void {
    if (this.running) throw new Error(`node ${this.processOptions.nodeId} is already running`);
    const stderr = openSync(this.processOptions.stderrPath, 'a');
    try {
      this.child = spawn(command[0] as string, command.slice(1), {
        stdio: ['ignore', 'pipe', stderr],
        env: {
          ...process.env,
          KRAFT_STATS_INTERVAL_MS: String(this.processOptions.statsIntervalMs),
          LOG_LEVEL: 'info',
          ...this.processOptions.environment,
        },
      });
    } finally {
      closeSync(stderr);
    }
    this.lastExit = undefined;
    this.launchedAtMs = performance.now();
    const child = this.child;
    const stdout = child.stdout as NodeJS.ReadableStream;
    if (this.processOptions.stdoutPath !== undefined) copyTo(stdout, this.processOptions.stdoutPath);
    createInterface({ input: stdout }).on('line', (line) => this.handleLine(line));
    this.exitedPromise = new Promise<ExitStatus>((resolve) => {
      // 'close', not 'exit': by then every stdout line was handled (a stopping server's last lines matter).
      child.on('close', (code, signal) => {
        this.lastExit = { code, signal };
        this.status = undefined;
        resolve(this.lastExit);
      });
    });
  }

  private handleLine(line: string): void {
    for (const handler of this.lineHandlers) handler(line);
    const status = (this.processOptions.parseStatus ?? parseStatus)(line);
    if (status === undefined) return;
    this.status = status;
    if (status.highWatermark !== undefined && status.highWatermark > this.maxHighWatermark) {
      this.maxHighWatermark = status.highWatermark;
    }
    for (const handler of this.statusHandlers) handler(status);
  }
}

/**
 * Appends `stream` to the file at `path`, opened now (so a run dir removed meanwhile cannot fail
 * a later open); a write error only ends the copy, with one line on stderr: the lines still reach
 * the handlers.
 */
function copyTo(stream: NodeJS.ReadableStream, path: string): void {
  const file = createWriteStream(path, { fd: openSync(path, 'a') });
  file.on('error', (error) => {
    process.stderr.write(`cannot copy a test server's stdout to ${path}: ${error.message}\n`);
    stream.unpipe(file);
  });
  stream.pipe(file);
}
