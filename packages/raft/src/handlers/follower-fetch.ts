import { Errors } from '@kraft/protocol';
import { MemoryRecords } from '@kraft/records';
import type { RequestSender } from '../client/outbound-requests.js';
import type { RaftIdentity } from '../client/raft-identity.js';
import type { FollowerLog } from '../client/raft-log-views.js';
import type { RequestValidator } from '../client/request-validator.js';
import type { StateTransitions } from '../client/state-transitions.js';
import { RaftLogStateError } from '../errors/raft-log-state-error.js';
import type { ControlRecordsTracker } from '../internals/kraft-control-record-state-machine.js';
import type { RaftMetricsRecorder } from '../internals/raft-metrics-recorder.js';
import type { OffsetAndEpoch } from '../ports/raft-log.js';
import type { Random } from '../ports/random.js';
import type { QuorumState } from '../quorum-state.js';
import type { SnapshotInstallSink } from '../raft-outbox.js';
import { RaftApiKey } from '../rpc/raft-api-key.js';
import {
  buildFetchRequest,
  buildFetchSnapshotRequest,
  endpointsFromNodeEndpoints,
  singlePartition,
  topLevelErrorCode,
} from '../rpc/raft-messages.js';
import { isErrorFree, type RaftResponseOf } from '../rpc/typed-messages.js';
import { FollowerState, UNREACHABLE_LEADER_FETCHES_FOR_EARLY_ELECTION } from '../states/follower-state.js';

/**
 * The follower's (and observer's) side of Fetch and FetchSnapshot: sending them, appending what
 * comes back, truncating on divergence, and downloading and installing the leader's snapshot.
 */
export class FollowerFetch {
  constructor(
    private readonly identity: RaftIdentity,
    private readonly quorum: QuorumState,
    private readonly log: FollowerLog,
    private readonly validator: RequestValidator,
    private readonly sender: RequestSender,
    private readonly transitions: StateTransitions,
    private readonly random: Random,
    private readonly snapshotInstalls: SnapshotInstallSink,
    private readonly metrics: Pick<RaftMetricsRecorder, 'onAppendedAsFollower' | 'onSnapshotFetched'>,
    /** kraft.version 1 only: told of every change to the log, so the voter set follows it. */
    private readonly controlRecords: ControlRecordsTracker | undefined,
  ) {}

  sendFetchOrFetchSnapshot(follower: FollowerState, destinationId: number, nowMs: number): void {
    const snapshot = follower.snapshotDownload();
    if (snapshot === undefined || destinationId !== follower.leaderId) {
      this.sendFetch(destinationId, follower.epoch, nowMs);
      return;
    }
    const data = buildFetchSnapshotRequest({
      topic: this.identity.topic,
      clusterId: this.identity.clusterId,
      replicaKey: this.quorum.localReplicaKey(),
      epoch: follower.epoch,
      snapshotId: snapshot.snapshotId,
      position: snapshot.sizeInBytes(),
      maxBytes: this.identity.config.fetchSnapshotMaxBytes,
    });
    this.sender.sendRequest(
      destinationId,
      RaftApiKey.FETCH_SNAPSHOT,
      this.identity.rpcVersions.fetchSnapshot,
      data,
      follower.epoch,
      false,
      nowMs,
    );
  }

  sendFetch(destinationId: number, epoch: number, nowMs: number): void {
    const data = buildFetchRequest({
      topic: this.identity.topic,
      clusterId: this.identity.clusterId,
      replicaKey: this.quorum.localReplicaKey(),
      epoch,
      fetchOffset: this.log.endOffset(),
      lastFetchedEpoch: this.log.lastFetchedEpoch(),
      maxWaitMs: this.identity.config.fetchMaxWaitMs,
      maxBytes: this.identity.config.fetchMaxBytes,
      highWatermark: this.quorum.highWatermark(),
      apiVersion: this.identity.rpcVersions.fetch,
    });
    this.sender.sendRequest(
      destinationId,
      RaftApiKey.FETCH,
      this.identity.rpcVersions.fetch,
      data,
      epoch,
      false,
      nowMs,
    );
  }

