import { existsSync } from 'node:fs';
import type { PerfOptions } from '../perf-command-line.js';
import { formatNumber, type MarkdownSummary, verdictOf } from '../results.js';
import { ETCD_COMMAND, ETCD_INSTALL, startEtcd } from './etcd-peer.js';
import { findExecutable, PEER_MEMBERS, PeerCluster } from './peer-cluster.js';
import { type PeerWorkloadFigures, type PeerWriter, runPeerWorkload } from './peer-workload.js';
import { startZooKeeper, ZOOKEEPER_INSTALL, ZOOKEEPER_JAR } from './zookeeper-peer.js';

export const PEER_SYSTEMS = ['etcd', 'zookeeper'] as const;
export type PeerSystem = (typeof PEER_SYSTEMS)[number];

/** As the test server's generator: at most 4 MiB written and not yet acknowledged. */
const MAX_OUTSTANDING_BYTES = 4 * 1024 * 1024;
/** One request per record: etcd's own benchmark tool uses some hundreds of clients; 128 here. */
const MAX_IN_FLIGHT_WRITES = 128;
/** Members elect and the first write commits within this, or the run fails. */
const READY_TIMEOUT_MS = 60_000;
const READY_RETRY_MS = 250;

export type PeersScenarioOptions = Pick<
  PerfOptions,
  'durationMs' | 'warmupMs' | 'throughputRecordsPerSecond' | 'recordSizeBytes' | 'keepDirectory'
> & {
  readonly baseDirectory?: string;
  readonly systems?: readonly PeerSystem[];
  /** Where to look for the peers' executables: PATH unless told (tests). */
  readonly searchPath?: string;
};

export interface PeerRun {
  readonly system: PeerSystem;
  /** Why it did not run (not installed: the apt line), or undefined when it ran. */
  readonly skipped: string | undefined;
  readonly failures: readonly string[];
  readonly figures: PeerWorkloadFigures | undefined;
}

export interface PeersScenarioResult {
  readonly scenario: 'peers';
  readonly passed: boolean;
  readonly failures: readonly string[];
  readonly options: PeersScenarioOptions;
  readonly runs: readonly PeerRun[];
}

interface StartedPeer {
  readonly writer: PeerWriter;
  readonly ready: () => Promise<void>;
  readonly close: () => void;
}

/** Why `system` cannot run here (with the install line), or undefined when it can. */
export function missingPeer(system: PeerSystem, searchPath?: string): string | undefined {
  if (system === 'etcd') {
    return findExecutable(ETCD_COMMAND, searchPath) === undefined
      ? `etcd is not installed: skipped (install it with \`${ETCD_INSTALL}\`)`
      : undefined;
  }
  if (!existsSync(ZOOKEEPER_JAR) || findExecutable('java', searchPath) === undefined) {
    return `ZooKeeper is not installed: skipped (install it with \`${ZOOKEEPER_INSTALL}\`)`;
  }
  return undefined;
}

async function untilReady(cluster: PeerCluster, peer: StartedPeer): Promise<void> {
  const deadlineMs = performance.now() + READY_TIMEOUT_MS;
  for (;;) {
    try {
      await peer.ready();
      return;
    } catch (error) {
      if (cluster.exitedMembers() > 0) throw new Error(`a member exited (logs: ${cluster.directory})`);
      if (performance.now() >= deadlineMs) {
        throw new Error(`no first write within ${READY_TIMEOUT_MS} ms: ${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, READY_RETRY_MS));
    }
  }
}

async function runPeer(system: PeerSystem, options: PeersScenarioOptions): Promise<PeerRun> {
  const skipped = missingPeer(system, options.searchPath);
  if (skipped !== undefined) return { system, skipped, failures: [], figures: undefined };
  const cluster = new PeerCluster(system, options.baseDirectory);
  let passed = false;
  let peer: StartedPeer | undefined;
  try {
    peer =
      system === 'etcd'
        ? await startEtcd(cluster)
        : await startZooKeeper(cluster, findExecutable('java') as string);
    await untilReady(cluster, peer);
    const figures = await runPeerWorkload(peer.writer, {
      ...options,
      maxOutstandingBytes: MAX_OUTSTANDING_BYTES,
      maxInFlightWrites: MAX_IN_FLIGHT_WRITES,
    });
    const failures: string[] = [];
    if (figures.committedRecords === 0) failures.push('nothing was acknowledged in the window');
    if (figures.failedWrites > 0)
      failures.push(`${figures.failedWrites} writes failed, first: ${figures.firstError}`);
    if (cluster.exitedMembers() > 0) failures.push(`a member exited (logs: ${cluster.directory})`);
    passed = failures.length === 0;
    return { system, skipped: undefined, failures, figures };
  } catch (error) {
    return { system, skipped: undefined, failures: [(error as Error).message], figures: undefined };
  } finally {
    peer?.close();
    await cluster.destroy(options.keepDirectory || !passed);
  }
}

/**
 * Kafka's workload shape (records of one size at an offered rate, 4 MiB and 128 writes outstanding at most) on
 * 3-member etcd and ZooKeeper ensembles from Debian's packages, where installed; each skipped
 * with a line saying how to install it otherwise.
 */
export async function runPeersScenario(
  options: PeersScenarioOptions,
  onSkip: (line: string) => void = () => {},
): Promise<PeersScenarioResult> {
  const runs: PeerRun[] = [];
  for (const system of options.systems ?? PEER_SYSTEMS) {
    const run = await runPeer(system, options);
    if (run.skipped !== undefined) onSkip(run.skipped);
    runs.push(run);
  }
  const failures = runs.flatMap((run) => run.failures.map((failure) => `${run.system}: ${failure}`));
  return { scenario: 'peers', passed: failures.length === 0, failures, options, runs };
}

export function peersSummary(result: PeersScenarioResult): MarkdownSummary {
  const { options } = result;
  return {
    title: `peers: ${PEER_MEMBERS}-member etcd and ZooKeeper, ${formatNumber(options.throughputRecordsPerSecond)} × ${options.recordSizeBytes} B offered, ${formatNumber(options.durationMs / 1000, 1)} s`,
    verdict: verdictOf(result),
    rows: result.runs.map((run) => {
      if (run.skipped !== undefined) return [run.system, run.skipped] as const;
      const figures = run.figures;
      if (figures === undefined) return [run.system, 'did not run to the end'] as const;
      return [
        run.system,
        `acknowledged ${formatNumber(figures.committedRecordsPerSecond)} records/s (${formatNumber(figures.committedBytesPerSecond / 1e6, 2)} MB/s), p50 ${formatNumber(figures.latencyMs['p50'] ?? 0, 1)} ms, p99 ${formatNumber(figures.latencyMs['p99'] ?? 0, 1)} ms`,
      ] as const;
    }),
    notes: [
      'etcd: one put per record (own key); ZooKeeper: one sequential znode per record; each acknowledged after a quorum write with default fsync',
      `acknowledgements arriving in the measured window, latency from send to acknowledgement at the client; at most ${MAX_IN_FLIGHT_WRITES} writes in flight (one request per record)`,
      `warm-up ${formatNumber(options.warmupMs / 1000, 1)} s before the window, not measured`,
    ],
  };
}
