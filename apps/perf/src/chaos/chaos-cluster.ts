import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { START_SCRIPT } from '../support/test-server-process.js';
import { ChaosNode, type ChaosNodeOptions, type FakeClock } from './chaos-node.js';
import type { Fault } from './chaos-schedule.js';
import { type CommittedLog, readCommittedLog } from './committed-log.js';
import { checkDestinations } from './destinations.js';
import {
  KV_HTTP_PORT,
  KV_SNAPSHOT_EVERY_RECORDS,
  kvNodeCommand,
  kvNodeEnvironment,
  parseKvStatus,
} from './kv-node.js';
import { MountHolder } from './mount-holder.js';
import {
  ChaosNetwork,
  isLiveRunner,
  NAMESPACE_PREFIX,
  type NetworkCapabilities,
} from './network-namespaces.js';

/** The controller port on every node's own address (each node is its own host). */
const CONTROLLER_PORT = 9093;
/** The runner's own records of what it started, for the cleanup of a runner that died: `<pid> <start time>`. */
const PROCESS_FILE = 'processes';
/** SIGTERM, then SIGKILL after this: the server's own hard stop is 4.5 s. */
const STOP_GRACE_MS = 8_000;
/** Bounds the bytes one node's committed log may hold in memory during the check. */
const MAX_COMMITTED_LOG_BYTES = 512 * 1024 * 1024;

/**
 * What the nodes run: `append`, test servers appending tagged records (each server records its
 * own history); `kv`, kv-store processes (`examples/kv-store`) driven by clients in a namespace
 * of their own, with the stale-read bug planted when `plantedBug` says so (a test-only mode).
 */
export type ChaosWorkloadSpec =
  | {
      readonly kind: 'append';
      readonly throughputRecordsPerSecond: number;
      readonly recordSizeBytes: number;
    }
  | { readonly kind: 'kv'; readonly plantedBug?: 'stale-reads' };

export interface ChaosClusterOptions {
  readonly nodeCount: number;
  readonly capabilities: NetworkCapabilities;
  readonly workload: ChaosWorkloadSpec;
  readonly statsIntervalMs: number;
}

/** A process's start time in clock ticks since boot (`/proc/<pid>/stat` field 22): with the pid, its identity. */
function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/**
 * Removes what runners that died left behind: their namespaces (by prefix, keeping live runs'),
 * the processes they started (only those whose pid and start time they recorded), their dirs.
 */
export function removeLeftovers(removeNamespaces: () => string[]): string[] {
  const removed = removeNamespaces();
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(NAMESPACE_PREFIX)) continue;
    const runnerPid = Number(name.slice(NAMESPACE_PREFIX.length).split('-')[0]);
    if (runnerPid === process.pid || isLiveRunner(runnerPid)) continue;
    const directory = join(tmpdir(), name);
    const processFile = join(directory, PROCESS_FILE);
    const lines = existsSync(processFile) ? readFileSync(processFile, 'utf8').split('\n') : [];
    for (const line of lines) {
      const [pid, startTime] = line.split(' ');
      if (pid !== undefined && startTime !== undefined && processStartTime(Number(pid)) === startTime) {
        process.kill(Number(pid), 'SIGKILL');
        removed.push(`process ${pid}`);
      }
    }
    rmSync(directory, { recursive: true, force: true });
    removed.push(directory);
  }
  return removed;
}

/**
 * N servers (test servers, or kv-store processes), each in its own network namespace with its own
 * address, their log dirs on tmpfs mounts of a mount holder when the machine allows, and the
 * faults of a schedule applied to them; for the kv workload, a client namespace joined to every
 * node. `destroy()` removes everything it made.
 */
export class ChaosCluster {
  /** Clusters not yet destroyed: a signal handler destroys them before the process exits. */
  static readonly active = new Set<ChaosCluster>();
  readonly nodes = new Map<number, ChaosNode>();
  readonly network: ChaosNetwork;
  readonly directory: string;
  private readonly holder: MountHolder | undefined;
  /** Helper processes of the run (the kv workload's clients), killed by `destroy()`. */
  private readonly helpers = new Set<ChildProcess>();

  private constructor(
    network: ChaosNetwork,
    holder: MountHolder | undefined,
    private readonly options: ChaosClusterOptions,
  ) {
    this.network = network;
    this.holder = holder;
    this.directory = join(tmpdir(), network.namePrefix);
    mkdirSync(this.directory, { recursive: true });
    ChaosCluster.active.add(this);
  }

  static async create(options: ChaosClusterOptions): Promise<ChaosCluster> {
    const nodeIds = Array.from({ length: options.nodeCount }, (_, index) => index + 1);
    const network = ChaosNetwork.create(nodeIds, { client: options.workload.kind === 'kv' });
    let cluster: ChaosCluster | undefined;
    try {
      const holder = options.capabilities.tmpfs ? MountHolder.start() : undefined;
      cluster = new ChaosCluster(network, holder, options);
      if (holder !== undefined) {
        cluster.recordProcess(holder.pid);
        await holder.ready(10_000);
      }
      for (const nodeId of nodeIds) cluster.addNode(nodeId);
      return cluster;
    } catch (error) {
      if (cluster === undefined) network.destroy();
      else cluster.destroy();
      throw error;
    }
  }