  /**
   * A fetch to our leader was refused as BROKER_NOT_AVAILABLE (connection refused or reset: its
   * process is gone). After a few in a row, a voter brings its election forward to a random delay
   * in [0, election timeout) instead of waiting out the whole fetch timeout (a deliberate
   * difference from Kafka, README). Safe: it only starts a pre-vote, which a follower still
   * fetching from a live leader rejects; the random delay keeps followers from splitting the vote.
   */
  private onLeaderUnreachable(sourceId: number, nowMs: number): void {
    const state = this.quorum.state();
    if (!(state instanceof FollowerState) || state.leaderId !== sourceId || !this.quorum.isVoter()) return;
    if (state.recordUnreachableLeaderFetch() !== UNREACHABLE_LEADER_FETCHES_FOR_EARLY_ELECTION) return;
    const delayMs = this.random.nextInt(this.identity.config.electionTimeoutMs);
    this.identity.logger.info(
      { epoch: state.epoch, leaderId: state.leaderId, delayMs },
      'leader unreachable: bringing the election forward',
    );
    state.shortenFetchTimeout(nowMs, delayMs);
  }

  handleFetchResponse(response: RaftResponseOf<typeof RaftApiKey.FETCH>, nowMs: number): boolean {
    const { data } = response;
    const topLevelError = topLevelErrorCode(data);
    if (!isErrorFree(data)) {
      if (topLevelError === Errors.BROKER_NOT_AVAILABLE.code)
        this.onLeaderUnreachable(response.sourceId, nowMs);
      return false;
    }
    const partition = singlePartition(data.responses);
    if (partition === undefined || !this.validator.isReplicatedTopic(data.responses)) return false;
    const leaderId = partition.currentLeader.leaderId >= 0 ? partition.currentLeader.leaderId : undefined;
    const epoch = partition.currentLeader.leaderEpoch;
    const endpoints = endpointsFromNodeEndpoints(data.nodeEndpoints, leaderId, this.identity.listenerName);
    const handled = this.transitions.maybeHandleCommonResponse(
      partition.errorCode,
      leaderId,
      epoch,
      endpoints,
      nowMs,
    );
    if (handled !== undefined) return handled;
    const state = this.quorum.state();
    if (!(state instanceof FollowerState) || state.leaderId !== response.sourceId) {
      // An answer from a voter we asked to discover the leader, naming nobody new.
      return partition.errorCode === Errors.NONE.code;
    }
    if (partition.errorCode !== Errors.NONE.code) return false;
    if (partition.divergingEpoch.epoch >= 0 && partition.divergingEpoch.endOffset >= 0n) {
      this.truncateOnDivergence(state, {
        offset: Number(partition.divergingEpoch.endOffset),
        epoch: partition.divergingEpoch.epoch,
      });
    } else if (partition.snapshotId.epoch >= 0 && partition.snapshotId.endOffset >= 0n) {
      this.startSnapshotFetch(state, {
        offset: Number(partition.snapshotId.endOffset),
        epoch: partition.snapshotId.epoch,
      });
    } else {
      if (!this.appendAsFollower(state, partition.records)) return false;
      this.updateFollowerHighWatermark(state, Number(partition.highWatermark));
    }
    state.resetFetchTimeoutForSuccessfulFetch(nowMs);
    return true;
  }

