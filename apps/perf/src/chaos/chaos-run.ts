import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { PollTimeoutError, pollUntil } from '../support/poll-until.js';
import { ChaosCluster, type ChaosWorkloadSpec } from './chaos-cluster.js';
import type { ExitStatus } from './chaos-node.js';
import { createSchedule, describeFault, type Fault, type FaultKind } from './chaos-schedule.js';
import { committedRecords, compareCommittedLogs, TEST_SERVER_PARTITION_DIRECTORY } from './committed-log.js';
import { checkHistory, type HistoryCheck, type HistoryEvent, parseHistory } from './history-checker.js';
import { KvDriver, type KvRunReport, type KvWorkloadOptions } from './kv-workload.js';
import type { NetworkCapabilities } from './network-namespaces.js';
import type { WorkloadDriver } from './workload-driver.js';

/** The append workload (the default): test servers appending tagged records at a rate. */
export interface AppendWorkloadOptions {
  readonly kind: 'append';
  readonly throughputRecordsPerSecond: number;
  readonly recordSizeBytes: number;
}

export type RunWorkloadOptions = AppendWorkloadOptions | KvWorkloadOptions;

export interface ChaosRunOptions {
  readonly seed: number;
  readonly nodeCount: number;
  /** Faults start and heal within this window after the first leader commits. */
  readonly faultWindowMs: number;
  readonly workload: RunWorkloadOptions;
  readonly capabilities: NetworkCapabilities;
  readonly log: (line: string) => void;
}

export interface ChaosRunResult {
  readonly seed: number;
  readonly nodeCount: number;
  readonly workload: RunWorkloadOptions['kind'];
  readonly faults: readonly Fault[];
  readonly injected: number;
  /** The append workload's history check. */
  readonly check: HistoryCheck | undefined;
  /** The kv workload's clients, linearizability check and final maps. */
  readonly kv: KvRunReport | undefined;
  readonly committedOffset: number;
  readonly failures: readonly string[];
  readonly passed: boolean;
  readonly durationMs: number;
  /** The run's dir (configs, histories, server logs), kept when the run failed. */
  readonly directory: string | undefined;
}

/** Real processes on a loaded 2-core machine: a first election plus tsx start-up can take a while. */
const STARTUP_TIMEOUT_MS = 90_000;
/** After the heal: time to elect, catch every node up and commit past the heal. */
const SETTLE_TIMEOUT_MS = 90_000;
const STATS_INTERVAL_MS = 500;
const POLL_MS = 200;

/** The fault kinds this machine can inject: full disks need tmpfs mounts, clock jumps libfaketime. */
export function injectableKinds(capabilities: NetworkCapabilities, kinds: readonly FaultKind[]): FaultKind[] {
  return kinds.filter(
    (kind) =>
      (kind !== 'disk-full' || capabilities.tmpfs) &&
      (kind !== 'clock-jump' || capabilities.faketimeLibrary !== undefined),
  );
}

/** True once `condition` holds, false when it still does not after `timeoutMs`. */
async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  try {
    await pollUntil('a condition', timeoutMs, condition, { intervalMs: POLL_MS });
    return true;
  } catch (error) {
    if (error instanceof PollTimeoutError) return false;
    throw error;
  }
}

function describeExit(status: ExitStatus | undefined): string {
  if (status === undefined) return 'running';
  return status.signal === null ? `exit ${status.code}` : `signal ${status.signal}`;
}

function clusterWorkload(workload: RunWorkloadOptions): ChaosWorkloadSpec {
  if (workload.kind === 'append') return workload;
  return workload.plantedBug === undefined ? { kind: 'kv' } : { kind: 'kv', plantedBug: workload.plantedBug };
}

/**
 * One chaos run: start the quorum, wait for a committing leader, start the workload, inject the
 * schedule's faults one by one (each healed before the next), heal everything, wait until every
 * node follows one leader past what was committed, stop, then check every node's committed log
 * and what the workload recorded.
 */
export async function runChaos(
  options: ChaosRunOptions,
  kinds: readonly FaultKind[],
): Promise<ChaosRunResult> {
  const startedMs = performance.now();
  const say = (line: string) => options.log(`[seed ${options.seed}] ${line}`);
  const cluster = await ChaosCluster.create({
    nodeCount: options.nodeCount,
    capabilities: options.capabilities,
    workload: clusterWorkload(options.workload),
    statsIntervalMs: STATS_INTERVAL_MS,
  });
  const faults = createSchedule({
    seed: options.seed,
    nodeIds: cluster.nodeIds,
    faultWindowMs: options.faultWindowMs,
    kinds: injectableKinds(options.capabilities, kinds),
  });
  const driver: AppendDriver | KvDriver =
    options.workload.kind === 'append'
      ? new AppendDriver(cluster)
      : new KvDriver(cluster, options.workload, {
          seed: options.seed,
          faultWindowMs: options.faultWindowMs,
          say,
        });
  const failures: string[] = [];
  let injected = 0;
  let committedOffset = 0;
  try {
    say(`${options.nodeCount} nodes in ${cluster.network.namePrefix}-*, ${faults.length} faults scheduled`);
    for (const nodeId of cluster.nodeIds) cluster.start(nodeId);
    if (!(await waitFor(() => leaderOf(cluster) !== undefined, STARTUP_TIMEOUT_MS))) {
      throw new Error(`no leader committed within ${STARTUP_TIMEOUT_MS} ms`);
    }
    await driver.begin();
    injected = await applySchedule(cluster, faults, options.faultWindowMs, say, failures);
    driver.endWindow();
    const healedAt = cluster.maxHighWatermark();
    cluster.healEverything();
    await driver.afterHeal(failures);
    if (await waitFor(() => driver.settled(cluster, healedAt), SETTLE_TIMEOUT_MS)) {
      await driver.afterSettle(failures);
    } else {
      failures.push(`not settled ${SETTLE_TIMEOUT_MS} ms after the heal: ${describeStatuses(cluster)}`);
    }
    for (const [nodeId, status] of await cluster.stopAll()) {
      if (status?.code !== 0) failures.push(`node ${nodeId} did not stop cleanly: ${describeExit(status)}`);
    }
    committedOffset = await driver.verify(failures);
  } catch (error) {
    failures.push(error instanceof Error ? error.message : String(error));
  } finally {
    cluster.destroy(failures.length > 0);
  }
  const passed = failures.length === 0;
  return {
    seed: options.seed,
    nodeCount: options.nodeCount,
    workload: options.workload.kind,
    faults,
    injected,
    check: driver instanceof AppendDriver ? driver.check : undefined,
    kv: driver instanceof KvDriver ? driver.report() : undefined,
    committedOffset,
    failures,
    passed,
    durationMs: performance.now() - startedMs,
    directory: passed ? undefined : cluster.directory,
  };
}