  get nodeIds(): number[] {
    return [...this.nodes.keys()];
  }

  node(nodeId: number): ChaosNode {
    const node = this.nodes.get(nodeId);
    if (node === undefined) throw new RangeError(`no chaos node ${nodeId}`);
    return node;
  }

  /** The node's log dir as the runner can read it (through the holder's namespace for a tmpfs). */
  logDirectoryView(nodeId: number): string {
    const directory = this.logDirectory(nodeId);
    return this.holder === undefined ? directory : this.holder.view(directory);
  }

  /** The highest high watermark any node ever reported: committed, whatever happened later. */
  maxHighWatermark(): number {
    return Math.max(0, ...[...this.nodes.values()].map((node) => node.maxHighWatermark));
  }

  /** Every node's log below `committedOffset`, read from `partitionDirectory` of its log dir. */
  committedLogs(committedOffset: number, partitionDirectory: string): Map<number, CommittedLog> {
    return new Map(
      this.nodeIds.map((nodeId) => [
        nodeId,
        readCommittedLog(
          this.logDirectoryView(nodeId),
          committedOffset,
          MAX_COMMITTED_LOG_BYTES,
          partitionDirectory,
        ),
      ]),
    );
  }

  /** The test server's own history of its appends (the append workload). */
  historyPath(nodeId: number): string {
    return join(this.directory, `n${nodeId}`, 'history.jsonl');
  }

  stderrPath(nodeId: number): string {
    return join(this.directory, `n${nodeId}`, 'stderr.log');
  }

  start(nodeId: number, clock?: FakeClock): void {
    const node = this.node(nodeId);
    node.start(clock);
    if (node.pid !== undefined) this.recordProcess(node.pid);
  }

  /** Starts every node that is not running (after a kill, a crash, a full disk). */
  restartStopped(): number[] {
    const restarted = this.nodeIds.filter((nodeId) => !this.node(nodeId).running);
    for (const nodeId of restarted) this.start(nodeId);
    return restarted;
  }

  async inject(fault: Fault): Promise<void> {
    const [first, second] = fault.nodeIds as [number, number];
    switch (fault.kind) {
      case 'partition-link':
        return this.network.cutLink(first, second);
      case 'isolate-node':
        for (const other of this.nodeIds) if (other !== first) this.network.cutLink(first, other);
        // Isolated from everyone: its clients' requests time out too (ADR 0044).
        if (this.network.hasClient) this.network.cutClientLink(first);
        return;
      case 'blackhole':
        return this.network.blackhole(first, second);
      case 'slow-link':
        return this.network.slowLink(first, second, fault.rateKbit ?? 64, fault.latencyMs ?? 100);
      case 'kill':
        return this.node(first).signal('SIGKILL');
      case 'pause':
        return this.node(first).pause();
      case 'disk-full':
        this.requireHolder().fill(this.logDirectory(first));
        return;
      case 'clock-jump':
        return this.restartUnderFaketime(first, fault.clockJumpSeconds ?? 60);
    }
  }

  async heal(fault: Fault): Promise<void> {
    const [first, second] = fault.nodeIds as [number, number];
    switch (fault.kind) {
      case 'partition-link':
        return this.network.healLink(first, second);
      case 'isolate-node':
        for (const other of this.nodeIds) if (other !== first) this.network.healLink(first, other);
        if (this.network.hasClient) this.network.healClientLink(first);
        return;
      case 'blackhole':
        return this.network.removeBlackhole(first, second);
      case 'slow-link':
        return this.network.restoreLink(first, second);
      case 'kill':
        return;
      case 'pause':
        return this.node(first).resume();
      case 'disk-full':
        return this.requireHolder().free(this.logDirectory(first));
      case 'clock-jump':
        await this.node(first).stop('SIGKILL', STOP_GRACE_MS);
        return;
    }
  }

  /** Every link healed, every paused node resumed, every stopped node started. */
  healEverything(): void {
    this.network.healAll();
    for (const node of this.nodes.values()) node.resume();
    for (const nodeId of this.nodeIds)
      if (this.holder !== undefined) this.holder.free(this.logDirectory(nodeId));
    this.restartStopped();
  }

  /** SIGTERM to every node at once; the exit of each (SIGKILL after the grace time). */
  async stopAll(): Promise<Map<number, Awaited<ReturnType<ChaosNode['stop']>>>> {
    const entries = await Promise.all(
      this.nodeIds.map(
        async (nodeId) => [nodeId, await this.node(nodeId).stop('SIGTERM', STOP_GRACE_MS)] as const,
      ),
    );
    return new Map(entries);
  }

  /**
   * Takes a helper process of the run (one started in the client namespace): its pid is recorded
   * for the cleanup of a runner that dies, and `destroy()` kills it.
   */
  adopt(child: ChildProcess): void {
    if (child.pid !== undefined) this.recordProcess(child.pid);
    this.helpers.add(child);
    child.once('exit', () => this.helpers.delete(child));
  }

