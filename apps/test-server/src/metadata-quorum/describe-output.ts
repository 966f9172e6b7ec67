import { Uuid } from '@kraft/protocol';
import type { RaftVoterEndpoint } from './controller-registration.js';
import { MetadataQuorumError } from './metadata-quorum-error.js';
import type { QuorumInfo, ReplicaState } from './quorum-info.js';

/**
 * The output of `describe --status` and `describe --replication`, character for character as
 * Kafka's `MetadataQuorumCommand` prints it (Kafka 3.9+: voters with directory ids and endpoints).
 */

/** Kafka aligns every `describe --status` value at column 24. */
const STATUS_LABEL_WIDTH = 24;

const REPLICATION_HEADERS = [
  'NodeId',
  'DirectoryId',
  'LogEndOffset',
  'Lag',
  'LastFetchTimestamp',
  'LastCaughtUpTimestamp',
  'Status',
] as const;

/** `NAME://host:port`, an IPv6 host in brackets (Kafka's `RaftVoterEndpoint.toString`). */
export function formatEndpoint(endpoint: RaftVoterEndpoint): string {
  const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
  return `${endpoint.name}://${host}:${endpoint.port}`;
}

/** `{"id": 1, "directoryId": "…", "endpoints": ["…"]}`: `null` for the zero directory id, no endpoints key when none are known. */
function formatReplica(replica: ReplicaState, endpoints: readonly RaftVoterEndpoint[]): string {
  const directoryId = replica.replicaDirectoryId.equals(Uuid.ZERO)
    ? 'null'
    : `"${replica.replicaDirectoryId}"`;
  const listed =
    endpoints.length === 0
      ? ''
      : `, "endpoints": [${endpoints.map((endpoint) => `"${formatEndpoint(endpoint)}"`).join(', ')}]`;
  return `{"id": ${replica.replicaId}, "directoryId": ${directoryId}${listed}}`;
}

function formatReplicas(info: QuorumInfo, replicas: readonly ReplicaState[]): string {
  return `[${replicas.map((replica) => formatReplica(replica, info.nodes.get(replica.replicaId) ?? [])).join(', ')}]`;
}

function leaderOf(info: QuorumInfo): ReplicaState {
  const leader = info.voters.find((voter) => voter.replicaId === info.leaderId);
  if (leader === undefined) {
    const voterIds = info.voters.map((voter) => voter.replicaId).join(', ');
    throw new MetadataQuorumError(
      `the leader ${info.leaderId} is not among the voters it reported ([${voterIds}])`,
    );
  }
  return leader;
}

/** Java's `Stream.min`: the first of the replicas with the smallest log end offset. */
function mostLaggingVoter(voters: readonly ReplicaState[]): ReplicaState {
  let lagging = voters[0]!;
  for (const voter of voters) if (voter.logEndOffset < lagging.logEndOffset) lagging = voter;
  return lagging;
}

/** The eight lines of `describe --status`. */
export function formatQuorumStatus(clusterId: string, info: QuorumInfo): string[] {
  const leader = leaderOf(info);
  const lagging = mostLaggingVoter(info.voters);
  const maxFollowerLag = leader.logEndOffset - lagging.logEndOffset;
  let maxFollowerLagTimeMs: bigint;
  if (lagging === leader) maxFollowerLagTimeMs = 0n;
  else if (leader.lastCaughtUpTimestamp !== undefined && lagging.lastCaughtUpTimestamp !== undefined)
    maxFollowerLagTimeMs = leader.lastCaughtUpTimestamp - lagging.lastCaughtUpTimestamp;
  else maxFollowerLagTimeMs = -1n;
  const lines: [string, string | number | bigint][] = [
    ['ClusterId:', clusterId],
    ['LeaderId:', info.leaderId],
    ['LeaderEpoch:', info.leaderEpoch],
    ['HighWatermark:', info.highWatermark],
    ['MaxFollowerLag:', maxFollowerLag],
    ['MaxFollowerLagTimeMs:', maxFollowerLagTimeMs],
    ['CurrentVoters:', formatReplicas(info, info.voters)],
    ['CurrentObservers:', formatReplicas(info, info.observers)],
  ];
  return lines.map(([label, value]) => `${label.padEnd(STATUS_LABEL_WIDTH)}${value}`);
}

/**
 * Kafka's `relativeTimeMs`: how long ago `timestampMs` was, refused for a timestamp not after the
 * epoch or in the future (a clock that drifted between the leader and this machine).
 */
export function relativeTimeMs(timestampMs: bigint, description: string, nowMs: number): bigint {
  const now = BigInt(nowMs);
  if (!(timestampMs > 0n && timestampMs <= now)) {
    throw new MetadataQuorumError(
      `Error while computing relative time, possible drift in system clock.\nCurrent timestamp is ${now}, ${description} timestamp is ${timestampMs}`,
    );
  }
  return now - timestampMs;
}

export interface ReplicationTableOptions {
  /** `--human-readable`: timestamps as `N ms ago`. */
  readonly humanReadable: boolean;
  /** This machine's wall clock, for `--human-readable`. */
  readonly wallClockMs: () => number;
}

function timestampCell(
  timestampMs: bigint | undefined,
  description: string,
  options: ReplicationTableOptions,
): string {
  if (timestampMs === undefined) return '-1';
  if (!options.humanReadable) return String(timestampMs);
  return `${relativeTimeMs(timestampMs, description, options.wallClockMs())} ms ago`;
}

function replicationRows(
  leader: ReplicaState,
  replicas: readonly ReplicaState[],
  status: string,
  options: ReplicationTableOptions,
): string[][] {
  return replicas.map((replica) => [
    String(replica.replicaId),
    replica.replicaDirectoryId.toString(),
    String(replica.logEndOffset),
    String(leader.logEndOffset - replica.logEndOffset),
    timestampCell(replica.lastFetchTimestamp, 'last fetch', options),
    timestampCell(replica.lastCaughtUpTimestamp, 'last caught up', options),
    status,
  ]);
}

/**
 * Kafka's `ToolsUtils.prettyPrintTable`: each cell padded with spaces to its column's widest
 * value, then a tab, the last column included.
 */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (row: readonly string[]): string =>
    widths.map((width, column) => `${(row[column] ?? '').padEnd(width)}\t`).join('');
  return [line(headers), ...rows.map(line)];
}

/** The table of `describe --replication`: the leader, then the other voters, then the observers. */
export function formatReplicationTable(info: QuorumInfo, options: ReplicationTableOptions): string[] {
  const leader = leaderOf(info);
  const followers = info.voters.filter((voter) => voter.replicaId !== info.leaderId);
  return formatTable(REPLICATION_HEADERS, [
    ...replicationRows(leader, [leader], 'Leader', options),
    ...replicationRows(leader, followers, 'Follower', options),
    ...replicationRows(leader, info.observers, 'Observer', options),
  ]);
}
