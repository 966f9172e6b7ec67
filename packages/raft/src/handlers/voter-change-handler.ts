import {
  type AddRaftVoterResponseData,
  type ApiError,
  Errors,
  errorForCode,
  type RemoveRaftVoterResponseData,
  type UpdateRaftVoterResponseData,
  Uuid,
} from '@kraft/protocol';
import type { RaftIdentity } from '../client/raft-identity.js';
import type { RequestValidator } from '../client/request-validator.js';
import type { QuorumState } from '../quorum-state.js';
import type { RaftApiKey } from '../rpc/raft-api-key.js';
import type { RaftRequestOf } from '../rpc/typed-messages.js';
import { formatJavaEndpoints, normalisedListenerName } from './java-endpoints-format.js';

/**
 * AddRaftVoter, RemoveRaftVoter and UpdateRaftVoter (KIP-853) as Kafka's leader answers them
 * while the cluster runs kraft.version 0, that is while voters are static: every request is
 * answered at once, with the checks Kafka makes before it would change the voter set, and
 * UNSUPPORTED_VERSION where it would start the change. A Java follower sends UpdateRaftVoter to
 * every new leader and takes NONE or UNSUPPORTED_VERSION as done. This node changes no voter
 * set even at kraft.version 1; it answers UNSUPPORTED_VERSION there too (see ADR 0013).
 */
export class VoterChangeHandler {
  constructor(
    private readonly identity: RaftIdentity,
    private readonly quorum: QuorumState,
    private readonly validator: RequestValidator,
  ) {}

  handleAddVoterRequest(request: RaftRequestOf<typeof RaftApiKey.ADD_RAFT_VOTER>): AddRaftVoterResponseData {
    const { data } = request;
    const invalid = this.validateAddOrRemove(data, 'Add');
    if (invalid !== undefined) return invalid;
    const endpoints = data.listeners.map((listener) => ({
      name: normalisedListenerName(listener.name),
      host: listener.host,
      port: listener.port,
    }));
    if (!this.includesDefaultListener(endpoints)) {
      return errorResponse(
        Errors.INVALID_REQUEST,
        `Add voter request didn't include the endpoint (${formatJavaEndpoints(endpoints)}) ` +
          `for the default listener ListenerName(${normalisedListenerName(this.identity.listenerName)})`,
      );
    }
    return this.refuseVoterChange('adding');
  }

  handleRemoveVoterRequest(
    request: RaftRequestOf<typeof RaftApiKey.REMOVE_RAFT_VOTER>,
  ): RemoveRaftVoterResponseData {
    const { data } = request;
    return this.validateAddOrRemove(data, 'Remove') ?? this.refuseVoterChange('removing');
  }

  handleUpdateVoterRequest(
    request: RaftRequestOf<typeof RaftApiKey.UPDATE_RAFT_VOTER>,
  ): UpdateRaftVoterResponseData {
    const { data } = request;
    const listenerName = request.listenerName ?? this.identity.listenerName;
    const answer = (error: ApiError) => this.updateVoterResponse(error, listenerName);
    if (!this.validator.hasValidClusterId(data.clusterId)) return answer(Errors.INCONSISTENT_CLUSTER_ID);
    const leaderError = this.validator.validateLeaderOnlyRequest(data.currentLeaderEpoch);
    if (leaderError !== Errors.NONE.code) return answer(errorForCode(leaderError));
    if (!isValidVoterKey(data.voterId, data.voterDirectoryId)) return answer(Errors.INVALID_REQUEST);
    const { minSupportedVersion, maxSupportedVersion } = data.kRaftVersionFeature;
    if (minSupportedVersion < 0 || maxSupportedVersion < 0 || maxSupportedVersion < minSupportedVersion) {
      return answer(Errors.INVALID_REQUEST);
    }
    if (!this.leaderKnowsItsHighWatermark()) return answer(Errors.REQUEST_TIMED_OUT);
    if (!this.includesDefaultListener(data.listeners)) return answer(Errors.INVALID_REQUEST);
    // Here Kafka would probe the voter's new endpoint and record it in its in-memory voter set
    // (kraft.version 0) or in a VotersRecord (kraft.version 1); static voters change nothing.
    return answer(Errors.UNSUPPORTED_VERSION);
  }

