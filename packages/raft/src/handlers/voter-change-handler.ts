import {
  type AddRaftVoterResponseData,
  type ApiError,
  Errors,
  errorForCode,
  invariant,
  type RemoveRaftVoterResponseData,
  type UpdateRaftVoterResponseData,
  Uuid,
} from '@kraft/protocol';
import type { RaftIdentity } from '../client/raft-identity.js';
import type { RequestValidator } from '../client/request-validator.js';
import type { VoterSetChanges } from '../client/voter-set-changes.js';
import { Endpoints } from '../endpoints.js';
import type { KRaftControlRecordStateMachine } from '../internals/kraft-control-record-state-machine.js';
import type { QuorumState } from '../quorum-state.js';
import type { MessageSink } from '../raft-outbox.js';
import { ReplicaKey } from '../replica-key.js';
import type { RaftApiKey } from '../rpc/raft-api-key.js';
import type { RaftRequestOf } from '../rpc/typed-messages.js';
import type { SupportedVersionRange, VoterSet } from '../voter-set.js';
import { formatJavaEndpoints, includesListener, normalisedListenerName } from './java-endpoints-format.js';
import type { PendingVoterChange, VoterChangeRequest } from './pending-voter-change.js';

/**
 * The kraft.version range given to a voter that AddRaftVoter adds. Kafka asks the new voter with
 * an ApiVersions request; this core sends only the raft RPCs, so it records the range this
 * implementation supports, and the voter states its own with UpdateRaftVoter (ADR 0047).
 */
export const ADDED_VOTER_KRAFT_VERSIONS: SupportedVersionRange = Object.freeze({
  minVersion: 0,
  maxVersion: 1,
});

/** What the voter change handler needs at kraft.version 1, where it changes the voter set. */
export interface VoterChangeDependencies {
  readonly controlRecords: Pick<
    KRaftControlRecordStateMachine,
    'updateState' | 'lastVoterSet' | 'lastVoterSetOffset' | 'hasUncommittedVoterChange'
  >;
  readonly voterSetChanges: Pick<VoterSetChanges, 'appendVotersRecord' | 'appendWaitingRecords'>;
  /** Leader → Resigned, for a leader whose removal of itself committed. */
  readonly resignLeadership: (nowMs: number) => void;
}

/**
 * AddRaftVoter, RemoveRaftVoter and UpdateRaftVoter (KIP-853) on the leader.
 *
 * At kraft.version 0 (static voters) every request is answered at once, with the checks Kafka
 * makes before it would change the voter set and UNSUPPORTED_VERSION where it would start the
 * change (ADR 0013); a Java follower sends UpdateRaftVoter to every new leader and takes NONE or
 * UNSUPPORTED_VERSION as done.
 *
 * At kraft.version 1 the handler changes the voter set (ADR 0047): after the same checks it
 * appends the new set's VotersRecord and answers once the high watermark passes it. It keeps at
 * most one change under way, with its own deadline; `poll` completes, expires or (on leadership
 * loss) fails it, and makes a leader that removed itself resign once the removal commits.
 * Every request gets exactly one answer, sent through the outbox.
 */
export class VoterChangeHandler {
  private pending: PendingVoterChange | undefined;

  constructor(
    private readonly identity: RaftIdentity,
    private readonly quorum: QuorumState,
    private readonly validator: RequestValidator,
    private readonly outbox: MessageSink,
    /** Undefined at kraft.version 0, where the voters are static. */
    private readonly changes: VoterChangeDependencies | undefined,
  ) {}

  handleAddVoterRequest(request: RaftRequestOf<typeof RaftApiKey.ADD_RAFT_VOTER>, nowMs: number): void {
    const answer = this.addVoter(request, nowMs);
    if (answer !== undefined) this.outbox.sendResponse(request, answer);
  }

  handleRemoveVoterRequest(request: RaftRequestOf<typeof RaftApiKey.REMOVE_RAFT_VOTER>, nowMs: number): void {
    const answer = this.removeVoter(request, nowMs);
    if (answer !== undefined) this.outbox.sendResponse(request, answer);
  }

  handleUpdateVoterRequest(request: RaftRequestOf<typeof RaftApiKey.UPDATE_RAFT_VOTER>, nowMs: number): void {
    const answer = this.updateVoter(request, nowMs);
    if (answer !== undefined) this.outbox.sendResponse(request, answer);
  }