  /** Kafka's `truncateToEndOffset`: to the leader's end of the diverging epoch, or our end for the largest epoch below it. */
  private truncateOnDivergence(state: FollowerState, diverging: OffsetAndEpoch): void {
    let truncationOffset: number;
    if (diverging.epoch === 0) {
      truncationOffset = Math.min(diverging.offset, this.log.endOffset());
    } else {
      const local = this.log.endOffsetForEpoch(diverging.epoch);
      truncationOffset =
        local.epoch === diverging.epoch ? Math.min(local.offset, diverging.offset) : local.offset;
    }
    const highWatermark = state.highWatermark();
    if (highWatermark !== undefined && truncationOffset < highWatermark) {
      throw new RaftLogStateError(
        `leader asked to truncate to ${truncationOffset}, below the high watermark ${highWatermark}: committed data would be lost`,
      );
    }
    this.identity.logger.info(
      { offset: truncationOffset, epoch: diverging.epoch },
      'truncating diverging log',
    );
    this.log.truncateTo(truncationOffset);
    // The voter set in force goes back with the log (KIP-853: a VotersRecord counts once appended).
    this.controlRecords?.truncateNewEntries(truncationOffset);
  }

  private startSnapshotFetch(state: FollowerState, snapshotId: OffsetAndEpoch): void {
    state.abandonSnapshotDownload();
    const writer = this.log.createNewSnapshotUnchecked(snapshotId);
    if (writer !== undefined) {
      this.identity.logger.info(
        { offset: snapshotId.offset, epoch: snapshotId.epoch },
        'fetching snapshot from the leader',
      );
      state.startSnapshotDownload(writer);
      return;
    }
    if (this.log.readSnapshot(snapshotId) !== undefined) {
      this.installFetchedSnapshot(state, snapshotId);
    } else {
      this.identity.logger.warn(
        { offset: snapshotId.offset, epoch: snapshotId.epoch },
        'cannot create the snapshot the leader named',
      );
    }
  }

  /**
   * Appends fetched records. Records the log rejects (bad CRC, offsets that do not follow the
   * log end) came from the network, not from us: like Kafka, log them and fetch again after the
   * backoff instead of stopping the node. Returns false when nothing could be appended.
   */
  private appendAsFollower(state: FollowerState, bytes: Buffer | null): boolean {
    if (bytes === null || bytes.length === 0) return true;
    const records = MemoryRecords.readableRecords(bytes);
    if (records.validBytes() === 0) return true;
    const result = this.log.appendAsFollower(records, state.epoch);
    if (result.kind === 'rejected') {
      this.identity.logger.warn(
        {
          err: result.error,
          reason: result.reason,
          offset: this.log.endOffset(),
          leaderId: state.leaderId,
        },
        'fetched records rejected',
      );
      return false;
    }
    this.metrics.onAppendedAsFollower(result.info.firstOffset, result.info.lastOffset);
    this.controlRecords?.updateState();
    if (this.identity.logger.isLevelEnabled('trace')) {
      this.identity.logger.trace(
        { offset: result.info.firstOffset, lastOffset: result.info.lastOffset },
        'appended as follower',
      );
    }
    return true;
  }

  private updateFollowerHighWatermark(state: FollowerState, leaderHighWatermark: number): void {
    if (leaderHighWatermark < 0) return;
    const highWatermark = Math.min(leaderHighWatermark, this.log.endOffset());
    if (state.updateHighWatermark(highWatermark)) this.log.updateHighWatermark(highWatermark);
  }

