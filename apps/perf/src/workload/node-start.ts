import type { LocalNode, LocalQuorum } from './local-quorum.js';
import { ServerLog, type ServerLogLine } from './server-log.js';

/** The log lines of a start the restart and catch-up scenarios time (`@kraft/log`, the test server). */
const DIRECTORY_CHECKED_MESSAGE = 'log directory checked';
const LOG_OPENED_MESSAGE = 'opened log';
const OPEN_TIMEOUT_MS = 600_000;

/** How one start of a node opened its log, from its own log lines (wall clock, ms resolution). */
export interface LogOpen {
  readonly nodeId: number;
  /** From the spawn (the runner's clock) to the `opened log` line: tsx's start-up, the lock, the open. */
  readonly launchToLogOpenedMs: number;
  /** From `log directory checked` to `opened log`: the open itself, a full scan after an unclean stop. */
  readonly logOpenMs: number;
  /** false: no clean-shutdown marker (or it disagreed), so every batch was validated (ADR 0004). */
  readonly clean: boolean;
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  readonly segments: number;
}

/** A node being started: its spawn time on both clocks and its stderr from the spawn on. */
export class NodeStart {
  readonly launchedMs: number;
  private readonly launchedWallMs: number;
  readonly log: ServerLog;

  private constructor(
    readonly node: LocalNode,
    serverArguments: readonly string[],
  ) {
    this.log = new ServerLog(node.processOptions.stderrPath);
    this.log.mark();
    this.launchedWallMs = Date.now();
    this.launchedMs = performance.now();
    node.start(serverArguments);
  }

  static launch(node: LocalNode, serverArguments: readonly string[]): NodeStart {
    return new NodeStart(node, serverArguments);
  }

  /**
   * The start's first line with `message` (and `matches`), once the node has written it: pino
   * writes stderr asynchronously, so a line may land a little after what it logged was seen on
   * stdout. Its `time` is when it was logged. Fails after `timeoutMs` or when a node dies.
   */
  async waitForLine(
    quorum: LocalQuorum,
    message: string,
    timeoutMs: number,
    matches: (line: ServerLogLine) => boolean = () => true,
  ): Promise<ServerLogLine> {
    let found: ServerLogLine | undefined;
    await quorum.waitFor(`node ${this.node.nodeId} to log '${message}'`, timeoutMs, () => {
      found = this.log.lines().find((line) => line.msg === message && matches(line));
      return found !== undefined;
    });
    return found as ServerLogLine;
  }

  /** Waits for the start's `opened log` line and reads its figures. */
  async logOpened(quorum: LocalQuorum): Promise<LogOpen> {
    const opened = await this.waitForLine(quorum, LOG_OPENED_MESSAGE, OPEN_TIMEOUT_MS);
    const checked = this.log.find(DIRECTORY_CHECKED_MESSAGE);
    return {
      nodeId: this.node.nodeId,
      launchToLogOpenedMs: this.wallSinceLaunchMs(opened.time),
      logOpenMs: checked === undefined ? Number.NaN : opened.time - checked.time,
      clean: opened['clean'] === true,
      logStartOffset: Number(opened['logStartOffset']),
      logEndOffset: Number(opened['logEndOffset']),
      segments: Number(opened['segments']),
    };
  }

  /** Milliseconds from the spawn to a log line's `time` (the wall clock, as the line has it). */
  wallSinceLaunchMs(lineTimeMs: number): number {
    return lineTimeMs - this.launchedWallMs;
  }

  /** Milliseconds from the spawn to now (the runner's monotonic clock). */
  sinceLaunchMs(): number {
    return performance.now() - this.launchedMs;
  }
}
