import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PollTimeoutError, pollUntil } from '../support/poll-until.js';
import { START_SCRIPT, TestServerProcess } from '../support/test-server-process.js';
import { readProcessUsage } from './process-usage.js';

const HOST = '127.0.0.1';
/** SIGTERM, then SIGKILL after this: the server's own hard stop is 4.5 s. */
const STOP_GRACE_MS = 8_000;
const POLL_INTERVAL_MS = 20;
/** Where the test server keeps the quorum's log (its topic partition, under `log.dirs`). */
export const PARTITION_DIRECTORY = '__raft_performance_test-0';
/**
 * How long a node may take from its launch to its first stats line. Start-up is CPU work (tsx
 * compiling and loading the modules, then the log opened: about 2 CPU-s a node), and a busy
 * machine stretches it: at a load average of 35 on 2 cores a 3-node quorum took 107 s to start.
 * It gets its own bound, so a leader wait measures raft, not the module loader.
 */
export const STARTUP_TIMEOUT_MS = 300_000;

/** Start-up ran out of time: the message names each node still starting, its CPU time and the load. */
export class NodeStartupTimeoutError extends PollTimeoutError {
  override readonly name: string = 'NodeStartupTimeoutError';
}

/** No leader every node knows, counted from when every node had started; the message shows each node's view. */
export class LeaderTimeoutError extends PollTimeoutError {
  override readonly name: string = 'LeaderTimeoutError';
}

export interface LocalQuorumOptions {
  readonly nodeCount: number;
  /** The test server's arguments after its config and directory id (workload, throughput, ...). */
  readonly serverArguments: readonly string[];
  /** Extra server properties (Kafka's keys), for every node. */
  readonly properties?: Readonly<Record<string, string>>;
  readonly statsIntervalMs: number;
  /** Where the run's directory goes (default the OS temp dir). */
  readonly baseDirectory?: string;
}

/** The test server's arguments for Kafka's raft workload. */
export function raftWorkloadArguments(throughputRecordsPerSecond: number, recordSizeBytes: number): string[] {
  return ['--throughput', String(throughputRecordsPerSecond), '--record-size', String(recordSizeBytes)];
}

/** One local node: the process, and where its files are. */
export class LocalNode extends TestServerProcess {
  constructor(
    nodeId: number,
    readonly directory: string,
    readonly configPath: string,
    private readonly serverArguments: readonly string[],
    statsIntervalMs: number,
  ) {
    super({
      nodeId,
      stderrPath: join(directory, 'stderr.log'),
      stdoutPath: join(directory, 'stdout.log'),
      statsIntervalMs,
    });
  }

  get nodeId(): number {
    return this.processOptions.nodeId;
  }

  get logDirectory(): string {
    return join(this.directory, 'log');
  }

  /** Kept across restarts: the log dir's meta.properties holds it. */
  private readonly directoryId = randomBytes(16).toString('base64url');
  /** Set by `kill()`: an exit the runner caused, which `waitFor` does not treat as a failure. */
  expectedExit = false;

  /** Starts the server; `serverArguments` replaces the quorum's workload arguments for this start. */
  start(serverArguments: readonly string[] = this.serverArguments): void {
    this.expectedExit = false;
    this.launch([
      START_SCRIPT,
      '--config',
      this.configPath,
      '--replica-directory-id',
      this.directoryId,
      ...serverArguments,
    ]);
  }
}

/** A port nothing listens on now: bound on 127.0.0.1 with port 0, then released. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, HOST, resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port bound');
  return address.port;
}

/** Distinct free ports, each bind-checked. */
export async function freePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

/**
 * N test servers on 127.0.0.1, each with a fresh dir under one temporary run dir, their ports
 * picked free by binding. `destroy()` kills what still runs and removes the dir; clusters not yet
 * destroyed are destroyed by the runner's signal and exit handlers (`LocalQuorum.active`).
 */
export class LocalQuorum {
  static readonly active = new Set<LocalQuorum>();
  readonly nodes: LocalNode[] = [];

  private constructor(readonly directory: string) {
    LocalQuorum.active.add(this);
  }

  static async create(options: LocalQuorumOptions): Promise<LocalQuorum> {
    const directory = mkdtempSync(join(options.baseDirectory ?? tmpdir(), 'kraft-perf-'));
    const quorum = new LocalQuorum(directory);
    try {
      const ports = await freePorts(options.nodeCount);
      const voters = ports.map((port, index) => `${index + 1}@${HOST}:${port}`).join(',');
      for (const [index, port] of ports.entries()) {
        const nodeId = index + 1;
        const nodeDirectory = join(directory, `n${nodeId}`);
        mkdirSync(join(nodeDirectory, 'log'), { recursive: true });
        const configPath = join(nodeDirectory, 'server.properties');
        const properties = {
          'node.id': String(nodeId),
          'process.roles': 'controller',
          listeners: `CONTROLLER://${HOST}:${port}`,
          'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT',
          'controller.listener.names': 'CONTROLLER',
          'controller.quorum.voters': voters,
          'log.dirs': join(nodeDirectory, 'log'),
          ...options.properties,
        };
        const text = Object.entries(properties).map(([key, value]) => `${key}=${value}`);
        writeFileSync(configPath, `${text.join('\n')}\n`);
        quorum.nodes.push(
          new LocalNode(nodeId, nodeDirectory, configPath, options.serverArguments, options.statsIntervalMs),
        );
      }
      for (const node of quorum.nodes) node.start();
      return quorum;
    } catch (error) {
      quorum.destroy();
      throw error;
    }
  }

