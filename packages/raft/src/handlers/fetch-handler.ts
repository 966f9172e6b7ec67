import { Errors, type FetchResponseData } from '@kraft/protocol';
import { recordsToBuffer } from '@kraft/records';
import type { LeaderWritePath } from '../client/leader-write-path.js';
import type { RaftIdentity } from '../client/raft-identity.js';
import type { RaftLogView } from '../client/raft-log-views.js';
import type { RequestValidator } from '../client/request-validator.js';
import { Endpoints } from '../endpoints.js';
import type { QuorumState } from '../quorum-state.js';
import type { MessageSink } from '../raft-outbox.js';
import { ReplicaKey } from '../replica-key.js';
import type { RaftApiKey } from '../rpc/raft-api-key.js';
import {
  buildFetchResponse,
  type FetchPartitionResult,
  METADATA_PARTITION_INDEX,
  singlePartition,
} from '../rpc/raft-messages.js';
import type { RaftRequestOf } from '../rpc/typed-messages.js';

export interface ParkedFetch {
  readonly request: RaftRequestOf<typeof RaftApiKey.FETCH>;
  readonly replicaKey: ReplicaKey | undefined;
  readonly fetchOffset: number;
  readonly lastFetchedEpoch: number;
  readonly maxBytes: number;
  readonly epoch: number;
  readonly deadlineMs: number;
}

/** A fetch the leader holds, with the empty answer it gets if its wait runs out (built only then). */
interface WaitingFetch extends ParkedFetch {
  readonly emptyResult: FetchPartitionResult;
}

/** Long-polling fetches the leader holds at once; beyond this a fetch is answered at once. */
export const MAX_PARKED_FETCHES = 1024;

/** Shared, never written: the records of a fetch at the log end. */
const EMPTY_RECORDS = Buffer.alloc(0);

/**
 * The leader's side of Fetch: validates the request, answers from the log (snapshot id,
 * divergence, or records), and parks long-polling fetches until new data, a new high watermark,
 * their deadline, or the end of leadership answers them.
 */
export class FetchHandler {
  private parkedFetches: WaitingFetch[] = [];

  constructor(
    private readonly identity: RaftIdentity,
    private readonly quorum: QuorumState,
    private readonly log: RaftLogView,
    private readonly validator: RequestValidator,
    private readonly outbox: MessageSink,
    private readonly leaderWritePath: LeaderWritePath,
  ) {}

  private fetchErrorResponse(
    apiVersion: number,
    errorCode: number,
    partitionErrorCode?: number,
  ): FetchResponseData {
    if (partitionErrorCode === undefined) {
      return buildFetchResponse({
        topic: this.identity.topic,
        apiVersion,
        errorCode,
        leaderEndpoints: Endpoints.EMPTY,
        listenerName: this.identity.listenerName,
      });
    }
    return buildFetchResponse({
      topic: this.identity.topic,
      apiVersion,
      errorCode: Errors.NONE.code,
      partition: {
        errorCode: partitionErrorCode,
        highWatermark: this.quorum.highWatermark(),
        logStartOffset: this.log.startOffset(),
        leader: this.quorum.leaderAndEpoch(),
        records: null,
      },
      leaderEndpoints: this.quorum.state().leaderEndpoints(),
      listenerName: this.identity.listenerName,
    });
  }

  handleFetchRequest(request: RaftRequestOf<typeof RaftApiKey.FETCH>, nowMs: number): void {
    const { data } = request;
    if (!this.validator.hasValidClusterId(data.clusterId)) {
      this.outbox.sendResponse(
        request,
        this.fetchErrorResponse(request.apiVersion, Errors.INCONSISTENT_CLUSTER_ID.code),
      );
      return;
    }
    const topic = data.topics[0];
    const partition = singlePartition(data.topics);
    const topicMatches =
      request.apiVersion >= 13
        ? topic?.topicId.equals(this.identity.topic.topicId) === true
        : topic?.topic === this.identity.topic.name;
    if (partition === undefined || !topicMatches || partition.partition !== METADATA_PARTITION_INDEX) {
      this.outbox.sendResponse(
        request,
        this.fetchErrorResponse(request.apiVersion, Errors.INVALID_REQUEST.code),
      );
      return;
    }
    const fetchOffset = Number(partition.fetchOffset);
    const replicaId = request.apiVersion >= 15 ? data.replicaState.replicaId : data.replicaId;
    const invalid =
      data.maxWaitMs < 0 ||
      fetchOffset < 0 ||
      !Number.isSafeInteger(fetchOffset) ||
      partition.lastFetchedEpoch < 0 ||
      partition.lastFetchedEpoch > partition.currentLeaderEpoch ||
      (replicaId === this.identity.nodeId && replicaId !== undefined);
    if (invalid) {
      this.outbox.sendResponse(
        request,
        this.fetchErrorResponse(request.apiVersion, Errors.NONE.code, Errors.INVALID_REQUEST.code),
      );
      return;
    }
    const errorCode = this.validator.validateLeaderOnlyRequest(partition.currentLeaderEpoch);
    if (errorCode !== Errors.NONE.code) {
      this.outbox.sendResponse(
        request,
        this.fetchErrorResponse(request.apiVersion, Errors.NONE.code, errorCode),
      );
      return;
    }
    const replicaKey = replicaId >= 0 ? ReplicaKey.of(replicaId, partition.replicaDirectoryId) : undefined;
    const leader = this.quorum.leaderStateOrThrow();
    // Before this fetch is answered (answerFetch): a read barrier counts the fetch as proof only
    // against the answer it followed, never against its own (PendingReads, ADR 0024).
    if (replicaKey !== undefined) leader.updateCheckQuorumForFollowingVoter(replicaKey, nowMs);
    const parked: ParkedFetch = {
      request,
      replicaKey,
      fetchOffset,
      lastFetchedEpoch: partition.lastFetchedEpoch,
      maxBytes: Math.max(1, Math.min(data.maxBytes, this.identity.config.fetchMaxBytes)),
      epoch: leader.epoch,
      deadlineMs: nowMs + Math.max(0, data.maxWaitMs),
    };
    const result = this.fetchResult(parked, nowMs);
    const followerHighWatermark = partition.highWatermark;
    const followerBehind =
      result.highWatermark !== undefined && followerHighWatermark < BigInt(result.highWatermark);
    const respondNow =
      data.maxWaitMs === 0 ||
      result.errorCode !== Errors.NONE.code ||
      (result.records !== null && result.records.length > 0) ||
      result.divergingEpoch !== undefined ||
      result.snapshotId !== undefined ||
      (request.apiVersion >= 18 && followerBehind);
    if (respondNow || this.parkedFetches.length >= MAX_PARKED_FETCHES) {
      this.answerFetch(parked, result);
    } else {
      // The empty answer is built only if the wait runs out: new data or a new HWM answers it anew.
      this.parkedFetches.push({ ...parked, emptyResult: result });
    }
  }

