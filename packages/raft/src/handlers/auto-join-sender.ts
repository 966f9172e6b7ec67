import { ApiKeys, Errors } from '@kraft/protocol';
import type { OutboundRequests } from '../client/outbound-requests.js';
import type { RaftIdentity } from '../client/raft-identity.js';
import type { KRaftControlRecordStateMachine } from '../internals/kraft-control-record-state-machine.js';
import type { QuorumState } from '../quorum-state.js';
import { RaftApiKey } from '../rpc/raft-api-key.js';
import { listenersOf, topLevelErrorCode } from '../rpc/raft-messages.js';
import type { RaftResponseOf } from '../rpc/typed-messages.js';
import type { FollowerState } from '../states/follower-state.js';
import { includesListener } from './java-endpoints-format.js';

/** AddRaftVoter v1 carries AckWhenCommitted (KIP-1186): a joining observer asks for the append's answer. */
const ADD_RAFT_VOTER_WITH_ACK_VERSION = 1;

/**
 * `controller.quorum.auto.join.enable` (KIP-853, Kafka's `pollFollowerAsObserver`): a kraft.version 1
 * observer that knows its leader adds itself as a voter, in place of one Fetch, once per period
 * of one fetch timeout from when it started following (time to catch up first: the leader
 * refuses a voter that is not caught up), until it reads a voter set that holds it. If the
 * set holds its id under another directory id (an old disk), it removes that voter first.
 * Kafka's rule, and its hazard (KAFKA-19850): a removed controller that keeps running joins
 * again, so shut one down before removing it.
 */
export class AutoJoinSender {
  /** The followed leader and epoch the period runs for, and when the next try is due. */
  private period: { readonly epoch: number; readonly leaderId: number; nextTryMs: number } | undefined;
  /**
   * A node id, a directory id and the default listener among its endpoints: what the leader
   * needs to add this node (else it would answer INVALID_REQUEST). Fixed for the node's life.
   */
  private readonly canBeAdded: boolean;

  constructor(
    private readonly identity: RaftIdentity,
    private readonly quorum: QuorumState,
    // Built at kraft.version 1 only, where the control records exist.
    private readonly controlRecords: Pick<KRaftControlRecordStateMachine, 'lastVoterSet'>,
    private readonly sender: Pick<OutboundRequests, 'sendRequest'>,
  ) {
    const localKey = quorum.localReplicaKey();
    this.canBeAdded =
      localKey?.directoryId !== undefined &&
      includesListener(identity.localEndpoints.names(), identity.listenerName);
  }

  /**
   * Sends AddRaftVoter (or RemoveRaftVoter of this id's old directory id) to the leader when a
   * try is due; true if sent. The next try is a period later, whatever the answer.
   */
  maybeSendAutoJoin(follower: FollowerState, nowMs: number): boolean {
    if (!this.canJoin()) return false;
    const period = this.periodFor(follower, nowMs);
    if (nowMs < period.nextTryMs) return false;
    period.nextTryMs = nowMs + this.identity.config.fetchTimeoutMs;
    const localKey = this.quorum.localReplicaKeyOrThrow();
    const stale = this.controlRecords.lastVoterSet().voterNode(localKey.id);
    if (stale !== undefined) {
      this.identity.logger.info(
        { epoch: follower.epoch, leaderId: follower.leaderId, staleVoter: stale.voterKey.toString() },
        'auto-join: removing this node id with an old directory id from the voters first',
      );
      const removal = ApiKeys.REMOVE_RAFT_VOTER.request.defaults({
        clusterId: this.identity.clusterId,
        voterId: stale.voterKey.id,
        voterDirectoryId: stale.voterKey.directoryIdOrZero(),
      });
      this.sender.sendRequest(
        follower.leaderId,
        RaftApiKey.REMOVE_RAFT_VOTER,
        0,
        removal,
        follower.epoch,
        false,
        nowMs,
      );
      return true;
    }
    this.identity.logger.info(
      { epoch: follower.epoch, leaderId: follower.leaderId },
      'auto-join: asking the leader to add this observer as a voter',
    );
    const addition = ApiKeys.ADD_RAFT_VOTER.request.defaults({
      clusterId: this.identity.clusterId,
      timeoutMs: this.identity.config.requestTimeoutMs,
      voterId: localKey.id,
      voterDirectoryId: localKey.directoryIdOrZero(),
      listeners: listenersOf(this.identity.localEndpoints),
      ackWhenCommitted: false,
    });
    this.sender.sendRequest(
      follower.leaderId,
      RaftApiKey.ADD_RAFT_VOTER,
      ADD_RAFT_VOTER_WITH_ACK_VERSION,
      addition,
      follower.epoch,
      false,
      nowMs,
    );
    return true;
  }

  /** Until the next try is due for `follower`; infinite when this node does not join itself. */
  remainingMs(follower: FollowerState, nowMs: number): number {
    if (!this.canJoin()) return Number.POSITIVE_INFINITY;
    return Math.max(0, this.periodFor(follower, nowMs).nextTryMs - nowMs);
  }

  /**
   * The leader's answer. Only logged: the next try comes a period later either way (Kafka), and
   * a refusal must not put the leader in backoff, which would hold up the next Fetch.
   */
  handleResponse(
    response: RaftResponseOf<typeof RaftApiKey.ADD_RAFT_VOTER | typeof RaftApiKey.REMOVE_RAFT_VOTER>,
  ): true {
    const errorCode = topLevelErrorCode(response.data);
    const change = response.apiKey === RaftApiKey.ADD_RAFT_VOTER ? 'AddRaftVoter' : 'RemoveRaftVoter';
    if (errorCode === Errors.NONE.code) {
      this.identity.logger.info({ remoteNodeId: response.sourceId }, `auto-join: ${change} accepted`);
    } else {
      this.identity.logger.info(
        { remoteNodeId: response.sourceId, errorCode },
        `auto-join: ${change} refused; trying again in one fetch timeout`,
      );
    }
    return true;
  }

  /** An observer the leader could add. */
  private canJoin(): boolean {
    return this.canBeAdded && this.quorum.isObserver();
  }

  /** The period of the leader `follower` follows: a new leader or epoch starts a new one. */
  private periodFor(follower: FollowerState, nowMs: number) {
    const period = this.period;
    if (period !== undefined && period.epoch === follower.epoch && period.leaderId === follower.leaderId) {
      return period;
    }
    const started = {
      epoch: follower.epoch,
      leaderId: follower.leaderId,
      nextTryMs: nowMs + this.identity.config.fetchTimeoutMs,
    };
    this.period = started;
    return started;
  }
}
