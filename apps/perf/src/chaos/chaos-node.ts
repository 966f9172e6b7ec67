import { START_SCRIPT, TestServerProcess } from '../support/test-server-process.js';

export { type ExitStatus, type NodeStatus, parseStatus } from '../support/test-server-process.js';

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

/**
 * One test server inside its node's namespace (`ip netns exec`, under `nsenter` into the mount
 * holder when the log dir is a tmpfs), restartable, optionally under faketime, pausable.
 */
export class ChaosNode extends TestServerProcess {
  paused = false;

  constructor(readonly options: ChaosNodeOptions) {
    super(options);
  }

  /** With `clock`, the server's wall clock is off by its offset (libfaketime). */
  start(clock?: FakeClock): void {
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
    this.launch(command);
    this.paused = false;
  }

  pause(): void {
    this.signal('SIGSTOP');
    this.paused = true;
  }

  resume(): void {
    if (this.paused) this.signal('SIGCONT');
    this.paused = false;
  }

  /** A paused node is resumed first, so that it can act on the signal. */
  override stop(signal: NodeJS.Signals, graceMs: number) {
    if (this.running) this.resume();
    return super.stop(signal, graceMs);
  }
}
