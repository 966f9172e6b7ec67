/**
 * The RaftLog port over `@kraft/log`. The log's class satisfies the port structurally, so the
 * adapter is only this typed entry point: the raft core never imports `@kraft/log`, and a
 * mismatch between the two shapes fails to compile here rather than at runtime.
 */
import { type RaftLogOpenOptions, RaftLog as SegmentedRaftLog } from '@kraft/log';
import type { RaftLog } from '../ports/raft-log.js';

/** Options for opening the segmented metadata log; the same as `@kraft/log`'s `RaftLogOpenOptions`. */
export type KafkaRaftLogOptions = RaftLogOpenOptions;

/** Opens (recovering if needed) `<dir>/__cluster_metadata-0` as the core's RaftLog. */
export function openKafkaRaftLog(options: KafkaRaftLogOptions): RaftLog {
  const log: RaftLog = SegmentedRaftLog.open(options);
  return log;
}
