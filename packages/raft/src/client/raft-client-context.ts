import type { Logger, Uuid } from '@kraft/protocol';
import type { Endpoints } from '../endpoints.js';
import type { KafkaRaftClientOptions } from '../kafka-raft-client-options.js';
import type { NetworkChannel } from '../ports/network-channel.js';
import type { QuorumStateDataVersion } from '../ports/quorum-state-store.js';
import type { RaftLog } from '../ports/raft-log.js';
import type { QuorumConfig } from '../quorum-config.js';
import type { QuorumState } from '../quorum-state.js';
import type { MessageSink, SnapshotInstallSink } from '../raft-outbox.js';
import type { RequestManager } from '../request-manager.js';
import type { ReplicatedTopic } from '../rpc/raft-messages.js';
import type { RpcVersions } from '../rpc/rpc-versions.js';
import type { OutboundApiKey, RequestDataByApiKey } from '../rpc/typed-messages.js';

/** A request in flight to one node: its answer is judged against the epoch and pre-vote flag it was sent with. */
export interface OutstandingRequest {
  readonly correlationId: number;
  readonly apiKey: number;
  readonly epoch: number;
  readonly preVote: boolean;
}

/**
 * What KafkaRaftClient shares with the modules it delegates to (state polling, transitions, the
 * RPC handlers): its identity, configuration and ports, the quorum state machine, the requests in
 * flight, and the few request helpers every handler uses. KafkaRaftClient builds the one instance;
 * the modules never see the client itself.
 */
export interface RaftClientContext {
  readonly options: KafkaRaftClientOptions;
  readonly config: QuorumConfig;
  readonly log: RaftLog;
  /** Endpoint updates only: messages go through `outbox`. */
  readonly network: Pick<NetworkChannel, 'updateEndpoint'>;
  /** Where requests and responses are recorded; the driver sends them in order. */
  readonly outbox: MessageSink & SnapshotInstallSink;
  readonly logger: Logger;
  readonly topic: ReplicatedTopic;
  readonly listenerName: string;
  readonly localEndpoints: Endpoints;
  readonly rpcVersions: RpcVersions;
  readonly kraftVersion: QuorumStateDataVersion;
  readonly quorum: QuorumState;
  readonly requestManager: RequestManager;
  /** The request in flight to each node, by destination id. */
  readonly outstanding: Map<number, OutstandingRequest>;
  /** The cluster id this node sends (null when it has none). */
  clusterId(): string | null;
  /** False when a request carries another non-null cluster id. */
  hasValidClusterId(requestClusterId: string | null | undefined): boolean;
  /** One topic and it is ours: by id when it carries a non-zero one (Fetch v13+), else by name. */
  isReplicatedTopic(
    topics: readonly { topicName?: string; name?: string; topic?: string; topicId?: Uuid }[],
  ): boolean;
  /** A request naming a voter key must name ours (KIP-853); -1 means "not given". */
  isValidVoterKey(voterId: number, voterDirectoryId: Uuid): boolean;
  /** FENCED/UNKNOWN epoch, NOT_LEADER_OR_FOLLOWER, or BROKER_NOT_AVAILABLE while shutting down. */
  validateLeaderOnlyRequest(requestEpoch: number): number;
  /** True once `shutdown` was called. */
  isShuttingDown(): boolean;
  /** True when appended data is not yet durable. */
  needsFlush(): boolean;
  /** Sends a request and remembers it as the one in flight to `destinationId`. */
  sendRequest<K extends OutboundApiKey>(
    destinationId: number,
    apiKey: K,
    apiVersion: number,
    data: RequestDataByApiKey[K],
    epoch: number,
    preVote: boolean,
    nowMs: number,
  ): void;
}
