import { Errors, Uuid } from '@kraft/protocol';
import type { QuorumState } from '../quorum-state.js';
import { ReplicaKey } from '../replica-key.js';
import type { ReplicatedTopic } from '../rpc/raft-messages.js';
import type { ShutdownStatus } from './shutdown-deadline.js';

/** The checks every RPC handler makes on a request before acting on it, in Kafka's terms. */
export interface RequestValidator {
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
}

/** The request checks against this node's cluster id, topic, quorum state and shutdown. */
export class QuorumRequestValidator implements RequestValidator {
  constructor(
    /** Undefined or null: this node accepts any cluster id. */
    private readonly clusterId: string | null,
    private readonly topic: ReplicatedTopic,
    private readonly quorum: QuorumState,
    private readonly shutdown: ShutdownStatus,
  ) {}

  hasValidClusterId(requestClusterId: string | null | undefined): boolean {
    const ours = this.clusterId;
    return (
      requestClusterId === null ||
      requestClusterId === undefined ||
      ours === null ||
      requestClusterId === ours
    );
  }

  isReplicatedTopic(
    topics: readonly { topicName?: string; name?: string; topic?: string; topicId?: Uuid }[],
  ): boolean {
    const topic = topics[0];
    if (topics.length !== 1 || topic === undefined) return false;
    if (topic.topicId !== undefined && !topic.topicId.equals(Uuid.ZERO)) {
      return topic.topicId.equals(this.topic.topicId);
    }
    return (topic.topicName ?? topic.name ?? topic.topic) === this.topic.name;
  }

  isValidVoterKey(voterId: number, voterDirectoryId: Uuid): boolean {
    if (voterId < 0) return true;
    const local = this.quorum.localReplicaKey();
    return local?.matches(ReplicaKey.of(voterId, voterDirectoryId)) === true;
  }

  validateLeaderOnlyRequest(requestEpoch: number): number {
    const epoch = this.quorum.epoch();
    if (requestEpoch < epoch) return Errors.FENCED_LEADER_EPOCH.code;
    if (requestEpoch > epoch) return Errors.UNKNOWN_LEADER_EPOCH.code;
    if (!this.quorum.isLeader()) return Errors.NOT_LEADER_OR_FOLLOWER.code;
    if (this.shutdown.isShuttingDown()) return Errors.BROKER_NOT_AVAILABLE.code;
    return Errors.NONE.code;
  }
}
