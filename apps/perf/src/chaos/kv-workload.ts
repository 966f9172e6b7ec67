import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChaosCluster } from './chaos-cluster.js';
import { compareCommittedLogs, RAFT_NODE_PARTITION_DIRECTORY } from './committed-log.js';
import { checkFinalReads, checkKvHistory, type KvHistoryCheck } from './kv-check.js';
import { KvClientProcess } from './kv-client-process.js';
import type { KvClientsSummary } from './kv-clients.js';
import { readKvHistory } from './kv-history.js';
import { KV_HTTP_PORT, KV_PROPOSE_TIMEOUT_MS, KV_SNAPSHOT_EVERY_RECORDS, kvHttpUrl } from './kv-node.js';
import {
  countKvSnapshots,
  KvSnapshotActivity,
  type KvSnapshotCount,
  missingSnapshotProblem,
} from './kv-snapshots.js';
import type { WorkloadDriver } from './workload-driver.js';

/**
 * The kv workload of a chaos run (ADR 0044): kv-store nodes, concurrent clients in the run's
 * client namespace for the fault window, then the final reads once the quorum settled, and the
 * clients' history checked for linearizability key by key.
 */
export interface KvWorkloadOptions {
  readonly kind: 'kv';
  /** Concurrent clients (each one operation at a time). */
  readonly clients: number;
  /** Keys they share. */
  readonly keys: number;
  /** The most invocations per key: what bounds each key's linearizability search. */
  readonly maxOperationsPerKey: number;
  /**
   * Test-only: every node answers `?linearizable` gets from its own map without `readIndex()`.
   * The run must then fail its check; see the chaos README, "The check bites".
   */
  readonly plantedBug?: 'stale-reads';
}

export interface KvRunReport {
  /** The clients' own counts (undefined when they never reported). */
  readonly clients: KvClientsSummary | undefined;
  /** The history checked key by key (undefined when the run ended before the check). */
  readonly check: KvHistoryCheck | undefined;
  /** Keys whose final value every node's map held, of those read; undefined without final reads. */
  readonly finalMaps: { readonly keys: number; readonly equal: number } | undefined;
  /** The snapshot files the nodes hold at the end (undefined when the run ended before the check). */
  readonly snapshots: KvSnapshotCount | undefined;
  /** State machines restored from a snapshot (at a restart, or sent by the leader), over the run. */
  readonly restores: number;
  /** The highest log start offset a node reported: how far retention deleted the log. */
  readonly highestLogStartOffset: number;
  readonly plantedBug: KvWorkloadOptions['plantedBug'];
}

/** An operation ends within this: longer than the store's propose timeout, so its 504 comes first. */
export const KV_OPERATION_TIMEOUT_MS = KV_PROPOSE_TIMEOUT_MS + 2_000;
/** The client process starts through tsx, like the nodes: slow on a loaded 2-core machine. */
const CLIENT_START_TIMEOUT_MS = 60_000;
/** After `stop`, the clients end the operations they are in: each within its own timeout. */
const CLIENT_STOP_TIMEOUT_MS = KV_OPERATION_TIMEOUT_MS + 30_000;
/** Each key's final read may retry for 30 s in the client; this bounds the whole phase. */
const FINAL_READS_TIMEOUT_PER_KEY_MS = 35_000;
/** The clients stop by themselves this long after the window if the runner never says so. */
const CLIENT_SAFETY_MARGIN_MS = 120_000;

export class KvDriver implements WorkloadDriver {
  private client: KvClientProcess | undefined;
  private summary: KvClientsSummary | undefined;
  private check: KvHistoryCheck | undefined;
  private finalMaps: KvRunReport['finalMaps'];
  private snapshots: KvSnapshotCount | undefined;
  private readonly snapshotActivity = new KvSnapshotActivity();

  constructor(
    private readonly cluster: ChaosCluster,
    private readonly options: KvWorkloadOptions,
    private readonly run: {
      readonly seed: number;
      readonly faultWindowMs: number;
      readonly say: (line: string) => void;
    },
  ) {}

  async begin(): Promise<void> {
    const { options, run } = this;
    for (const node of this.cluster.nodes.values()) {
      node.onStatus((status) => this.snapshotActivity.observe(status));
    }
    this.client = KvClientProcess.start(this.cluster, {
      clients: options.clients,
      keys: options.keys,
      seed: run.seed,
      operationTimeoutMs: KV_OPERATION_TIMEOUT_MS,
      maxOperationsPerKey: options.maxOperationsPerKey,
      maxWorkloadMs: run.faultWindowMs + CLIENT_SAFETY_MARGIN_MS,
    });
    await this.client.ready(CLIENT_START_TIMEOUT_MS);
    const bug = options.plantedBug === undefined ? '' : `; PLANTED BUG ${options.plantedBug}`;
    run.say(
      `${options.clients} kv clients on ${options.keys} keys in ${this.cluster.network.clientNamespace}${bug}`,
    );
  }

