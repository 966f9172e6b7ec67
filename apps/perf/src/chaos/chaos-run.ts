import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { PollTimeoutError, pollUntil } from '../support/poll-until.js';
import { ChaosCluster } from './chaos-cluster.js';
import type { ExitStatus } from './chaos-node.js';
import { createSchedule, describeFault, type Fault, type FaultKind } from './chaos-schedule.js';
import { type CommittedLog, committedRecords, readCommittedLog } from './committed-log.js';
import { checkHistory, type HistoryCheck, type HistoryEvent, parseHistory } from './history-checker.js';
import type { NetworkCapabilities } from './network-namespaces.js';

export interface ChaosRunOptions {
  readonly seed: number;
  readonly nodeCount: number;
  /** Faults start and heal within this window after the first leader commits. */
  readonly faultWindowMs: number;
  readonly throughputRecordsPerSecond: number;
  readonly recordSizeBytes: number;
  readonly capabilities: NetworkCapabilities;
  readonly log: (line: string) => void;
}

export interface ChaosRunResult {
  readonly seed: number;
  readonly nodeCount: number;
  readonly faults: readonly Fault[];
  readonly injected: number;
  readonly check: HistoryCheck | undefined;
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
/** Bounds the bytes one node's committed log may hold in memory during the check. */
const MAX_COMMITTED_LOG_BYTES = 512 * 1024 * 1024;

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

/**
 * One chaos run: start the quorum, wait for a committing leader, inject the schedule's faults one
 * by one (each healed before the next), heal everything, wait until every node follows one
 * leader past what was committed, stop, then check every node's committed log and the histories.
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
    throughputRecordsPerSecond: options.throughputRecordsPerSecond,
    recordSizeBytes: options.recordSizeBytes,
    statsIntervalMs: STATS_INTERVAL_MS,
  });
  const faults = createSchedule({
    seed: options.seed,
    nodeIds: cluster.nodeIds,
    faultWindowMs: options.faultWindowMs,
    kinds: injectableKinds(options.capabilities, kinds),
  });
  const failures: string[] = [];
  let injected = 0;
  let check: HistoryCheck | undefined;
  let committedOffset = 0;
  try {
    say(`${options.nodeCount} nodes in ${cluster.network.namePrefix}-*, ${faults.length} faults scheduled`);
    for (const nodeId of cluster.nodeIds) cluster.start(nodeId);
    if (!(await waitFor(() => leaderOf(cluster) !== undefined, STARTUP_TIMEOUT_MS))) {
      throw new Error(`no leader committed within ${STARTUP_TIMEOUT_MS} ms`);
    }
    injected = await applySchedule(cluster, faults, options.faultWindowMs, say, failures);
    const healedAt = maxHighWatermark(cluster);
    cluster.healEverything();
    if (!(await waitFor(() => settled(cluster, healedAt), SETTLE_TIMEOUT_MS))) {
      failures.push(`not settled ${SETTLE_TIMEOUT_MS} ms after the heal: ${describeStatuses(cluster)}`);
    }
    for (const [nodeId, status] of await cluster.stopAll()) {
      if (status?.code !== 0) failures.push(`node ${nodeId} did not stop cleanly: ${describeExit(status)}`);
    }
    ({ check, committedOffset } = verify(cluster, failures));
  } catch (error) {
    failures.push(error instanceof Error ? error.message : String(error));
  } finally {
    cluster.destroy(failures.length > 0);
  }
  const passed = failures.length === 0;
  return {
    seed: options.seed,
    nodeCount: options.nodeCount,
    faults,
    injected,
    check,
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

export function maxHighWatermark(cluster: ChaosCluster): number {
  return Math.max(0, ...[...cluster.nodes.values()].map((node) => node.maxHighWatermark));
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

function readHistories(cluster: ChaosCluster): HistoryEvent[] {
  return cluster.nodeIds.flatMap((nodeId) => {
    const path = cluster.historyPath(nodeId);
    return existsSync(path) ? parseHistory(readFileSync(path, 'utf8'), path) : [];
  });
}

/**
 * The committed offset is the highest high watermark any node reported, or past the last
 * acknowledged record if that is higher. Below it, every node's batches must equal the longest
 * log's byte for byte, a majority must hold all of it, and the histories must check.
 */
function verify(cluster: ChaosCluster, failures: string[]): { check: HistoryCheck; committedOffset: number } {
  const events = readHistories(cluster);
  const lastAcked = Math.max(
    -1,
    ...events
      .filter((event) => event.type === 'ok')
      .map((event) => (event.firstOffset ?? 0) + event.count - 1),
  );
  const committedOffset = Math.max(maxHighWatermark(cluster), lastAcked + 1);
  const logs = new Map<number, CommittedLog>(
    cluster.nodeIds.map((nodeId) => [
      nodeId,
      readCommittedLog(cluster.logDirectoryView(nodeId), committedOffset, MAX_COMMITTED_LOG_BYTES),
    ]),
  );
  const [referenceId, reference] = [...logs.entries()].reduce((best, entry) =>
    entry[1].endOffset > best[1].endOffset ? entry : best,
  );
  const complete = [...logs.values()].filter((log) => log.endOffset >= committedOffset).length;
  if (complete <= cluster.nodeIds.length / 2) {
    failures.push(
      `only ${complete} of ${cluster.nodeIds.length} nodes hold the committed log up to ${committedOffset}`,
    );
  }
  for (const [nodeId, log] of logs) {
    const index = log.batches.findIndex(
      (batch, position) => !batch.bytes.equals(reference.batches[position]?.bytes ?? Buffer.alloc(0)),
    );
    if (index >= 0) {
      const offset = log.batches[index]?.baseOffset;
      failures.push(
        `node ${nodeId}'s committed log differs from node ${referenceId}'s at the batch of offset ${offset}`,
      );
    }
  }
  const check = checkHistory(events, committedRecords(reference.batches, committedOffset));
  for (const problem of check.problems) failures.push(problem);
  return { check, committedOffset };
}
