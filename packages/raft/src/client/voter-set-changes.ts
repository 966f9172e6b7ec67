import { ControlRecordType } from '@kraft/records';
import type { KRaftControlRecordStateMachine } from '../internals/kraft-control-record-state-machine.js';
import type { QuorumState } from '../quorum-state.js';
import type { VoterSet } from '../voter-set.js';
import type { LeaderWritePath } from './leader-write-path.js';
import type { RaftIdentity } from './raft-identity.js';

/**
 * Why the leader did not append a VotersRecord. Kafka's voter change handlers answer the first
 * three with REQUEST_TIMED_OUT or UNSUPPORTED_VERSION (KIP-853); the rest are this core's own:
 * - `not-leader`: this node does not lead;
 * - `no-high-watermark`: the leader has not committed in its epoch yet, so it may not know the
 *   latest voter set (a previous leader's change may be uncommitted in its log);
 * - `kraft-version-0`: the voters are static;
 * - `uncommitted-voter-change`: the last voter change is not committed yet (one at a time);
 * - `no-overlapping-majority`: the set changes more than one voter from the latest one;
 * - `pending-appends`: records wait in the accumulator; retry after the next poll appended them.
 */
export type VotersRecordRejection =
  | 'not-leader'
  | 'no-high-watermark'
  | 'kraft-version-0'
  | 'uncommitted-voter-change'
  | 'no-overlapping-majority'
  | 'pending-appends';

/** What `VoterSetChanges.appendVotersRecord` did: the offset of the record, or why not. */
export type VotersRecordAppendResult =
  | { readonly kind: 'appended'; readonly offset: number }
  | { readonly kind: 'rejected'; readonly reason: VotersRecordRejection };

/**
 * The leader's voter change primitive (KIP-853), for the AddRaftVoter / RemoveRaftVoter /
 * UpdateRaftVoter handlers to come: appends the new voter set as a VotersRecord, which takes
 * effect at once (the control record state machine reads the log to its end) and is committed by
 * the new set. One change at a time: another is refused while the last is at or above the high
 * watermark.
 */
export class VoterSetChanges {
  constructor(
    private readonly identity: RaftIdentity,
    private readonly quorum: QuorumState,
    private readonly controlRecords: KRaftControlRecordStateMachine | undefined,
    private readonly leaderWritePath: Pick<LeaderWritePath, 'appendControlBatch' | 'maybeAppendBatches'>,
  ) {}

  /**
   * Appends the records waiting in the leader's accumulator now, linger or not, so that a
   * VotersRecord can follow them: under a steady write load the accumulator is rarely empty at a
   * poll, and a voter change would otherwise wait for a quiet moment. A prepared append that is
   * not yet scheduled stays (its batch must not drain), and `appendVotersRecord` then refuses with
   * `pending-appends`.
   */
  appendWaitingRecords(nowMs: number): void {
    if (!this.quorum.isLeader()) return;
    const leader = this.quorum.leaderStateOrThrow();
    if (leader.accumulator.isEmpty() || !leader.accumulator.completeOpenBatch()) return;
    this.leaderWritePath.maybeAppendBatches(leader, nowMs);
  }

  appendVotersRecord(voters: VoterSet, nowMs: number): VotersRecordAppendResult {
    const rejection = this.rejectionOf(voters);
    if (rejection !== undefined) return { kind: 'rejected', reason: rejection };
    const leader = this.quorum.leaderStateOrThrow();
    const info = this.leaderWritePath.appendControlBatch(
      leader,
      [{ type: ControlRecordType.KRAFT_VOTERS, message: voters.toVotersRecord() }],
      nowMs,
    );
    this.controlRecords?.updateState();
    this.identity.logger.info(
      { epoch: leader.epoch, offset: info.firstOffset, voters: voters.toString() },
      'appended a voter set',
    );
    return { kind: 'appended', offset: info.firstOffset };
  }

  private rejectionOf(voters: VoterSet): VotersRecordRejection | undefined {
    if (!this.quorum.isLeader()) return 'not-leader';
    const leader = this.quorum.leaderStateOrThrow();
    const highWatermark = leader.highWatermark();
    if (highWatermark === undefined) return 'no-high-watermark';
    const controlRecords = this.controlRecords;
    if (controlRecords === undefined) return 'kraft-version-0';
    controlRecords.updateState();
    if (controlRecords.hasUncommittedVoterChange(highWatermark)) return 'uncommitted-voter-change';
    if (!controlRecords.lastVoterSet().hasOverlappingMajority(voters)) return 'no-overlapping-majority';
    if (!leader.accumulator.isEmpty()) return 'pending-appends';
    return undefined;
  }
}
