import { type LocalNode, LocalQuorum } from './local-quorum.js';
import { checkNodeLog, type NodeLogCheck } from './metadata-log-check.js';
import { collectJsonLines, type NodeUsage, runFor, usageBetween, usageNow } from './scenario-run.js';

/** The test server's line prefixes (apps/test-server/src/metadata/metadata-workload.ts). */
const STATUS_PREFIX = 'Metadata status: ';
const DIGEST_PREFIX = 'Metadata image digest: ';
/** Stats and status lines this often: the settle check and the rates need a fine grain. */
const STATUS_INTERVAL_MS = 250;
/** After the stop request, a node's applied offset must stay put this long to count as settled. */
const SETTLED_FOR_MS = 1_000;
const LEADER_TIMEOUT_MS = 30_000;
export const SETTLE_TIMEOUT_MS = 30_000;

export interface MetadataScenarioOptions {
  readonly nodeCount: number;
  readonly durationMs: number;
  readonly throughputRecordsPerSecond: number;
  /** `metadata.log.max.record.bytes.between.snapshots` of every node. */
  readonly snapshotThresholdBytes: number;
  readonly seed: number;
  readonly baseDirectory?: string;
  /** Keep the run's dir (configs, logs, stderr) even when the run passed. */
  readonly keepDirectory?: boolean;
}

interface MetadataStatus {
  readonly offset: number;
  readonly epoch: number;
  readonly snapshots: number;
  readonly appending: boolean;
  readonly loaderStopped: string | null;
}

/** The `Metadata image digest:` line a node prints when it stops. */
export interface MetadataImageReport {
  readonly nodeId: number;
  readonly offset: number;
  readonly epoch: number;
  readonly digest: string;
  readonly recordCount: number;
  readonly snapshots: readonly { offset: number; epoch: number; sizeInBytes: number; recordCount: number }[];
  readonly appendedRecords: number;
  readonly appliedRecords: number;
  readonly appliedBytes: number;
  readonly loadErrorCount: number;
  readonly applyErrorCount: number;
}

export interface MetadataScenarioResult {
  readonly scenario: 'metadata';
  readonly passed: boolean;
  readonly failures: readonly string[];
  readonly options: MetadataScenarioOptions;
  readonly directory: string;
  readonly leaderId: number;
  readonly measuredMs: number;
  readonly figures: {
    /** Offsets the leader's loader applied per second during the run (records and the odd control record). */
    readonly appliedRecordsPerSecond: number;
    readonly appendedRecords: number;
    readonly imageRecords: number;
    readonly snapshotsWritten: number;
    readonly snapshotBytesWritten: number;
    readonly snapshotsChecked: number;
  };
  readonly nodes: readonly {
    readonly report: MetadataImageReport | undefined;
    readonly logCheck: NodeLogCheck | undefined;
    readonly usage: NodeUsage | undefined;
  }[];
}

/** A node's metadata status and digest lines, and since when its applied offset has stood still. */
export interface TrackedNode {
  readonly node: LocalNode;
  readonly statuses: MetadataStatus[];
  readonly reports: MetadataImageReport[];
  offset: number;
  offsetSinceMs: number;
}

export function track(node: LocalNode): TrackedNode {
  const tracked: TrackedNode = {
    node,
    statuses: collectJsonLines<MetadataStatus>(node, STATUS_PREFIX),
    reports: collectJsonLines<MetadataImageReport>(node, DIGEST_PREFIX),
    offset: -1,
    offsetSinceMs: 0,
  };
  node.onLine((line) => {
    if (!line.startsWith(STATUS_PREFIX)) return;
    const status = tracked.statuses.at(-1) as MetadataStatus;
    if (status.offset !== tracked.offset) {
      tracked.offset = status.offset;
      tracked.offsetSinceMs = performance.now();
    }
  });
  return tracked;
}

/** Every node stopped appending and applied the same offset, unchanged for a while. */
export function settled(nodes: readonly TrackedNode[]): boolean {
  const nowMs = performance.now();
  return nodes.every((tracked) => {
    const status = tracked.statuses.at(-1);
    return (
      status !== undefined &&
      !status.appending &&
      status.offset === nodes[0]?.offset &&
      nowMs - tracked.offsetSinceMs >= SETTLED_FOR_MS
    );
  });
}

/** The test server's arguments for its metadata workload. */
export function metadataWorkloadArguments(throughputRecordsPerSecond: number, seed: number): string[] {
  return [
    '--workload',
    'metadata',
    '--throughput',
    String(throughputRecordsPerSecond),
    '--seed',
    String(seed),
  ];
}

/**
 * The metadata workload end to end: N nodes run the MetadataLoader and the snapshot generator
 * with a small threshold while the leader appends valid metadata records; then the appends stop
 * (SIGUSR2), the images settle, the nodes stop (each prints its image digest), and every node's
 * log is replayed and its snapshots decoded. It passes when every digest is equal, each node's
 * log replays to its own digest, and every snapshot decodes to the image the log replays to at
 * its offset.
 */
