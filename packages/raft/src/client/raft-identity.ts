import type { Logger } from '@kraft/protocol';
import type { Endpoints } from '../endpoints.js';
import type { QuorumStateDataVersion } from '../ports/quorum-state-store.js';
import type { QuorumConfig } from '../quorum-config.js';
import type { ReplicatedTopic } from '../rpc/raft-messages.js';
import type { RpcVersions } from '../rpc/rpc-versions.js';
import type { VoterSet } from '../voter-set.js';

/**
 * Who this node is and how it is configured, fixed for the client's lifetime: what the handlers
 * put in the messages they build and the settings they act on, plus the logger that names the
 * node. KafkaRaftClient resolves it once from its options.
 */
export interface RaftIdentity {
  /** Undefined for an observer without a node id. */
  readonly nodeId: number | undefined;
  /** The cluster id this node sends (null when it has none). */
  readonly clusterId: string | null;
  /**
   * The static voters (`controller.quorum.voters`): the voter set at kraft.version 0, and at 1 the
   * set wherever the log holds no VotersRecord. Handlers read the current set from
   * `QuorumState.voters()`, which at kraft.version 1 follows the log (ADR 0045).
   */
  readonly voters: VoterSet;
  readonly topic: ReplicatedTopic;
  readonly listenerName: string;
  readonly localEndpoints: Endpoints;
  readonly config: QuorumConfig;
  readonly rpcVersions: RpcVersions;
  readonly kraftVersion: QuorumStateDataVersion;
  /** The raft component's logger, created once with the node's bindings. */
  readonly logger: Logger;
}
