import { LogConfig } from '@kraft/log';
import type { Uuid } from '@kraft/protocol';
import type { FileSystem } from '@kraft/records';
import { Endpoints } from '../endpoints.js';
import { openKafkaRaftLog } from '../io/kafka-raft-log.js';
import { KafkaRaftClient } from '../kafka-raft-client.js';
import type { InboundRequest, InboundResponse, NetworkChannel } from '../ports/network-channel.js';
import type { QuorumStateStore } from '../ports/quorum-state-store.js';
import type { OffsetAndEpoch, RaftLog } from '../ports/raft-log.js';
import type { Random } from '../ports/random.js';
import type { QuorumConfig } from '../quorum-config.js';
import type { QuorumState } from '../quorum-state.js';
import type { LeaderAndEpoch, Listener, SnapshotWriter } from '../raft-client.js';
import type { RaftReady } from '../raft-outbox.js';
import { ReplicaKey } from '../replica-key.js';
import { DEFAULT_CONTROLLER_LISTENER_NAME, VoterSet } from '../voter-set.js';

/** The log settings a seed picks. */
export interface SimulationLogConfig {
  readonly segmentBytes: number;
  readonly retentionMaxBytes: number;
  readonly preallocateSegments: boolean;
}

/** Raft timeouts plus the log settings a seed picks. */
export interface SimulationRaftConfig {
  readonly quorum: QuorumConfig;
  readonly log: SimulationLogConfig;
  /** The listener readers' refill buffer: Kafka's 8 MiB, or small so committed reads span refills. */
  readonly listenerReadBufferBytes: number;
  /**
   * The nodes' kraft.version; absent means the client's default, 0 (static voters). At 1 the voter
   * set is read from the log (KIP-853, ADR 0045): `pnpm sim --kraft-version 1`.
   */
  readonly kraftVersion?: 0 | 1;
  /** `controller.quorum.auto.join.enable` on every node (kraft.version 1): observers add themselves. */
  readonly autoJoin?: boolean;
}

/** What the harness calls on a node's client. */
export interface SimulatedClient {
  poll(nowMs: number): number;
  handleRequest(request: InboundRequest, nowMs: number): void;
  handleResponse(response: InboundResponse, nowMs: number): void;
  onLogFlushed(offset: number, nowMs: number): void;
  ready(): RaftReady;
  onElectionStatePersisted(id: number, nowMs: number): void;
  onSnapshotInstallDurable(id: number, nowMs: number): void;
  register(listener: Listener): void;
  scheduleAppend(epoch: number, records: readonly Buffer[]): number;
  createSnapshot(snapshotId: OffsetAndEpoch, lastContainedLogTimestamp: number): SnapshotWriter | undefined;
  leaderAndEpoch(): LeaderAndEpoch;
  highWatermark(): number | undefined;
  isLeader(): boolean;
  /** The core's quorum state, read by the harness to tell a settled cluster (never changed). */
  quorumState(): QuorumState;
  shutdown(timeoutMs: number, nowMs: number): void;
  isShutdownComplete(): boolean;
  /** The latest voter set (at kraft.version 1 from the log, uncommitted included). */
  lastVoterSet(): VoterSet;
  /** The voter set in force at `offset` (from -1 to below the log end). */
  voterSetAtOffset(offset: number): VoterSet;
}

/** Opens the real segmented log over the node's disk (recovering after a crash). */
export function openSimulatedLog(
  fileSystem: FileSystem,
  directory: string,
  config: SimulationRaftConfig,
  time: () => number,
): RaftLog {
  return openKafkaRaftLog({
    dir: directory,
    fileSystem,
    time,
    config: new LogConfig({
      internalSegmentBytes: config.log.segmentBytes,
      retentionMaxBytes: config.log.retentionMaxBytes,
      // Index files are preallocated in memory: keep them small.
      segmentIndexBytes: 4_096,
      indexIntervalBytes: 256,
      preallocate: config.log.preallocateSegments,
    }),
  });
}

export interface SimulatedClientOptions {
  readonly nodeId: number;
  readonly voterIds: readonly number[];
  readonly log: RaftLog;
  readonly store: QuorumStateStore;
  readonly channel: NetworkChannel;
  readonly random: Random;
  readonly config: SimulationRaftConfig;
  readonly nowMs: number;
  /** The node's log directory id (kraft.version 1: voter keys name it); none by default. */
  readonly directoryId?: Uuid;
}

/** Where node `nodeId` listens in the simulation: the address AddRaftVoter requests name too. */
export function simulatedEndpoints(nodeId: number): Endpoints {
  return Endpoints.fromEntries([[DEFAULT_CONTROLLER_LISTENER_NAME, { host: `node-${nodeId}`, port: 9093 }]]);
}

/** The bootstrap voters at kraft.version 1: ids and addresses, the versions a static set has. */
function voterSetWithEndpoints(voterIds: readonly number[]): VoterSet {
  return VoterSet.fromNodes(
    voterIds.map((id) => ({
      voterKey: ReplicaKey.of(id),
      listeners: simulatedEndpoints(id),
      supportedKRaftVersion: { minVersion: 0, maxVersion: 0 },
    })),
  );
}

/** A real KafkaRaftClient with static voters `voterIds`, initialized from its store and log. */
export function createSimulatedClient(options: SimulatedClientOptions): SimulatedClient {
  const dynamic = options.config.kraftVersion === 1;
  const client = new KafkaRaftClient({
    nodeId: options.nodeId,
    ...(options.directoryId === undefined ? {} : { directoryId: options.directoryId }),
    voters: dynamic ? voterSetWithEndpoints(options.voterIds) : VoterSet.fromIds(options.voterIds),
    // Every node has an address at kraft.version 1, as a real one does: a leader names itself in
    // BeginQuorumEpoch and Fetch answers, so a node whose (uncommitted) voter set lacks the new
    // leader can still follow it and truncate that set away. The router delivers by id anyway.
    ...(dynamic ? { localEndpoints: simulatedEndpoints(options.nodeId) } : {}),
    ...(options.config.autoJoin === true ? { autoJoin: true } : {}),
    log: options.log,
    network: options.channel,
    quorumStateStore: options.store,
    random: options.random,
    config: options.config.quorum,
    listenerReadBufferBytes: options.config.listenerReadBufferBytes,
    ...(options.config.kraftVersion === undefined ? {} : { kraftVersion: options.config.kraftVersion }),
  });
  client.initialize(options.nowMs);
  const quorum = client.quorumState();
  return Object.assign(client, { isLeader: () => quorum.isLeader() });
}