  /**
   * Moves the pending change on: fails it when its leadership ended, appends its VotersRecord if
   * that had to wait, answers it once committed or at its deadline; then resigns a leader that is
   * no longer a voter of the committed set. Returns the time until the pending change's deadline.
   */
  poll(nowMs: number): number {
    const pending = this.pending;
    if (pending !== undefined) this.advance(pending, nowMs);
    this.maybeResignRemovedLeader(nowMs);
    const current = this.pending;
    return current === undefined ? Number.POSITIVE_INFINITY : Math.max(0, current.deadlineMs - nowMs);
  }

  /** Whether a voter change is under way (tests and status). */
  hasPendingVoterChange(): boolean {
    return this.pending !== undefined;
  }

  private addVoter(
    request: RaftRequestOf<typeof RaftApiKey.ADD_RAFT_VOTER>,
    nowMs: number,
  ): AddRaftVoterResponseData | undefined {
    const { data } = request;
    const invalid = this.validateAddOrRemove(data, 'Add');
    if (invalid !== undefined) return invalid;
    const endpoints = normalisedEndpoints(data.listeners);
    if (!this.includesDefaultListener(endpoints)) {
      return errorResponse(
        Errors.INVALID_REQUEST,
        `Add voter request didn't include the endpoint (${formatJavaEndpoints(endpoints)}) ` +
          `for the default listener ListenerName(${normalisedListenerName(this.identity.listenerName)})`,
      );
    }
    const changes = this.changes;
    if (changes === undefined) return this.refuseVoterChange('adding');
    const refusal = this.refuseWhileChanging(changes, nowMs, 'add');
    if (refusal !== undefined) return errorResponse(Errors.REQUEST_TIMED_OUT, refusal);
    const voters = changes.controlRecords.lastVoterSet();
    const voterKey = ReplicaKey.of(data.voterId, data.voterDirectoryId);
    if (voters.isVoterId(data.voterId)) {
      return errorResponse(
        Errors.DUPLICATE_VOTER,
        `The voter id for ${voterKey.toString()} is already part of the set of voters ${voters.toString()}.`,
      );
    }
    const leader = this.quorum.leaderStateOrThrow();
    // The new voter counts toward the high watermark from the append on: one still catching up
    // would stall every commit, this one included, until it reaches the log end.
    if (!leader.isObserverCaughtUp(voterKey, nowMs, this.identity.config.fetchTimeoutMs)) {
      return errorResponse(
        Errors.REQUEST_TIMED_OUT,
        `Aborted add voter operation for ${voterKey.toString()} since it is lagging behind`,
      );
    }
    const newVoters = voters.addVoter({
      voterKey,
      listeners: endpointsOf(endpoints),
      supportedKRaftVersion: ADDED_VOTER_KRAFT_VERSIONS,
    });
    invariant(newVoters !== undefined, () => `voter ${data.voterId} was not a voter, yet cannot be added`);
    // AddRaftVoter v1 may ask for the answer at the append rather than at the commit.
    const answerOnAppend = request.apiVersion >= 1 && !data.ackWhenCommitted;
    return this.startChange(
      { kind: 'add', request },
      newVoters,
      { timeoutMs: data.timeoutMs, answerOnAppend },
      nowMs,
    );
  }

  private removeVoter(
    request: RaftRequestOf<typeof RaftApiKey.REMOVE_RAFT_VOTER>,
    nowMs: number,
  ): RemoveRaftVoterResponseData | undefined {
    const { data } = request;
    const invalid = this.validateAddOrRemove(data, 'Remove');
    if (invalid !== undefined) return invalid;
    const changes = this.changes;
    if (changes === undefined) return this.refuseVoterChange('removing');
    const refusal = this.refuseWhileChanging(changes, nowMs, 'remove');
    if (refusal !== undefined) return errorResponse(Errors.REQUEST_TIMED_OUT, refusal);
    const voters = changes.controlRecords.lastVoterSet();
    const voterKey = ReplicaKey.of(data.voterId, data.voterDirectoryId);
    const newVoters = voters.removeVoter(voterKey);
    if (newVoters === undefined) {
      return errorResponse(
        Errors.VOTER_NOT_FOUND,
        `Cannot remove voter ${voterKey.toString()} since it is not one of the voters ${voters.toString()}`,
      );
    }
    // A set without voters elects nobody and commits nothing: the quorum would be gone for good.
    if (newVoters.size() === 0) {
      return errorResponse(
        Errors.INVALID_REQUEST,
        `Cannot remove voter ${voterKey.toString()} since it is the only voter`,
      );
    }
    const timeoutMs = this.identity.config.requestTimeoutMs;
    return this.startChange(
      { kind: 'remove', request },
      newVoters,
      { timeoutMs, answerOnAppend: false },
      nowMs,
    );
  }