  endWindow(): void {
    this.client?.stop();
  }

  async afterHeal(failures: string[]): Promise<void> {
    try {
      this.summary = await this.requireClient().workloadDone(CLIENT_STOP_TIMEOUT_MS);
    } catch (error) {
      failures.push((error as Error).message);
      return;
    }
    const { ok, fail, info, capped } = this.summary;
    const stopped = capped ? ', stopped early: every key reached its cap' : '';
    this.run.say(`kv clients done: ok ${ok}, fail ${fail}, info ${info}${stopped}`);
    if (this.summary.badRequests > 0)
      failures.push(`the store refused ${this.summary.badRequests} of the clients' requests as malformed`);
    if (this.summary.foreignRedirects > 0)
      failures.push(
        `${this.summary.foreignRedirects} redirects named an address outside the run (not followed)`,
      );
  }

  /**
   * Every node runs and follows one leader of one epoch, all report the same high watermark (at
   * least `offset`), the leader holds nothing uncommitted, and every state machine applied all
   * of it: the maps can be compared.
   */
  settled(cluster: ChaosCluster, offset: number): boolean {
    const statuses = [...cluster.nodes.values()].map((node) => (node.running ? node.status : undefined));
    const first = statuses[0];
    const highWatermark = first?.highWatermark;
    if (first?.leaderId === undefined || highWatermark === undefined || highWatermark < offset) return false;
    const leader = cluster.nodes.get(first.leaderId)?.status;
    return (
      leader?.logEndOffset === highWatermark &&
      statuses.every(
        (status) =>
          status !== undefined &&
          status.leaderId === first.leaderId &&
          status.epoch === first.epoch &&
          status.highWatermark === highWatermark &&
          status.appliedOffset === highWatermark - 1,
      )
    );
  }

  async afterSettle(failures: string[]): Promise<void> {
    if (this.summary === undefined) return;
    let reads: Awaited<ReturnType<KvClientProcess['finalReads']>>;
    try {
      reads = await this.requireClient().finalReads(FINAL_READS_TIMEOUT_PER_KEY_MS * this.options.keys);
    } catch (error) {
      failures.push((error as Error).message);
      return;
    }
    const origins = this.cluster.nodeIds.map((nodeId) =>
      kvHttpUrl(this.cluster.network.addressOf(nodeId), KV_HTTP_PORT),
    );
    const { problems, equalKeys } = checkFinalReads(reads, origins);
    this.finalMaps = { keys: reads.length, equal: equalKeys };
    failures.push(...problems);
  }

  /**
   * Every node's committed log compared (byte for byte below the highest high watermark, a
   * majority holding all of it), the nodes' snapshots counted (a run long enough to owe one and
   * holding none fails), then the clients' history checked key by key; a violation's whole
   * counterexample goes to `linearizability.txt` in the run's dir.
   */
  async verify(failures: string[]): Promise<number> {
    const { cluster } = this;
    const committedOffset = cluster.maxHighWatermark();
    const logs = cluster.committedLogs(committedOffset, RAFT_NODE_PARTITION_DIRECTORY);
    failures.push(...compareCommittedLogs(logs, committedOffset).problems);
    this.snapshots = countKvSnapshots(
      cluster.nodeIds.map((nodeId) => join(cluster.logDirectoryView(nodeId), RAFT_NODE_PARTITION_DIRECTORY)),
    );
    const missing = missingSnapshotProblem(this.snapshots, committedOffset, KV_SNAPSHOT_EVERY_RECORDS);
    if (missing !== undefined) failures.push(missing);
    const client = this.requireClient();
    this.check = checkKvHistory(await readKvHistory(client.historyPath));
    const details = this.check.keys.filter((key) => key.detail !== undefined);
    if (details.length > 0) {
      const path = join(cluster.directory, 'linearizability.txt');
      writeFileSync(path, details.map((key) => `key ${key.key}:\n${key.detail}\n`).join('\n'));
      failures.push(...this.check.problems, `the checker's whole account: ${path}`);
    }
    return committedOffset;
  }

  report(): KvRunReport {
    return {
      clients: this.summary,
      check: this.check,
      finalMaps: this.finalMaps,
      snapshots: this.snapshots,
      restores: this.snapshotActivity.restores(),
      highestLogStartOffset: this.snapshotActivity.highestLogStartOffset(),
      plantedBug: this.options.plantedBug,
    };
  }

  private requireClient(): KvClientProcess {
    if (this.client === undefined) throw new Error('the kv clients were never started');
    return this.client;
  }
}