  /** Whether a listener of the request is this node's default (controller) listener. */
  private includesDefaultListener(listeners: readonly { readonly name: string }[]): boolean {
    const defaultListener = normalisedListenerName(this.identity.listenerName);
    return listeners.some((listener) => normalisedListenerName(listener.name) === defaultListener);
  }

  /** Kafka's leader refuses voter changes until it has established its high watermark. */
  private leaderKnowsItsHighWatermark(): boolean {
    return this.quorum.leaderStateOrThrow().highWatermark() !== undefined;
  }

  /** Kafka's checks before AddVoterHandler / RemoveVoterHandler run, in Kafka's order. */
  private validateAddOrRemove(
    data: { clusterId: string | null; voterId: number; voterDirectoryId: Uuid },
    requestName: 'Add' | 'Remove',
  ): AddRaftVoterResponseData | undefined {
    if (!this.validator.hasValidClusterId(data.clusterId)) {
      return errorResponse(
        Errors.INCONSISTENT_CLUSTER_ID,
        `The given id "${data.clusterId}" doesn't match the cluster id "${this.identity.clusterId}"`,
      );
    }
    const leaderError = this.validator.validateLeaderOnlyRequest(this.quorum.epoch());
    // Kafka sets only the code here; the message keeps its data-class default, "".
    if (leaderError !== Errors.NONE.code)
      return { throttleTimeMs: 0, errorCode: leaderError, errorMessage: '' };
    if (!isValidVoterKey(data.voterId, data.voterDirectoryId)) {
      return errorResponse(
        Errors.INVALID_REQUEST,
        `${requestName} voter request didn't include a valid voter`,
      );
    }
    return undefined;
  }

  /** What Kafka's AddVoterHandler / RemoveVoterHandler answer before they would append a VotersRecord. */
  private refuseVoterChange(change: 'adding' | 'removing'): AddRaftVoterResponseData {
    if (!this.leaderKnowsItsHighWatermark()) {
      return errorResponse(
        Errors.REQUEST_TIMED_OUT,
        'Request timed out waiting for leader to establish HWM and fence previous voter changes',
      );
    }
    const kraftVersion = this.identity.kraftVersion;
    const message =
      kraftVersion === 0
        ? `Cluster doesn't support ${change} voter because the kraft.version feature is 0`
        : `This node doesn't implement ${change} voter; the kraft.version feature is ${kraftVersion}`;
    return errorResponse(Errors.UNSUPPORTED_VERSION, message);
  }

  /** Kafka's `RaftUtil.updateVoterResponse`: the leader as this node knows it, on the request's listener. */
  private updateVoterResponse(error: ApiError, listenerName: string): UpdateRaftVoterResponseData {
    const quorum = this.quorum;
    const leader = quorum.leaderAndEpoch();
    const address = quorum.state().leaderEndpoints().address(listenerName);
    return {
      throttleTimeMs: 0,
      errorCode: error.code,
      currentLeader: {
        leaderId: leader.leaderId ?? -1,
        leaderEpoch: leader.epoch,
        host: address?.host ?? '',
        port: address?.port ?? 0,
      },
    };
  }
}

/** Kafka's `RaftUtil.addVoterResponse` / `removeVoterResponse` (both responses share one shape). */
function errorResponse(error: ApiError, errorMessage: string): AddRaftVoterResponseData {
  return { throttleTimeMs: 0, errorCode: error.code, errorMessage };
}

/** A voter key must name a voter id and a directory id (Kafka: `directoryId().isPresent()`). */
function isValidVoterKey(voterId: number, voterDirectoryId: Uuid): boolean {
  return voterId >= 0 && !voterDirectoryId.equals(Uuid.ZERO);
}