  private updateVoter(
    request: RaftRequestOf<typeof RaftApiKey.UPDATE_RAFT_VOTER>,
    nowMs: number,
  ): UpdateRaftVoterResponseData | undefined {
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
    const changes = this.changes;
    // Kafka would probe the voter's new endpoint and record it in its in-memory voter set here;
    // static voters change nothing (ADR 0013).
    if (changes === undefined) return answer(Errors.UNSUPPORTED_VERSION);
    if (this.refuseWhileChanging(changes, nowMs, 'update') !== undefined)
      return answer(Errors.REQUEST_TIMED_OUT);
    const finalizedVersion = this.identity.kraftVersion;
    if (minSupportedVersion > finalizedVersion || maxSupportedVersion < finalizedVersion) {
      return answer(Errors.INVALID_REQUEST);
    }
    const voters = changes.controlRecords.lastVoterSet();
    const newVoters = voters.updateVoter({
      voterKey: ReplicaKey.of(data.voterId, data.voterDirectoryId),
      listeners: endpointsOf(normalisedEndpoints(data.listeners)),
      supportedKRaftVersion: { minVersion: minSupportedVersion, maxVersion: maxSupportedVersion },
    });
    if (newVoters === undefined) return answer(Errors.VOTER_NOT_FOUND);
    // The voter already reads as it asks: nothing to write.
    if (newVoters.equals(voters)) return answer(Errors.NONE);
    // Answered once appended, as Kafka's leader does: the follower sending it has one request in
    // flight to this leader, so an answer that waited for the commit, which needs that follower's
    // next fetch, would hold its fetches until the request timed out.
    const timeoutMs = this.identity.config.requestTimeoutMs;
    return this.startChange(
      { kind: 'update', request },
      newVoters,
      { timeoutMs, answerOnAppend: true },
      nowMs,
    );
  }

  // --- kraft.version 1: the change under way --------------------------------------------------

  /**
   * Why no new change may start now (each answered REQUEST_TIMED_OUT), in Kafka's order: one is
   * under way here, the leader has no high watermark yet (a previous leader's change may still be
   * uncommitted in its log), or the last VotersRecord is not committed yet.
   */
  private refuseWhileChanging(
    changes: VoterChangeDependencies,
    nowMs: number,
    operation: 'add' | 'remove' | 'update',
  ): string | undefined {
    const pending = this.pending;
    if (pending !== undefined) this.advance(pending, nowMs);
    if (this.pending !== undefined) {
      return `Request timed out waiting for leader to handle previous voter change request before this ${operation}`;
    }
    const highWatermark = this.quorum.leaderStateOrThrow().highWatermark();
    if (highWatermark === undefined) {
      return 'Request timed out waiting for leader to establish HWM and fence previous voter changes';
    }
    changes.controlRecords.updateState();
    if (changes.controlRecords.hasUncommittedVoterChange(highWatermark)) {
      const offset = changes.controlRecords.lastVoterSetOffset();
      return `Request timed out waiting for voters to commit the latest voter change at ${offset} with HWM ${highWatermark}`;
    }
    return undefined;
  }

  /** Takes the change on as the pending one and tries its append now; the answer if it is done. */
  private startChange(
    change: VoterChangeRequest,
    newVoters: VoterSet,
    options: { readonly timeoutMs: number; readonly answerOnAppend: boolean },
    nowMs: number,
  ): undefined {
    const changes = this.changes;
    invariant(changes !== undefined, () => 'a voter change started at kraft.version 0');
    const pending: PendingVoterChange = {
      change,
      leader: this.quorum.leaderStateOrThrow(),
      newVoters,
      deadlineMs: nowMs + Math.max(0, options.timeoutMs),
      answerOnAppend: options.answerOnAppend,
      votersOffset: undefined,
    };
    this.pending = pending;
    changes.voterSetChanges.appendWaitingRecords(nowMs);
    this.advance(pending, nowMs);
    return undefined;
  }

