import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { pollUntil } from '../support/poll-until.js';
import { ChaosCluster } from './chaos-cluster.js';
import { leaderOf, settled } from './chaos-run.js';
import type { HistoryEvent } from './history-checker.js';
import type { NetworkCapabilities } from './network-namespaces.js';

/** Fast polling: the measurement itself comes from the history's own times, not from this period. */
const POLL_MS = 20;
const STATS_INTERVAL_MS = 200;
const TRIAL_TIMEOUT_MS = 30_000;
const READ_CHUNK_BYTES = 256 * 1024;

/** The lines appended to a history file since the last call (whole lines only). */
class HistoryTail {
  private position = 0;
  private partial = '';

  constructor(private readonly path: string) {}

  read(): HistoryEvent[] {
    if (!existsSync(this.path)) return [];
    const fd = openSync(this.path, 'r');
    const chunk = Buffer.alloc(READ_CHUNK_BYTES);
    let text = this.partial;
    try {
      for (let read = readSync(fd, chunk, 0, chunk.length, this.position); read > 0; ) {
        this.position += read;
        text += chunk.toString('utf8', 0, read);
        read = readSync(fd, chunk, 0, chunk.length, this.position);
      }
    } finally {
      closeSync(fd);
    }
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    return lines.filter((line) => line !== '').map((line) => JSON.parse(line) as HistoryEvent);
  }
}

function monotonicMicroseconds(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  let value: T | undefined;
  const found = () => {
    value = probe();
    return value !== undefined;
  };
  await pollUntil(what, timeoutMs, found, { intervalMs: POLL_MS });
  return value as T;
}

/**
 * Failover under a silent partition, as the operator sees it: the leader's links go down (no RST,
 * no FIN), and the time runs until another node's listener sees the first record it appended as
 * the new leader committed (its history's `ok` line; the cut and the line are both
 * CLOCK_MONOTONIC). Heal, wait until all three follow one leader again, repeat. Kafka's default
 * timeouts: a follower waits its 2 s fetch timeout before it campaigns.
 */
export async function measureSilentFailover(
  trials: number,
  capabilities: NetworkCapabilities,
  log: (line: string) => void,
): Promise<number[]> {
  const cluster = await ChaosCluster.create({
    nodeCount: 3,
    capabilities,
    workload: { kind: 'append', throughputRecordsPerSecond: 500, recordSizeBytes: 64 },
    statsIntervalMs: STATS_INTERVAL_MS,
  });
  const tails = new Map(
    cluster.nodeIds.map((nodeId) => [nodeId, new HistoryTail(cluster.historyPath(nodeId))]),
  );
  const failoversMs: number[] = [];
  try {
    for (const nodeId of cluster.nodeIds) cluster.start(nodeId);
    await waitFor(() => leaderOf(cluster), 90_000, 'a first leader');
    for (let trial = 1; trial <= trials; trial++) {
      const offset = cluster.maxHighWatermark();
      await waitFor(
        () => (settled(cluster, offset) ? true : undefined),
        TRIAL_TIMEOUT_MS,
        'a settled quorum',
      );
      const leader = cluster.node(cluster.nodeIds[0] as number).status?.leaderId as number;
      const epoch = cluster.node(leader).status?.epoch ?? 0;
      for (const tail of tails.values()) tail.read();
      const cutUs = monotonicMicroseconds();
      for (const other of cluster.nodeIds) if (other !== leader) cluster.network.cutLink(leader, other);
      const committedUs = await waitFor(
        () => firstCommitAfter(tails, leader, epoch, cutUs),
        TRIAL_TIMEOUT_MS,
        `a new leader's commit after isolating node ${leader}`,
      );
      failoversMs.push((committedUs - cutUs) / 1000);
      log(
        `failover trial ${trial}: leader ${leader} of epoch ${epoch} cut off; ${((committedUs - cutUs) / 1000).toFixed(0)} ms to a new leader's commit`,
      );
      cluster.network.healAll();
    }
  } finally {
    cluster.destroy();
  }
  return failoversMs;
}

/** The time of the first `ok` of an epoch above `epoch` on a node other than `leader`, after `afterUs`. */
function firstCommitAfter(
  tails: Map<number, HistoryTail>,
  leader: number,
  epoch: number,
  afterUs: number,
): number | undefined {
  let first: number | undefined;
  for (const [nodeId, tail] of tails) {
    for (const event of tail.read()) {
      if (nodeId === leader || event.type !== 'ok' || event.epoch <= epoch || event.monotonicUs < afterUs)
        continue;
      if (first === undefined || event.monotonicUs < first) first = event.monotonicUs;
    }
  }
  return first;
}

/** The value at `percentile` (0-100) of `values`, nearest rank. */
export function percentile(values: readonly number[], percentileRank: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  const rank = Math.max(1, Math.ceil((percentileRank / 100) * sorted.length));
  return sorted[rank - 1] ?? Number.NaN;
}
