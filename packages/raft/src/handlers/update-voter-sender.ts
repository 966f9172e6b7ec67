import { ApiKeys, Errors } from '@kraft/protocol';
import type { OutboundRequests } from '../client/outbound-requests.js';
import type { RaftIdentity } from '../client/raft-identity.js';
import type { KRaftControlRecordStateMachine } from '../internals/kraft-control-record-state-machine.js';
import type { QuorumState } from '../quorum-state.js';
import { RaftApiKey } from '../rpc/raft-api-key.js';
import { listenersOf, topLevelErrorCode } from '../rpc/raft-messages.js';
import type { RaftResponseOf } from '../rpc/typed-messages.js';
import type { FollowerState } from '../states/follower-state.js';
import type { VoterNode } from '../voter-set.js';
import { includesListener } from './java-endpoints-format.js';
import { ADDED_VOTER_KRAFT_VERSIONS } from './voter-change-handler.js';

/**
 * A kraft.version 1 follower's UpdateRaftVoter (KIP-853, Kafka's `maybeSendUpdateVoterRequest`):
 * when the committed voter set records this voter with other endpoints or another kraft.version
 * range than its own, it tells the leader, so that the set names where voters really are. Sent
 * at most once per epoch and recorded voter (a later set or epoch may ask again), in place of one
 * Fetch: the leader answers it once the new set is appended, within its poll, so the next Fetch
 * waits one round trip, never the request timeout (the stall of ADR 0013).
 */
export class UpdateVoterSender {
  /** What was last asked for: the epoch and the recorded voter it wanted to change. */
  private lastSent: { readonly epoch: number; readonly recorded: VoterNode } | undefined;

  constructor(
    private readonly identity: RaftIdentity,
    private readonly quorum: QuorumState,
    private readonly controlRecords: Pick<
      KRaftControlRecordStateMachine,
      'voterSetAtOffset' | 'nextOffsetToRead'
    >,
    private readonly sender: Pick<OutboundRequests, 'sendRequest'>,
  ) {}

  /** Sends UpdateRaftVoter to the leader if the committed set misstates this voter; true if sent. */
  maybeSendUpdateVoter(follower: FollowerState, nowMs: number): boolean {
    const recorded = this.recordedVoterToUpdate(follower);
    if (recorded === undefined) return false;
    const localKey = this.quorum.localReplicaKeyOrThrow();
    const data = ApiKeys.UPDATE_RAFT_VOTER.request.defaults({
      clusterId: this.identity.clusterId,
      currentLeaderEpoch: follower.epoch,
      voterId: localKey.id,
      voterDirectoryId: localKey.directoryIdOrZero(),
      listeners: listenersOf(this.identity.localEndpoints),
      kRaftVersionFeature: {
        minSupportedVersion: ADDED_VOTER_KRAFT_VERSIONS.minVersion,
        maxSupportedVersion: ADDED_VOTER_KRAFT_VERSIONS.maxVersion,
      },
    });
    this.lastSent = { epoch: follower.epoch, recorded };
    this.identity.logger.info(
      { epoch: follower.epoch, leaderId: follower.leaderId },
      'the committed voter set misstates this voter: sending UpdateRaftVoter',
    );
    this.sender.sendRequest(
      follower.leaderId,
      RaftApiKey.UPDATE_RAFT_VOTER,
      0,
      data,
      follower.epoch,
      false,
      nowMs,
    );
    return true;
  }

  /**
   * The leader's answer. Kafka's follower takes NONE and UNSUPPORTED_VERSION (a kraft.version 0
   * leader, ADR 0013) alike as done; any other answer is not retried before the epoch or the
   * recorded voter changes, so a leader that keeps refusing costs one request per epoch. Always
   * a success for the request manager: a refusal must not put the leader in backoff, which would
   * hold up the next Fetch; a lost connection shows in that Fetch.
   */
  handleUpdateVoterResponse(response: RaftResponseOf<typeof RaftApiKey.UPDATE_RAFT_VOTER>): true {
    const errorCode = topLevelErrorCode(response.data);
    if (errorCode !== Errors.NONE.code && errorCode !== Errors.UNSUPPORTED_VERSION.code) {
      this.identity.logger.warn(
        { remoteNodeId: response.sourceId, errorCode },
        'UpdateRaftVoter refused; not asking again in this epoch',
      );
    }
    return true;
  }

  /**
   * This voter's entry in the committed voter set when it differs from what this node is, and it
   * was not asked for in this epoch yet; undefined when nothing is to be sent.
   */
  private recordedVoterToUpdate(follower: FollowerState): VoterNode | undefined {
    const localKey = this.quorum.localReplicaKey();
    const highWatermark = follower.highWatermark();
    if (localKey === undefined || highWatermark === undefined || !this.quorum.isVoter()) return undefined;
    // The leader refuses a voter key without a directory id (INVALID_REQUEST): none to send.
    if (localKey.directoryId === undefined) return undefined;
    // Only what this node has read of its log is known to be committed here.
    if (highWatermark - 1 >= this.controlRecords.nextOffsetToRead()) return undefined;
    const recorded = this.controlRecords.voterSetAtOffset(highWatermark - 1).voterNode(localKey.id);
    if (recorded === undefined || !recorded.voterKey.matches(localKey)) return undefined;
    const local = this.identity.localEndpoints;
    // The leader refuses an update without its default listener (INVALID_REQUEST): none to send.
    if (!includesListener(local.names(), this.identity.listenerName)) return undefined;
    const range = recorded.supportedKRaftVersion;
    const differs =
      !recorded.listeners.equals(local) ||
      range.minVersion !== ADDED_VOTER_KRAFT_VERSIONS.minVersion ||
      range.maxVersion !== ADDED_VOTER_KRAFT_VERSIONS.maxVersion;
    if (!differs) return undefined;
    const last = this.lastSent;
    if (last !== undefined && last.epoch === follower.epoch && last.recorded === recorded) return undefined;
    return recorded;
  }
}