  /**
   * Creates a quorum, runs `body` on it, and always destroys it: the run dir is kept when the
   * result did not pass (or never came), or when `keepDirectory`.
   */
  static async run<T extends { readonly passed: boolean }>(
    options: LocalQuorumOptions & { readonly keepDirectory?: boolean },
    body: (quorum: LocalQuorum) => Promise<T>,
  ): Promise<T> {
    const quorum = await LocalQuorum.create(options);
    let passed = false;
    try {
      const result = await body(quorum);
      passed = result.passed;
      return result;
    } finally {
      const keep = options.keepDirectory === true || !passed;
      // pino writes asynchronously, so a SIGKILL drops the lines a node had not written yet: the
      // nodes of a failed run get SIGTERM first, and the kept logs end with what each did last.
      if (!passed) await quorum.stopAll();
      quorum.destroy(keep);
      if (keep) process.stderr.write(`run dir kept: ${quorum.directory}\n`);
    }
  }

  node(nodeId: number): LocalNode {
    const node = this.nodes[nodeId - 1];
    if (node === undefined) throw new RangeError(`no node ${nodeId}`);
    return node;
  }

  /** The node every running node names as leader, when they agree and it says so itself. */
  leader(): LocalNode | undefined {
    const running = this.nodes.filter((node) => node.running);
    const leaderIds = new Set(running.map((node) => node.status?.leaderId));
    if (leaderIds.size !== 1) return undefined;
    const [leaderId] = leaderIds;
    if (leaderId === undefined) return undefined;
    const leader = this.nodes[leaderId - 1];
    return leader?.status?.role.toLowerCase() === 'leader' ? leader : undefined;
  }

  /**
   * Resolves once every running node printed a stats line since its last start; rejects with a
   * NodeStartupTimeoutError when one has not within `timeoutMs` (call it right after starting).
   */
  async waitForStart(timeoutMs: number = STARTUP_TIMEOUT_MS): Promise<void> {
    const starting = () => this.nodes.filter((node) => node.running && !node.started);
    try {
      await this.waitFor('every node to start', timeoutMs, () => starting().length === 0);
    } catch (error) {
      if (!(error instanceof PollTimeoutError)) throw error;
      const late = starting().map((node) => `node ${node.nodeId}`);
      throw new NodeStartupTimeoutError(
        `${late.join(', ')} printed no stats line within ${timeoutMs} ms (${this.describeNodes()}): start-up ran out of time, before any election`,
      );
    }
  }

  /**
   * Waits for every node to start (`waitForStart`, bounded by `startupTimeoutMs`), then up to
   * `timeoutMs` for a leader every node knows: a slow start on a busy machine does not eat the
   * election's time, and each failure says which of the two ran out.
   */
  async waitForLeader(timeoutMs: number, startupTimeoutMs: number = STARTUP_TIMEOUT_MS): Promise<LocalNode> {
    await this.waitForStart(startupTimeoutMs);
    let leader: LocalNode | undefined;
    try {
      await this.waitFor('a leader every node knows', timeoutMs, () => {
        leader = this.leader();
        return leader !== undefined;
      });
    } catch (error) {
      if (!(error instanceof PollTimeoutError)) throw error;
      throw new LeaderTimeoutError(
        `no leader every node knows within ${timeoutMs} ms of every node having started (${this.describeNodes()})`,
      );
    }
    return leader as LocalNode;
  }

  /** Each node's last stats line and CPU time, and the load average: what a timeout message needs. */
  private describeNodes(): string {
    const nodes = this.nodes.map((node) => {
      const status = node.status;
      const view =
        status === undefined
          ? node.running
            ? `no stats line yet, ${(node.millisecondsSinceLaunch() / 1000).toFixed(1)} s after its start`
            : 'not running'
          : `${status.role} in epoch ${status.epoch}, leader ${status.leaderId ?? 'none'}`;
      const cpuSeconds = node.pid === undefined ? undefined : readProcessUsage(node.pid)?.cpuSeconds;
      return `node ${node.nodeId}: ${view}${cpuSeconds === undefined ? '' : `, ${cpuSeconds.toFixed(2)} CPU-s used`}`;
    });
    return `${nodes.join('; ')}; load average ${loadavg()[0]?.toFixed(1)}`;
  }

  /** Resolves when `condition` holds; rejects after `timeoutMs` or when a node exits. */
  async waitFor(what: string, timeoutMs: number, condition: () => boolean): Promise<void> {
    const check = () => {
      const exited = this.nodes.find((node) => node.exitStatus !== undefined && !node.expectedExit);
      if (exited !== undefined) {
        throw new Error(
          `node ${exited.nodeId} exited (${JSON.stringify(exited.exitStatus)}) while waiting for ${what}; see ${exited.processOptions.stderrPath}`,
        );
      }
    };
    await pollUntil(what, timeoutMs, condition, { intervalMs: POLL_INTERVAL_MS, check });
  }

  /** `signal` (kill -9 unless told) to one node, an exit `waitFor` expects. */
  kill(node: LocalNode, signal: NodeJS.Signals = 'SIGKILL'): void {
    node.expectedExit = true;
    node.signal(signal);
  }

  signalAll(signal: NodeJS.Signals): void {
    for (const node of this.nodes) node.signal(signal);
  }

  /** SIGTERM to every node at once; how each exited (SIGKILL after the grace time). */
  async stopAll(): Promise<Map<number, Awaited<ReturnType<LocalNode['stop']>>>> {
    const entries = await Promise.all(
      this.nodes.map(async (node) => [node.nodeId, await node.stop('SIGTERM', STOP_GRACE_MS)] as const),
    );
    return new Map(entries);
  }

  /** Kills what still runs; removes the run dir unless `keepDirectory`. */
  destroy(keepDirectory = false): void {
    LocalQuorum.active.delete(this);
    for (const node of this.nodes) node.signal('SIGKILL');
    if (!keepDirectory) rmSync(this.directory, { recursive: true, force: true });
  }
}