/** The leader every running node agrees on, once it reports a high watermark. */
export function leaderOf(cluster: ChaosCluster): number | undefined {
  for (const node of cluster.nodes.values()) {
    const status = node.status;
    if (status?.role === 'Leader' && (status.highWatermark ?? 0) > 0) return node.options.nodeId;
  }
  return undefined;
}

/** Every node runs, follows one leader of one epoch, and has a high watermark past `offset`. */
export function settled(cluster: ChaosCluster, offset: number): boolean {
  const statuses = [...cluster.nodes.values()].map((node) => (node.running ? node.status : undefined));
  const first = statuses[0];
  if (first?.leaderId === undefined) return false;
  return statuses.every(
    (status) =>
      status !== undefined &&
      status.leaderId === first.leaderId &&
      status.epoch === first.epoch &&
      (status.highWatermark ?? -1) > offset,
  );
}

function describeStatuses(cluster: ChaosCluster): string {
  return [...cluster.nodes.values()]
    .map((node) => {
      const status = node.status;
      const state =
        status === undefined
          ? describeExit(node.exitStatus)
          : `${status.role}@${status.epoch} hwm ${status.highWatermark}`;
      return `node ${node.options.nodeId} ${state}`;
    })
    .join(', ');
}

/**
 * Injects each fault at its time and heals it when it ends. A node that exits by itself is a
 * failure unless its disk was full (Kafka stops on a failed log dir too); it is restarted at the
 * heal either way.
 */
async function applySchedule(
  cluster: ChaosCluster,
  faults: readonly Fault[],
  windowMs: number,
  say: (line: string) => void,
  failures: string[],
): Promise<number> {
  const originMs = performance.now();
  let injected = 0;
  for (const fault of faults) {
    await sleep(Math.max(0, originMs + fault.startMs - performance.now()));
    const before = new Set(cluster.nodeIds.filter((nodeId) => cluster.node(nodeId).running));
    await cluster.inject(fault);
    injected += 1;
    say(`inject ${describeFault(fault)}`);
    await sleep(Math.max(0, originMs + fault.startMs + fault.durationMs - performance.now()));
    await cluster.heal(fault);
    for (const nodeId of cluster.nodeIds) {
      const node = cluster.node(nodeId);
      const expected = fault.kind === 'kill' || fault.kind === 'clock-jump' || fault.kind === 'disk-full';
      if (before.has(nodeId) && !node.running && !(expected && fault.nodeIds[0] === nodeId)) {
        failures.push(
          `node ${nodeId} exited during fault ${describeFault(fault)}: ${describeExit(node.exitStatus)}`,
        );
      }
    }
    const restarted = cluster.restartStopped();
    if (restarted.length > 0) say(`restarted node(s) ${restarted.join(', ')}`);
  }
  await sleep(Math.max(0, originMs + windowMs - performance.now()));
  return injected;
}

/** The append workload: the test servers write and record by themselves from their start. */
class AppendDriver implements WorkloadDriver {
  check: HistoryCheck | undefined;

  constructor(private readonly cluster: ChaosCluster) {}

  async begin(): Promise<void> {}

  endWindow(): void {}

  async afterHeal(): Promise<void> {}

  settled(cluster: ChaosCluster, offset: number): boolean {
    return settled(cluster, offset);
  }

  async afterSettle(): Promise<void> {}

  /**
   * The committed offset is the highest high watermark any node reported, or past the last
   * acknowledged record if that is higher. Below it, every node's batches must equal the longest
   * log's byte for byte, a majority must hold all of it, and the histories must check.
   */
  async verify(failures: string[]): Promise<number> {
    const { cluster } = this;
    const events = this.readHistories();
    const lastAcked = Math.max(
      -1,
      ...events
        .filter((event) => event.type === 'ok')
        .map((event) => (event.firstOffset ?? 0) + event.count - 1),
    );
    const committedOffset = Math.max(cluster.maxHighWatermark(), lastAcked + 1);
    const { reference, problems } = compareCommittedLogs(
      cluster.committedLogs(committedOffset, TEST_SERVER_PARTITION_DIRECTORY),
      committedOffset,
    );
    failures.push(...problems);
    this.check = checkHistory(events, committedRecords(reference.batches, committedOffset));
    failures.push(...this.check.problems);
    return committedOffset;
  }

  private readHistories(): HistoryEvent[] {
    return this.cluster.nodeIds.flatMap((nodeId) => {
      const path = this.cluster.historyPath(nodeId);
      return existsSync(path) ? parseHistory(readFileSync(path, 'utf8'), path) : [];
    });
  }
}
