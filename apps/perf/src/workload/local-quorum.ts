import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pollUntil } from '../support/poll-until.js';
import { START_SCRIPT, TestServerProcess } from '../support/test-server-process.js';

const HOST = '127.0.0.1';
/** SIGTERM, then SIGKILL after this: the server's own hard stop is 4.5 s. */
const STOP_GRACE_MS = 8_000;
const POLL_INTERVAL_MS = 20;
/** Where the test server keeps the quorum's log (its topic partition, under `log.dirs`). */
export const PARTITION_DIRECTORY = '__raft_performance_test-0';

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
    super({ nodeId, stderrPath: join(directory, 'stderr.log'), statsIntervalMs });
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

  async waitForLeader(timeoutMs: number): Promise<LocalNode> {
    let leader: LocalNode | undefined;
    await this.waitFor('a leader every node knows', timeoutMs, () => {
      leader = this.leader();
      return leader !== undefined;
    });
    return leader as LocalNode;
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
