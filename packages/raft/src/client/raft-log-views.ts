import type { RaftLog } from '../ports/raft-log.js';

/** What the handlers read from the log: offsets, epochs, records and snapshots, never a write. */
export type RaftLogView = Pick<
  RaftLog,
  | 'startOffset'
  | 'endOffset'
  | 'lastFetchedEpoch'
  | 'lastFlushedOffset'
  | 'endOffsetForEpoch'
  | 'validateOffsetAndEpoch'
  | 'read'
  | 'readSnapshot'
  | 'latestSnapshotId'
>;

/** A follower's writes: fetched records, truncation on divergence, the leader's snapshot, its HWM. */
export type FollowerLog = RaftLogView &
  Pick<
    RaftLog,
    | 'appendAsFollower'
    | 'truncateTo'
    | 'truncateToLatestSnapshot'
    | 'createNewSnapshotUnchecked'
    | 'onSnapshotFrozen'
    | 'updateHighWatermark'
  >;

/** A new leader's writes: its epoch in the epoch cache and the epoch start batch. */
export type LeaderLog = RaftLogView & Pick<RaftLog, 'initializeLeaderEpoch' | 'appendAsLeader'>;

/** True when appended data is not yet durable: the driver must flush and call `onLogFlushed`. */
export function needsFlush(log: Pick<RaftLog, 'lastFlushedOffset' | 'endOffset'>): boolean {
  return log.lastFlushedOffset() < log.endOffset();
}