  /** Kills the nodes, the helpers and the holder, deletes the namespaces; keeps the dir when `keepDirectory`. */
  destroy(keepDirectory = false): void {
    ChaosCluster.active.delete(this);
    for (const child of this.helpers) child.kill('SIGKILL');
    for (const node of this.nodes.values()) {
      node.resume();
      node.signal('SIGKILL');
    }
    this.holder?.stop();
    this.network.destroy();
    if (!keepDirectory) rmSync(this.directory, { recursive: true, force: true });
  }

  private addNode(nodeId: number): void {
    const logDirectory = this.logDirectory(nodeId);
    mkdirSync(logDirectory, { recursive: true });
    this.holder?.mountTmpfs(logDirectory);
    const common = {
      nodeId,
      namespace: this.network.namespaceOf(nodeId),
      mountHolderPid: this.holder?.pid,
      stderrPath: this.stderrPath(nodeId),
      statsIntervalMs: this.options.statsIntervalMs,
    };
    const workload = this.options.workload;
    const specific =
      workload.kind === 'append'
        ? this.testServer(nodeId, logDirectory, workload)
        : this.kvNode(nodeId, workload.plantedBug === 'stale-reads');
    this.nodes.set(nodeId, new ChaosNode({ ...common, ...specific }));
  }

  /** A test server with its config file, appending tagged records and recording its history. */
  private testServer(
    nodeId: number,
    logDirectory: string,
    workload: Extract<ChaosWorkloadSpec, { kind: 'append' }>,
  ): Pick<ChaosNodeOptions, 'command'> {
    const configPath = join(this.directory, `n${nodeId}`, 'server.properties');
    writeFileSync(configPath, this.serverProperties(nodeId, logDirectory));
    const command = [
      START_SCRIPT,
      '--config',
      configPath,
      '--replica-directory-id',
      randomBytes(16).toString('base64url'),
      '--throughput',
      String(workload.throughputRecordsPerSecond),
      '--record-size',
      String(workload.recordSizeBytes),
      '--history-file',
      this.historyPath(nodeId),
    ];
    return { command };
  }

  /** A kv-store process on the node's address, configured through its environment. */
  private kvNode(
    nodeId: number,
    staleLinearizableReads: boolean,
  ): Pick<ChaosNodeOptions, 'command' | 'environment' | 'parseStatus' | 'stdoutPath'> {
    const environment = kvNodeEnvironment({
      nodeId,
      directory: this.logDirectory(nodeId),
      addressOf: (id) => this.network.addressOf(id),
      nodeIds: this.network.nodeIds,
      raftPort: CONTROLLER_PORT,
      httpPort: KV_HTTP_PORT,
      statusIntervalMs: this.options.statsIntervalMs,
      snapshotEveryRecords: KV_SNAPSHOT_EVERY_RECORDS,
      staleLinearizableReads,
    });
    this.checkDestinations(nodeId, Object.values(environment).join('\n'));
    return {
      command: kvNodeCommand(),
      environment,
      parseStatus: parseKvStatus,
      stdoutPath: join(this.directory, `n${nodeId}`, 'stdout.log'),
    };
  }

  /**
   * Kafka's keys, Kafka's default timeouts. Every destination in the file (the listener and the
   * voters) is checked against the addresses this runner assigned before a node may use it.
   */
  private serverProperties(nodeId: number, logDirectory: string): string {
    const endpoint = (id: number) => `${this.network.addressOf(id)}:${CONTROLLER_PORT}`;
    const nodeIds = this.network.nodeIds;
    const text = [
      `node.id=${nodeId}`,
      'process.roles=controller',
      `listeners=CONTROLLER://${endpoint(nodeId)}`,
      'listener.security.protocol.map=CONTROLLER:PLAINTEXT',
      'controller.listener.names=CONTROLLER',
      `controller.quorum.voters=${nodeIds.map((id) => `${id}@${endpoint(id)}`).join(',')}`,
      `log.dirs=${logDirectory}`,
      '',
    ].join('\n');
    this.checkDestinations(nodeId, text);
    return text;
  }

  /** Every host:port in `text` must be an address this runner assigned, or the node is not started. */
  private checkDestinations(nodeId: number, text: string): void {
    checkDestinations(`node ${nodeId}`, text, (host) => this.network.owns(host));
  }

  private logDirectory(nodeId: number): string {
    return join(this.directory, `n${nodeId}`, 'log');
  }

  private requireHolder(): MountHolder {
    if (this.holder === undefined) throw new Error('a full-disk fault needs the tmpfs log dirs');
    return this.holder;
  }

  private async restartUnderFaketime(nodeId: number, offsetSeconds: number): Promise<void> {
    const library = this.options.capabilities.faketimeLibrary;
    if (library === undefined) throw new Error('a clock jump needs libfaketime');
    await this.node(nodeId).stop('SIGKILL', STOP_GRACE_MS);
    this.start(nodeId, { library, offsetSeconds });
  }

  private recordProcess(pid: number): void {
    const startTime = processStartTime(pid);
    if (startTime !== undefined) appendFileSync(join(this.directory, PROCESS_FILE), `${pid} ${startTime}\n`);
  }
}
