import type { Logger, Uuid } from '@kraft/protocol';
import type { Endpoints } from './endpoints.js';
import type { NetworkChannel, NodeAddress } from './ports/network-channel.js';
import type { QuorumStateDataVersion, QuorumStateStore } from './ports/quorum-state-store.js';
import type { RaftLog } from './ports/raft-log.js';
import type { Random } from './ports/random.js';
import type { QuorumConfig } from './quorum-config.js';
import type { ReplicatedTopic } from './rpc/raft-messages.js';
import type { RpcVersions } from './rpc/rpc-versions.js';
import type { VoterSet } from './voter-set.js';

/** What a `KafkaRaftClient` is built from: node identity, config, the log and state store ports, and voters. */
export interface KafkaRaftClientOptions {
  /** Undefined for an observer that has no node id (it fetches as replica -1). */
  readonly nodeId: number | undefined;
  readonly directoryId?: Uuid;
  /** Requests carrying another non-null cluster id are answered INCONSISTENT_CLUSTER_ID. */
  readonly clusterId?: string | null;
  readonly voters: VoterSet;
  /**
   * `controller.quorum.bootstrap.servers` (KIP-853): where an observer that knows no leader asks
   * who leads, addressed by ids of their own (`bootstrapServerId`: -2, -3, ...). When empty, or
   * not given, it asks the known voters, as before.
   */
  readonly bootstrapServers?: readonly NodeAddress[];
  /**
   * `controller.quorum.auto.join.enable` (KIP-853, default false): at kraft.version 1 an observer
   * with a directory id asks its leader to add it as a voter, once per fetch timeout, until it
   * is one; an old voter with its id and another directory id is removed first. A removed node
   * that keeps running joins again (KAFKA-19850): stop it before removing it.
   */
  readonly autoJoin?: boolean;
  readonly log: RaftLog;
  readonly network: NetworkChannel;
  readonly quorumStateStore: QuorumStateStore;
  readonly random: Random;
  readonly config?: Partial<QuorumConfig>;
  /** The listener name endpoints are advertised on (`controller.listener.names`' first entry). */
  readonly listenerName?: string;
  /** This node's own endpoints, sent in BeginQuorumEpoch/EndQuorumEpoch when it leads. */
  readonly localEndpoints?: Endpoints;
  /** 0 = static voters (quorum-state data version 0), 1 = KIP-853. */
  readonly kraftVersion?: QuorumStateDataVersion;
  readonly rpcVersions?: Partial<RpcVersions>;
  /**
   * The topic replicated (its name and topic id travel in every RPC; requests naming another are
   * refused as Kafka does). Default `__cluster_metadata`; Kafka's raft test server uses
   * `__raft_performance_test` with topic id `Uuid(0, 2)`.
   */
  readonly topic?: ReplicatedTopic;
  /**
   * The reused read buffer of the listener readers (committed batches and snapshots), which
   * refill it from the log's files: RecordsIterator's `maxBatchSizeBytes`, Kafka's
   * MAX_BATCH_SIZE_BYTES (8 MiB, the default). The simulator makes it small so a committed read
   * spans several refills, the shape KAFKA-20841 needed.
   */
  readonly listenerReadBufferBytes?: number;
  /**
   * Most inbound messages waiting for the next `poll`; `handleRequest`/`handleResponse` refuse
   * (return false) beyond it, and the transport answers or drops as on a saturated socket. The
   * one bound of the inbound path (ADR 0031). Default 4096.
   */
  readonly maxQueuedMessages?: number;
  readonly logger?: Logger;
}