  /** One step of the pending change: see `poll`. */
  private advance(pending: PendingVoterChange, nowMs: number): void {
    const changes = this.changes;
    invariant(changes !== undefined, () => 'a voter change is pending at kraft.version 0');
    if (!this.quorum.isLeader() || this.quorum.leaderStateOrThrow() !== pending.leader) {
      this.finish(
        pending,
        Errors.NOT_LEADER_OR_FOLLOWER,
        'The leader of the voter change lost its leadership',
      );
      return;
    }
    if (pending.votersOffset === undefined) {
      const result = changes.voterSetChanges.appendVotersRecord(pending.newVoters, nowMs);
      if (result.kind === 'appended') {
        pending.votersOffset = result.offset;
      } else {
        // Only a prepared append not yet scheduled can hold the record back here: the other
        // refusals were checked when the change was taken on, and nothing else changes voters.
        invariant(
          result.reason === 'pending-appends',
          () => `the pending voter change was refused at append: ${result.reason}`,
        );
        changes.voterSetChanges.appendWaitingRecords(nowMs);
      }
    }
    const votersOffset = pending.votersOffset;
    const highWatermark = pending.leader.highWatermark();
    if (
      votersOffset !== undefined &&
      (pending.answerOnAppend || (highWatermark !== undefined && highWatermark > votersOffset))
    ) {
      this.finish(pending, Errors.NONE, null);
    } else if (nowMs >= pending.deadlineMs) {
      this.finish(
        pending,
        Errors.REQUEST_TIMED_OUT,
        'Request timed out waiting for the voter change to commit',
      );
    }
  }

  /** Answers the pending change's request and clears it. */
  private finish(pending: PendingVoterChange, error: ApiError, errorMessage: string | null): void {
    this.pending = undefined;
    const { change } = pending;
    this.identity.logger.info(
      { kind: change.kind, epoch: pending.leader.epoch, offset: pending.votersOffset, errorCode: error.code },
      'voter change answered',
    );
    // Two cases with one body: the outbox types each response by its request's API key.
    switch (change.kind) {
      case 'add':
        this.outbox.sendResponse(change.request, { throttleTimeMs: 0, errorCode: error.code, errorMessage });
        return;
      case 'remove':
        this.outbox.sendResponse(change.request, { throttleTimeMs: 0, errorCode: error.code, errorMessage });
        return;
      case 'update':
        this.outbox.sendResponse(
          change.request,
          this.updateVoterResponse(error, change.request.listenerName ?? this.identity.listenerName),
        );
        return;
    }
  }

  /**
   * KIP-853: a leader that removed itself keeps leading until the removal commits (the remaining
   * voters commit it), then resigns so that they elect a leader among themselves. Checked against
   * the latest set and its offset, so it also covers a removal whose request timed out.
   */
  private maybeResignRemovedLeader(nowMs: number): void {
    const changes = this.changes;
    if (changes === undefined || !this.quorum.isLeader()) return;
    const leader = this.quorum.leaderStateOrThrow();
    const highWatermark = leader.highWatermark();
    const votersOffset = changes.controlRecords.lastVoterSetOffset();
    if (highWatermark === undefined || votersOffset === undefined || highWatermark <= votersOffset) return;
    if (changes.controlRecords.lastVoterSet().isVoter(leader.localKey)) return;
    this.identity.logger.info(
      { epoch: leader.epoch, offset: votersOffset, highWatermark },
      'resigning: the committed voter set no longer holds this leader',
    );
    changes.resignLeadership(nowMs);
  }

  /** Whether a listener of the request is this node's default (controller) listener. */
  private includesDefaultListener(listeners: readonly { readonly name: string }[]): boolean {
    return includesListener(
      listeners.map((listener) => listener.name),
      this.identity.listenerName,
    );
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

  /** What Kafka's AddVoterHandler / RemoveVoterHandler answer at kraft.version 0, where voters are static. */
  private refuseVoterChange(change: 'adding' | 'removing'): AddRaftVoterResponseData {
    if (!this.leaderKnowsItsHighWatermark()) {
      return errorResponse(
        Errors.REQUEST_TIMED_OUT,
        'Request timed out waiting for leader to establish HWM and fence previous voter changes',
      );
    }
    return errorResponse(
      Errors.UNSUPPORTED_VERSION,
      `Cluster doesn't support ${change} voter because the kraft.version feature is 0`,
    );
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

/** A request's listeners with Kafka's normalised listener names (AddRaftVoter and UpdateRaftVoter alike). */
function normalisedEndpoints(
  listeners: readonly { readonly name: string; readonly host: string; readonly port: number }[],
): { name: string; host: string; port: number }[] {
  return listeners.map((listener) => ({
    name: normalisedListenerName(listener.name),
    host: listener.host,
    port: listener.port,
  }));
}

function endpointsOf(endpoints: readonly { name: string; host: string; port: number }[]): Endpoints {
  return Endpoints.fromEntries(endpoints.map(({ name, host, port }) => [name, { host, port }] as const));
}

/** A voter key must name a voter id and a directory id (Kafka: `directoryId().isPresent()`). */
function isValidVoterKey(voterId: number, voterDirectoryId: Uuid): boolean {
  return voterId >= 0 && !voterDirectoryId.equals(Uuid.ZERO);
}
