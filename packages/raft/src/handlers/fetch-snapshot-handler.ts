import { Errors, type FetchSnapshotResponseData } from '@kraft/protocol';
import { recordsToBuffer } from '@kraft/records';
import type { RaftIdentity } from '../client/raft-identity.js';
import type { RaftLogView } from '../client/raft-log-views.js';
import type { RequestValidator } from '../client/request-validator.js';
import type { QuorumState } from '../quorum-state.js';
import { ReplicaKey } from '../replica-key.js';
import type { RaftApiKey } from '../rpc/raft-api-key.js';
import {
  buildFetchSnapshotResponse,
  METADATA_PARTITION_INDEX,
  singlePartition,
} from '../rpc/raft-messages.js';
import type { RaftRequestOf } from '../rpc/typed-messages.js';

/** The leader's side of FetchSnapshot: a chunk of a snapshot from a byte position. */
export class FetchSnapshotHandler {
  constructor(
    private readonly identity: RaftIdentity,
    private readonly quorum: QuorumState,
    private readonly log: Pick<RaftLogView, 'readSnapshot'>,
    private readonly validator: RequestValidator,
  ) {}

  handleFetchSnapshotRequest(
    request: RaftRequestOf<typeof RaftApiKey.FETCH_SNAPSHOT>,
    nowMs: number,
  ): FetchSnapshotResponseData {
    const { data } = request;
    const respond = (errorCode: number, partitionErrorCode?: number): FetchSnapshotResponseData =>
      buildFetchSnapshotResponse({
        topic: this.identity.topic,
        apiVersion: request.apiVersion,
        errorCode,
        ...(partitionErrorCode === undefined ? {} : { partitionErrorCode }),
        leader: this.quorum.leaderAndEpoch(),
        leaderEndpoints: this.quorum.state().leaderEndpoints(),
        listenerName: this.identity.listenerName,
      });
    if (!this.validator.hasValidClusterId(data.clusterId))
      return respond(Errors.INCONSISTENT_CLUSTER_ID.code);
    const partition = singlePartition(data.topics);
    if (partition === undefined) return respond(Errors.INVALID_REQUEST.code);
    if (
      data.topics[0]?.name !== this.identity.topic.name ||
      partition.partition !== METADATA_PARTITION_INDEX
    ) {
      return respond(Errors.NONE.code, Errors.UNKNOWN_TOPIC_OR_PARTITION.code);
    }
    const errorCode = this.validator.validateLeaderOnlyRequest(partition.currentLeaderEpoch);
    if (errorCode !== Errors.NONE.code) return respond(Errors.NONE.code, errorCode);
    const snapshotId = { offset: Number(partition.snapshotId.endOffset), epoch: partition.snapshotId.epoch };
    const snapshot = this.log.readSnapshot(snapshotId);
    if (snapshot === undefined) return respond(Errors.NONE.code, Errors.SNAPSHOT_NOT_FOUND.code);
    {
      const size = snapshot.sizeInBytes();
      const position = Number(partition.position);
      if (!Number.isSafeInteger(position) || position < 0 || position >= size) {
        return respond(Errors.NONE.code, Errors.POSITION_OUT_OF_RANGE.code);
      }
      if (data.replicaId >= 0) {
        this.quorum
          .leaderStateOrThrow()
          .updateCheckQuorumForFollowingVoter(
            ReplicaKey.of(data.replicaId, partition.replicaDirectoryId),
            nowMs,
          );
      }
      const maxBytes = Math.max(1, Math.min(data.maxBytes, this.identity.config.fetchSnapshotMaxBytes));
      const bytes = recordsToBuffer(snapshot.slice(position, maxBytes));
      return buildFetchSnapshotResponse({
        topic: this.identity.topic,
        apiVersion: request.apiVersion,
        errorCode: Errors.NONE.code,
        leader: this.quorum.leaderAndEpoch(),
        snapshotId,
        sizeInBytes: size,
        position,
        bytes,
        leaderEndpoints: this.identity.localEndpoints,
        listenerName: this.identity.listenerName,
      });
    }
  }
}
