import {
  Errors,
  errorForCode,
  FetchRequest,
  type FetchRequestData,
  type FetchResponseData,
  Uuid,
} from '@kraft/protocol';
import type { HostAndPort } from '@kraft/transport-tcp';

/** The partition the tool asks about: its name for DescribeQuorum, its topic id for Fetch v13+. */
export interface QuorumPartition {
  readonly topicName: string;
  readonly topicId: Uuid;
  readonly partitionIndex: number;
}

/** What a controller said about the leader in answer to a probe. */
export type LeaderHint =
  | {
      readonly kind: 'leader';
      readonly leaderId: number;
      readonly leaderEpoch: number;
      readonly endpoint: HostAndPort | undefined;
    }
  | { readonly kind: 'unknown'; readonly reason: string };

/**
 * Fetch v16+ is the first whose answer carries the leader's endpoint (`nodeEndpoints`, KIP-951);
 * v18 is the newest this codebase speaks.
 */
export const LEADER_PROBE_MAX_VERSION = 18;

/**
 * A Fetch that asks a controller who leads, and changes nothing anywhere (ADR 0042). It is what
 * a KRaft observer sends to `controller.quorum.bootstrap.servers` (KIP-853): no replica id (-1,
 * a client, never tracked as an observer), and current leader epoch 0, which every controller
 * past its first election answers with FENCED_LEADER_EPOCH, the leader's id and epoch and, from
 * v16, its endpoint on the listener asked — the leader included, before any log read. A
 * controller still at epoch 0 knows no leader and says NOT_LEADER_OR_FOLLOWER.
 */
export function leaderProbeRequest(partition: QuorumPartition): FetchRequestData {
  return FetchRequest.defaults({
    clusterId: null,
    replicaId: -1,
    replicaState: { replicaId: -1, replicaEpoch: -1n },
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 0,
    topics: [
      {
        topic: partition.topicName,
        topicId: partition.topicId,
        partitions: [
          {
            partition: partition.partitionIndex,
            currentLeaderEpoch: 0,
            fetchOffset: 0n,
            lastFetchedEpoch: 0,
            logStartOffset: -1n,
            partitionMaxBytes: 0,
            replicaDirectoryId: Uuid.ZERO,
            // The schema's default: "no high watermark known", as an observer's first fetch says.
            highWatermark: 0x7fffffffffffffffn,
          },
        ],
      },
    ],
  });
}

/** The leader a probe's answer names, with its endpoint when the answer carries one. */
export function leaderHintOf(response: FetchResponseData): LeaderHint {
  if (response.errorCode !== Errors.NONE.code)
    return { kind: 'unknown', reason: `Fetch answered ${errorForCode(response.errorCode).name}` };
  const partition = response.responses[0]?.partitions[0];
  if (partition === undefined) return { kind: 'unknown', reason: 'Fetch answered for no partition' };
  const { leaderId, leaderEpoch } = partition.currentLeader;
  if (leaderId < 0) {
    return { kind: 'unknown', reason: `${errorForCode(partition.errorCode).name}, leader unknown` };
  }
  const node = response.nodeEndpoints.find((candidate) => candidate.nodeId === leaderId);
  return {
    kind: 'leader',
    leaderId,
    leaderEpoch,
    endpoint: node === undefined ? undefined : { host: node.host, port: node.port },
  };
}