export async function runMetadataScenario(options: MetadataScenarioOptions): Promise<MetadataScenarioResult> {
  const quorumOptions = {
    ...options,
    serverArguments: metadataWorkloadArguments(options.throughputRecordsPerSecond, options.seed),
    properties: { 'metadata.log.max.record.bytes.between.snapshots': String(options.snapshotThresholdBytes) },
    statsIntervalMs: STATUS_INTERVAL_MS,
  };
  return LocalQuorum.run(quorumOptions, async (quorum) => {
    const nodes = quorum.nodes.map(track);
    const leader = await quorum.waitForLeader(LEADER_TIMEOUT_MS);
    const leaderTracked = nodes[leader.nodeId - 1] as TrackedNode;
    const startMs = performance.now();
    const startOffset = leaderTracked.offset;
    const usageAtStart = usageNow(quorum);
    await runFor(quorum, options.durationMs);
    const measuredMs = performance.now() - startMs;
    const appliedRecords = leaderTracked.offset - startOffset;
    quorum.signalAll('SIGUSR2');
    await quorum.waitFor('the images to settle', SETTLE_TIMEOUT_MS, () => settled(nodes));
    const usage = usageBetween(usageAtStart, usageNow(quorum));
    await quorum.stopAll();
    return checkRun(options, quorum, nodes, usage, {
      leaderId: leader.nodeId,
      measuredMs,
      appliedRecordsPerSecond: (appliedRecords * 1000) / measuredMs,
    });
  });
}

function checkRun(
  options: MetadataScenarioOptions,
  quorum: LocalQuorum,
  nodes: readonly TrackedNode[],
  usage: readonly NodeUsage[],
  run: { leaderId: number; measuredMs: number; appliedRecordsPerSecond: number },
): MetadataScenarioResult {
  const failures: string[] = [];
  const results = nodes.map(({ node, reports }) => {
    const report = reports.at(-1);
    if (report === undefined) failures.push(`node ${node.nodeId} printed no image digest`);
    let logCheck: NodeLogCheck | undefined;
    try {
      logCheck = checkNodeLog(node.nodeId, node.logDirectory, report?.offset);
    } catch (error) {
      failures.push(
        `node ${node.nodeId}: its log or a snapshot does not decode: ${describeWithCauses(error)}`,
      );
    }
    return { report, logCheck, usage: usage.find((entry) => entry.nodeId === node.nodeId) };
  });
  const digests = new Set(results.map(({ report }) => report?.digest));
  if (digests.size !== 1) failures.push(`the nodes' image digests differ: ${[...digests].join(', ')}`);
  for (const { report, logCheck } of results) {
    if (report === undefined || logCheck === undefined) continue;
    const nodeId = report.nodeId;
    if (logCheck.replayedDigest !== report.digest) {
      failures.push(
        `node ${nodeId}: its log replayed to ${logCheck.replayedThroughOffset} differs from its image`,
      );
    }
    if (report.loadErrorCount + report.applyErrorCount > 0) failures.push(`node ${nodeId}: metadata faults`);
    if (logCheck.snapshots.length === 0)
      failures.push(`node ${nodeId} wrote no snapshot: lower --snapshot-bytes`);
    for (const snapshot of logCheck.snapshots) {
      if (!snapshot.matches) {
        failures.push(
          `node ${nodeId}: snapshot ${snapshot.offset}-${snapshot.epoch} is not the image its log replays to there`,
        );
      }
    }
  }
  const reports = results.flatMap(({ report }) => (report === undefined ? [] : [report]));
  return {
    scenario: 'metadata',
    passed: failures.length === 0,
    failures,
    options,
    directory: quorum.directory,
    leaderId: run.leaderId,
    measuredMs: run.measuredMs,
    figures: {
      appliedRecordsPerSecond: run.appliedRecordsPerSecond,
      appendedRecords: reports.reduce((sum, report) => sum + report.appendedRecords, 0),
      imageRecords: reports[0]?.recordCount ?? 0,
      snapshotsWritten: reports.reduce((sum, report) => sum + report.snapshots.length, 0),
      snapshotBytesWritten: reports.reduce(
        (sum, report) => sum + report.snapshots.reduce((bytes, snapshot) => bytes + snapshot.sizeInBytes, 0),
        0,
      ),
      snapshotsChecked: results.reduce((sum, { logCheck }) => sum + (logCheck?.snapshots.length ?? 0), 0),
    },
    nodes: results,
  };
}

/** An error and its chain of causes on one line, so a failed check says what went wrong inside. */
function describeWithCauses(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && depth < 8; depth += 1) {
    parts.push(String(current));
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(' <- caused by: ');
}
