import { type NodeStatus, TestServerProcess } from '../support/test-server-process.js';

export { type ExitStatus, type NodeStatus, parseStatus } from '../support/test-server-process.js';

export interface ChaosNodeOptions {
  readonly nodeId: number;
  readonly namespace: string;
  /** A process whose mount namespace holds the node's tmpfs log dir; the node joins it. */
  readonly mountHolderPid: number | undefined;
  /** The server to run inside the namespace: the test server's start script, or a kv-store process. */
  readonly command: readonly string[];
  /** Variables the server reads (the kv-store process takes its settings from its environment). */
  readonly environment?: Readonly<Record<string, string>>;
  /** Reads the server's status lines; the test server's stats line by default. */
  readonly parseStatus?: (line: string) => NodeStatus | undefined;
  readonly stderrPath: string;
  /** The server's stdout is appended there too, so a kept run dir shows its status lines. */
  readonly stdoutPath?: string;
  readonly statsIntervalMs: number;
}

/** A wall clock off by `offsetSeconds`, through libfaketime preloaded into the server. */
export interface FakeClock {
  readonly library: string;
  readonly offsetSeconds: number;
}

/**
 * One server inside its node's namespace (`ip netns exec`, under `nsenter` into the mount holder
 * when the log dir is a tmpfs), restartable, optionally under faketime, pausable.
 */
export class ChaosNode extends TestServerProcess {
  paused = false;

  constructor(readonly options: ChaosNodeOptions) {
    super(options);
  }

  /** With `clock`, the server's wall clock is off by its offset (libfaketime). */
  start(clock?: FakeClock): void {
    const { options } = this;
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
    const inNamespace = ['ip', 'netns', 'exec', options.namespace, ...fakeClock, ...options.command];
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