  /**
   * Sends `result` as the answer to `fetch` and records the answer for the read barriers: the
   * voter's next fetch proves the epoch up to it. Every leader answer to a fetch goes through here.
   */
  private answerFetch(fetch: ParkedFetch, result: FetchPartitionResult): void {
    if (fetch.replicaKey !== undefined) this.quorum.leaderStateOrThrow().onFetchAnswered(fetch.replicaKey);
    this.outbox.sendResponse(
      fetch.request,
      buildFetchResponse({
        topic: this.identity.topic,
        apiVersion: fetch.request.apiVersion,
        errorCode: Errors.NONE.code,
        partition: result,
        leaderEndpoints: this.identity.localEndpoints,
        listenerName: this.identity.listenerName,
      }),
    );
  }

  /** The partition answer to a fetch; records the follower's progress (which may move the HWM). */
  private fetchResult(fetch: ParkedFetch, nowMs: number): FetchPartitionResult {
    const leader = this.quorum.leaderStateOrThrow();
    const base = {
      errorCode: Errors.NONE.code,
      logStartOffset: this.log.startOffset(),
      leader: leader.leaderAndEpoch(),
      records: null,
    };
    let result: FetchPartitionResult;
    const latestSnapshot = this.log.latestSnapshotId();
    if (
      fetch.fetchOffset === 0 &&
      latestSnapshot !== undefined &&
      !(latestSnapshot.offset === 0 && latestSnapshot.epoch === 0)
    ) {
      result = { ...base, highWatermark: leader.highWatermark(), snapshotId: latestSnapshot };
    } else {
      const validation = this.log.validateOffsetAndEpoch(fetch.fetchOffset, fetch.lastFetchedEpoch);
      if (validation.kind === 'diverging') {
        result = {
          ...base,
          highWatermark: leader.highWatermark(),
          divergingEpoch: validation.offsetAndEpoch,
        };
      } else if (validation.kind === 'snapshot') {
        result = { ...base, highWatermark: leader.highWatermark(), snapshotId: validation.offsetAndEpoch };
      } else {
        // A caught-up follower (the usual long poll) would read nothing: skip the log read.
        const records =
          fetch.fetchOffset >= this.log.endOffset()
            ? EMPTY_RECORDS
            : recordsToBuffer(this.log.read(fetch.fetchOffset, 'uncommitted', fetch.maxBytes).records);
        if (
          fetch.replicaKey !== undefined &&
          leader.updateReplicaState(fetch.replicaKey, nowMs, fetch.fetchOffset, this.log.endOffset())
        ) {
          this.leaderWritePath.onLeaderHighWatermarkChanged(leader, nowMs);
          this.completeParkedFetches(nowMs);
        }
        result = { ...base, highWatermark: leader.highWatermark(), records };
      }
    }
    return result;
  }

  /** Long-polling fetches whose wait ran out get the empty answer computed when they were parked. */
  expireParkedFetches(nowMs: number): number {
    let nextDeadlineMs = Number.POSITIVE_INFINITY;
    const waiting: WaitingFetch[] = [];
    for (const fetch of this.parkedFetches) {
      if (nowMs >= fetch.deadlineMs) {
        this.answerFetch(fetch, fetch.emptyResult);
      } else {
        waiting.push(fetch);
        nextDeadlineMs = Math.min(nextDeadlineMs, fetch.deadlineMs - nowMs);
      }
    }
    this.parkedFetches = waiting;
    return nextDeadlineMs;
  }

  /** New data or a new high watermark: parked fetches are answered now. */
  completeParkedFetches(nowMs: number): void {
    if (this.parkedFetches.length === 0 || !this.quorum.isLeader()) return;
    const parked = this.parkedFetches;
    this.parkedFetches = [];
    for (const fetch of parked) {
      // Answered from the leader's log now: snapshot id, divergence, or records from the offset.
      this.answerFetch(fetch, this.fetchResult(fetch, nowMs));
    }
  }

  completeParkedFetchesWithError(_nowMs: number): void {
    const parked = this.parkedFetches;
    this.parkedFetches = [];
    for (const fetch of parked) {
      this.outbox.sendResponse(
        fetch.request,
        this.fetchErrorResponse(
          fetch.request.apiVersion,
          Errors.NONE.code,
          Errors.NOT_LEADER_OR_FOLLOWER.code,
        ),
      );
    }
  }
}
