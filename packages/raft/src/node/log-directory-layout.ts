import { join } from 'node:path';
import type { LostFlushedDataPolicy } from '@kraft/log';

/** The quorum-state file's name, beside the partition's segments as Kafka lays them out. */
const QUORUM_STATE_FILE_NAME = 'quorum-state';

/**
 * Where a `FileQuorumStateStore` keeps its file: `<directory>/<topicPartition>/quorum-state`
 * (for example `<metadata.log.dir>/__cluster_metadata-0/quorum-state`).
 */
export function quorumStateStorePath(directory: string, topicPartition: string): string {
  return join(directory, topicPartition, QUORUM_STATE_FILE_NAME);
}

/**
 * What opening the log does when flushed data is gone (ADR 0010): with other voters to fetch from,
 * the log is cut and the node rejoins as an observer until it has the data back; a lone voter has
 * nowhere to fetch it from, so the open is refused unless the operator accepts the loss.
 */
export function lostFlushedDataPolicyFor(otherVoterCount: number, acceptLoss = false): LostFlushedDataPolicy {
  if (acceptLoss) return 'accept-loss';
  return otherVoterCount > 0 ? 'recover-from-quorum' : 'refuse';
}
