import type { NodeAddress } from '@kraft/protocol';
import type { RaftDriver, RaftRole } from '../io/raft-driver.js';
import type { KafkaRaftClient } from '../kafka-raft-client.js';
import type { VoterSet } from '../voter-set.js';
import type { LogPosition } from './raft-node-options.js';

/** One voter as this node sees it (DescribeQuorum's ReplicaState). */
export interface RaftNodeVoterStatus {
  readonly nodeId: number;
  readonly endpoint: NodeAddress | undefined;
  /** The voter's log end offset as the leader last heard it; undefined on a non-leader. */
  readonly logEndOffset: number | undefined;
  /** The leader's log end minus the voter's; undefined on a non-leader or before the first fetch. */
  readonly lag: number | undefined;
  /** When the voter last fetched (leader's monotonic clock, ms); undefined on a non-leader. */
  readonly lastFetchTimestampMs: number | undefined;
  /** When the voter was last caught up with the leader's log end; undefined on a non-leader. */
  readonly lastCaughtUpTimestampMs: number | undefined;
}

/** What `RaftNode.status()` reports. */
export interface RaftNodeStatus {
  readonly nodeId: number;
  /**
   * `bound` (listening, not started), `starting`, `running`, `failed` (the driver stopped on a
   * failure, such as a full disk or a state machine that threw: every call now refuses with
   * RaftNodeClosedError, whose cause is the failure; only `close()` is left) or `closed`.
   */
  readonly phase: 'bound' | 'starting' | 'running' | 'failed' | 'closed';
  readonly endpoints: readonly { readonly name: string; readonly host: string; readonly port: number }[];
  /** The quorum role; `unattached` before start. */
  readonly role: RaftRole;
  readonly epoch: number;
  readonly leaderId: number | undefined;
  readonly leaderEndpoint: NodeAddress | undefined;
  readonly highWatermark: number | undefined;
  readonly logStartOffset: number | undefined;
  readonly logEndOffset: number | undefined;
  readonly lastFlushedOffset: number | undefined;
  /** The last position the state machine applied (or passed over as a control batch). */
  readonly applied: LogPosition | undefined;
  readonly voters: readonly RaftNodeVoterStatus[];
}

interface NodeStatusParts {
  readonly nodeId: number;
  readonly phase: RaftNodeStatus['phase'];
  readonly listenerName: string;
  readonly endpoints: RaftNodeStatus['endpoints'];
  readonly applied: LogPosition | undefined;
  readonly client?: KafkaRaftClient;
  readonly driver?: RaftDriver;
  readonly voters?: VoterSet;
}

/** Reads the driver's state and, on the leader, the replica states DescribeQuorum reports. */
export function describeNodeStatus(parts: NodeStatusParts): RaftNodeStatus {
  const { client, driver } = parts;
  if (client === undefined || driver === undefined) {
    return {
      nodeId: parts.nodeId,
      phase: parts.phase,
      endpoints: parts.endpoints,
      role: 'unattached',
      epoch: 0,
      leaderId: undefined,
      leaderEndpoint: undefined,
      highWatermark: undefined,
      logStartOffset: undefined,
      logEndOffset: undefined,
      lastFlushedOffset: undefined,
      applied: parts.applied,
      voters: [],
    };
  }
  const state = driver.state();
  const voters = state.running ? client.quorumState().voters() : (parts.voters as VoterSet);
  const endpointOf = (nodeId: number | undefined) =>
    nodeId === undefined ? undefined : voters.listeners(nodeId).address(parts.listenerName);
  return {
    nodeId: parts.nodeId,
    phase: parts.phase,
    endpoints: parts.endpoints,
    role: state.role,
    epoch: state.epoch,
    leaderId: state.leaderId,
    leaderEndpoint: endpointOf(state.leaderId),
    highWatermark: state.highWatermark,
    logStartOffset: state.raft?.logStartOffset,
    logEndOffset: state.logEndOffset,
    lastFlushedOffset: state.lastFlushedOffset,
    applied: parts.applied,
    voters: describeVoters(
      client,
      voters,
      state.running && state.role === 'leader',
      state.logEndOffset,
      endpointOf,
    ),
  };
}

function describeVoters(
  client: KafkaRaftClient,
  voters: VoterSet,
  isLeader: boolean,
  leaderEndOffset: number,
  endpointOf: (nodeId: number) => NodeAddress | undefined,
): RaftNodeVoterStatus[] {
  const replicas = isLeader ? client.quorumState().leaderStateOrThrow().describeVoters() : [];
  return voters.voterIds().map((nodeId) => {
    const replica = replicas.find((candidate) => candidate.replicaKey.id === nodeId);
    const logEndOffset = replica?.endOffset;
    return {
      nodeId,
      endpoint: endpointOf(nodeId),
      logEndOffset,
      lag: logEndOffset === undefined ? undefined : Math.max(0, leaderEndOffset - logEndOffset),
      lastFetchTimestampMs: replica?.lastFetchTimestampMs,
      lastCaughtUpTimestampMs: replica?.lastCaughtUpTimestampMs,
    };
  });
}
