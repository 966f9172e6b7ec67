import { Errors, type FetchSnapshotResponseData } from '@kraft/protocol';
import { recordsToBuffer } from '@kraft/records';
import type { RaftClientContext } from '../client/raft-client-context.js';
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
  constructor(private readonly context: RaftClientContext) {}

  handleFetchSnapshotRequest(
    request: RaftRequestOf<typeof RaftApiKey.FETCH_SNAPSHOT>,
    nowMs: number,
  ): FetchSnapshotResponseData {
    const { data } = request;
    const respond = (errorCode: number, partitionErrorCode?: number): FetchSnapshotResponseData =>
      buildFetchSnapshotResponse({
        topic: this.context.topic,
        apiVersion: request.apiVersion,
        errorCode,
        ...(partitionErrorCode === undefined ? {} : { partitionErrorCode }),
        leader: this.context.quorum.leaderAndEpoch(),
        leaderEndpoints: this.context.quorum.state().leaderEndpoints(),
        listenerName: this.context.listenerName,
      });
    if (!this.context.hasValidClusterId(data.clusterId)) return respond(Errors.INCONSISTENT_CLUSTER_ID.code);
    const partition = singlePartition(data.topics);
    if (partition === undefined) return respond(Errors.INVALID_REQUEST.code);
    if (
      data.topics[0]?.name !== this.context.topic.name ||
      partition.partition !== METADATA_PARTITION_INDEX
    ) {
      return respond(Errors.NONE.code, Errors.UNKNOWN_TOPIC_OR_PARTITION.code);
    }
    const errorCode = this.context.validateLeaderOnlyRequest(partition.currentLeaderEpoch);
    if (errorCode !== Errors.NONE.code) return respond(Errors.NONE.code, errorCode);
    const snapshotId = { offset: Number(partition.snapshotId.endOffset), epoch: partition.snapshotId.epoch };
    const snapshot = this.context.log.readSnapshot(snapshotId);
    if (snapshot === undefined) return respond(Errors.NONE.code, Errors.SNAPSHOT_NOT_FOUND.code);
    {
      const size = snapshot.sizeInBytes();
      const position = Number(partition.position);
      if (!Number.isSafeInteger(position) || position < 0 || position >= size) {
        return respond(Errors.NONE.code, Errors.POSITION_OUT_OF_RANGE.code);
      }
      if (data.replicaId >= 0) {
        this.context.quorum
          .leaderStateOrThrow()
          .updateCheckQuorumForFollowingVoter(
            ReplicaKey.of(data.replicaId, partition.replicaDirectoryId),
            nowMs,
          );
      }
      const maxBytes = Math.max(1, Math.min(data.maxBytes, this.context.config.fetchSnapshotMaxBytes));
      const bytes = recordsToBuffer(snapshot.slice(position, maxBytes));
      return buildFetchSnapshotResponse({
        topic: this.context.topic,
        apiVersion: request.apiVersion,
        errorCode: Errors.NONE.code,
        leader: this.context.quorum.leaderAndEpoch(),
        snapshotId,
        sizeInBytes: size,
        position,
        bytes,
        leaderEndpoints: this.context.localEndpoints,
        listenerName: this.context.listenerName,
      });
    }
  }
}