  handleFetchSnapshotResponse(
    response: RaftResponseOf<typeof RaftApiKey.FETCH_SNAPSHOT>,
    nowMs: number,
  ): boolean {
    const { data } = response;
    if (!isErrorFree(data)) return false;
    const partition = singlePartition(data.topics);
    if (partition === undefined || !this.validator.isReplicatedTopic(data.topics)) return false;
    const leaderId = partition.currentLeader.leaderId >= 0 ? partition.currentLeader.leaderId : undefined;
    const endpoints = endpointsFromNodeEndpoints(data.nodeEndpoints, leaderId, this.identity.listenerName);
    const handled = this.transitions.maybeHandleCommonResponse(
      partition.errorCode,
      leaderId,
      partition.currentLeader.leaderEpoch,
      endpoints,
      nowMs,
    );
    if (handled !== undefined) return handled;
    const state = this.quorum.state();
    if (!(state instanceof FollowerState)) return true;
    const writer = state.snapshotDownload();
    if (writer === undefined) return true;
    if (
      partition.errorCode === Errors.SNAPSHOT_NOT_FOUND.code ||
      partition.errorCode === Errors.POSITION_OUT_OF_RANGE.code
    ) {
      // The leader no longer has it (or we asked for a bad position): start over with a Fetch.
      state.abandonSnapshotDownload();
      return true;
    }
    if (partition.errorCode !== Errors.NONE.code) return false;
    const snapshotId = { offset: Number(partition.snapshotId.endOffset), epoch: partition.snapshotId.epoch };
    if (snapshotId.offset !== writer.snapshotId.offset || snapshotId.epoch !== writer.snapshotId.epoch)
      return true;
    if (Number(partition.position) !== writer.sizeInBytes()) return true;
    const size = Number(partition.size);
    if (writer.sizeInBytes() + partition.unalignedRecords.length > size) {
      // The leader's chunk overruns the size it announced: start the download over.
      this.identity.logger.warn(
        { offset: snapshotId.offset, epoch: snapshotId.epoch, size },
        'snapshot chunk overruns its size',
      );
      state.abandonSnapshotDownload();
      return false;
    }
    writer.appendUnaligned(partition.unalignedRecords);
    if (writer.sizeInBytes() === size) {
      // The driver freezes it and makes its log start durable off the event loop; nothing acts on
      // it (no Fetch leaves, the log does not show it) until it reports (ADR 0039).
      state.finishSnapshotDownload();
      this.metrics.onSnapshotFetched(size);
      this.snapshotInstalls.installSnapshot(writer);
    }
    state.resetFetchTimeoutForSuccessfulFetch(nowMs);
    return true;
  }

  /**
   * The downloaded snapshot is durable under its final name, with the log start it sets: announce
   * it and install it. Whatever the state has become since: the snapshot holds committed records
   * only, and `RaftLog.open` would install it the same way after a restart. Meanwhile the node
   * fetched nothing and campaigned on its old log, which lacks those committed records (it ends
   * below the snapshot or diverges from it): such a log wins no election (leader completeness),
   * so this is never a leader's log. A follower, of any epoch, also takes the snapshot's end as
   * its high watermark.
   */
  completeSnapshotInstall(snapshotId: OffsetAndEpoch): void {
    this.log.onSnapshotFrozen(snapshotId);
    const state = this.quorum.state();
    this.installFetchedSnapshot(state instanceof FollowerState ? state : undefined, snapshotId);
  }

  private installFetchedSnapshot(state: FollowerState | undefined, snapshotId: OffsetAndEpoch): void {
    // The log replaces itself with a snapshot past its end even under an uncommitted tail from a
    // newer epoch (sim seed 705): see RaftLog.truncateToLatestSnapshot.
    const replaced = this.log.truncateToLatestSnapshot();
    // A log that starts at the snapshot now takes its voter set from the snapshot.
    this.controlRecords?.updateState();
    // Not replaced, yet consistent: installed before (a retry), or the log already ends exactly
    // at the snapshot in its epoch.
    const alreadyCovered =
      this.log.startOffset() === snapshotId.offset ||
      (this.log.endOffset() === snapshotId.offset && this.log.lastFetchedEpoch() === snapshotId.epoch);
    if (!replaced && !alreadyCovered) {
      throw new RaftLogStateError(
        `fetched snapshot ${snapshotId.offset}-${snapshotId.epoch} did not replace the log ending at ${this.log.endOffset()}`,
      );
    }
    this.identity.logger.info(
      { offset: snapshotId.offset, epoch: snapshotId.epoch },
      'installed snapshot from the leader',
    );
    if (state !== undefined) this.updateFollowerHighWatermark(state, snapshotId.offset);
  }
}
