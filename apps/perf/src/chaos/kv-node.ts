import { join } from 'node:path';
import type { NodeStatus } from './chaos-node.js';

/**
 * How the chaos tier runs a kv-store node (`examples/kv-store/src/kv-process.ts`): as a process
 * (nothing imports an example), inside its node's namespace, on the node's own address with fixed
 * ports, so the voters and every node's HTTP URL are known before any node starts.
 */

/** The store's HTTP port on every node's own address (each node is its own host). */
export const KV_HTTP_PORT = 8080;
/**
 * A proposal gives up (504, outcome unknown) after this: longer than an election under Kafka's
 * default timeouts (a 2 s fetch timeout, then a vote), shorter than the client's own timeout, so
 * the client usually hears the store's verdict rather than its own timeout.
 */
export const KV_PROPOSE_TIMEOUT_MS = 4_000;
/**
 * Each node snapshots its map after this many applied commands (RaftNode's default, 20 MiB, is
 * far more than a run writes), so kill -9 and restarts restore from snapshots under the faults.
 */
export const KV_SNAPSHOT_EVERY_RECORDS = 500;
/**
 * Small segments and retention (RaftNode's `log`), the cleaner every second: a node's log start
 * moves up behind its snapshots, so a node down or cut off long enough catches up from the
 * leader's snapshot (FetchSnapshot) instead of its log. About 400 commands a segment.
 */
export const KV_LOG_CONFIG = Object.freeze({
  internalSegmentBytes: 64 * 1024,
  retentionMaxBytes: 256 * 1024,
});
const KV_LOG_CLEAN_INTERVAL_MS = 1_000;

const KV_PROCESS_ENTRY = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  '..',
  'examples',
  'kv-store',
  'src',
  'kv-process.ts',
);

/** node with tsx (resolved from here, so the process's working directory does not matter) and the entry. */
export function kvNodeCommand(): string[] {
  return [
    process.execPath,
    '--conditions=@kraft/source',
    '--import',
    import.meta.resolve('tsx'),
    KV_PROCESS_ENTRY,
  ];
}

export interface KvNodeSettings {
  readonly nodeId: number;
  readonly directory: string;
  readonly nodeIds: readonly number[];
  readonly addressOf: (nodeId: number) => string;
  readonly raftPort: number;
  readonly httpPort: number;
  readonly statusIntervalMs: number;
  /** RaftNode's `snapshotEveryRecords`. */
  readonly snapshotEveryRecords: number;
  /** The planted bug: `?linearizable` reads skip `readIndex()` (test-only; see the chaos README). */
  readonly staleLinearizableReads: boolean;
}

/** The node's HTTP base URL as clients and the other nodes' redirects name it. */
export function kvHttpUrl(address: string, httpPort: number): string {
  return `http://${address}:${httpPort}`;
}

/** The kv process's environment (its README, "Run it"; kv-process.ts reads each variable). */
export function kvNodeEnvironment(settings: KvNodeSettings): Record<string, string> {
  const { addressOf, nodeIds } = settings;
  const httpUrls = Object.fromEntries(nodeIds.map((id) => [id, kvHttpUrl(addressOf(id), settings.httpPort)]));
  return {
    KV_NODE_ID: String(settings.nodeId),
    KV_DIRECTORY: settings.directory,
    KV_HOST: addressOf(settings.nodeId),
    KV_RAFT_PORT: String(settings.raftPort),
    KV_HTTP_PORT: String(settings.httpPort),
    KV_VOTERS: nodeIds.map((id) => `${id}@${addressOf(id)}:${settings.raftPort}`).join(','),
    KV_HTTP_URLS: JSON.stringify(httpUrls),
    KV_STATUS_INTERVAL_MS: String(settings.statusIntervalMs),
    // Kafka's default quorum timeouts; the proposal's bound and the snapshot interval are the store's.
    KV_RAFT_CONFIG: JSON.stringify({
      proposeTimeoutMs: KV_PROPOSE_TIMEOUT_MS,
      snapshotEveryRecords: settings.snapshotEveryRecords,
      logCleanIntervalMs: KV_LOG_CLEAN_INTERVAL_MS,
    }),
    KV_LOG_CONFIG: JSON.stringify(KV_LOG_CONFIG),
    KV_STALE_LINEARIZABLE_READS: settings.staleLinearizableReads ? '1' : '0',
  };
}

const STATUS_PREFIX = 'kv-status ';

function optionalNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;
}

/**
 * A kv process's `kv-status {...}` line as the status the runner follows, with the role spelt as
 * the test server prints it (`Leader`), so both workloads share the leader and settle checks.
 */
export function parseKvStatus(line: string): NodeStatus | undefined {
  if (!line.startsWith(STATUS_PREFIX)) return undefined;
  let fields: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line.slice(STATUS_PREFIX.length));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    fields = parsed as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const { role, epoch } = fields;
  if (typeof role !== 'string' || role === '' || optionalNumber(epoch) === undefined) return undefined;
  return {
    role: `${role[0]?.toUpperCase()}${role.slice(1)}`,
    epoch: epoch as number,
    highWatermark: optionalNumber(fields['highWatermark']),
    leaderId: optionalNumber(fields['leaderId']),
    logEndOffset: optionalNumber(fields['logEndOffset']) ?? 0,
    appliedOffset: optionalNumber(fields['appliedOffset']),
    logStartOffset: optionalNumber(fields['logStartOffset']),
    restores: optionalNumber(fields['restores']),
    processId: optionalNumber(fields['pid']),
  };
}
