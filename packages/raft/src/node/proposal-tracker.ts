import { IndeterminateError, type IndeterminateReason } from '../errors/indeterminate-error.js';
import { ProposalRejectedError } from '../errors/proposal-rejected-error.js';

/** Where a proposal committed: the offset of its last value and the epoch it was written in. */
export interface CommittedPosition {
  readonly offset: number;
  readonly epoch: number;
}

/** One tracked proposal: its outcome, and the handle to give up on it. */
interface TrackedProposal {
  readonly outcome: Promise<CommittedPosition>;
}

interface PendingProposal extends TrackedProposal {
  readonly lastOffset: number;
  readonly epoch: number;
  readonly resolve: (position: CommittedPosition) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Proposals appended to this node's log while it led, waiting for the committed batch at their
 * offset to decide them (the rule the simulator's history uses for acknowledged values):
 *   the committed batch holding the proposal's last offset has the proposing epoch → committed
 *     (one leader per epoch writes each offset once, so equal epochs mean the same entry; the
 *     accumulator may have merged several proposals into that batch);
 *   a committed batch of another epoch holds that offset → rejected (it was truncated away);
 *   nothing this node will still see can decide it (closing, timeout, a snapshot over it) →
 *   indeterminate.
 * A change of leader decides nothing by itself: the old leader's entries may still commit.
 * Pending proposals are kept sorted by offset, so a committed batch settles a prefix of them.
 */
export class ProposalTracker {
  private pending: PendingProposal[] = [];

  /** Proposals waiting for their outcome. */
  size(): number {
    return this.pending.length;
  }

  /** Tracks values appended up to `lastOffset` in `epoch`; `outcome` settles with the result. */
  track(lastOffset: number, epoch: number): TrackedProposal {
    let resolve: (position: CommittedPosition) => void = () => {};
    let reject: (error: Error) => void = () => {};
    const outcome = new Promise<CommittedPosition>((resolveOutcome, rejectOutcome) => {
      resolve = resolveOutcome;
      reject = rejectOutcome;
    });
    const proposal: PendingProposal = { outcome, lastOffset, epoch, resolve, reject };
    // Appends come in offset order except after a truncation, so this scan is almost always empty.
    let index = this.pending.length;
    while (index > 0 && (this.pending[index - 1] as PendingProposal).lastOffset > lastOffset) index -= 1;
    this.pending.splice(index, 0, proposal);
    return proposal;
  }

  /** A committed batch, in offset order: settles every proposal whose last offset it covers. */
  onCommittedBatch(baseOffset: number, lastOffset: number, epoch: number): void {
    let settled = 0;
    for (const proposal of this.pending) {
      if (proposal.lastOffset > lastOffset) break;
      settled += 1;
      if (proposal.lastOffset < baseOffset) {
        // Committed batches are contiguous; only a snapshot skips offsets, and it settles first.
        proposal.reject(new IndeterminateError(proposal.lastOffset, proposal.epoch, 'snapshot'));
      } else if (proposal.epoch === epoch) {
        proposal.resolve({ offset: proposal.lastOffset, epoch });
      } else {
        proposal.reject(new ProposalRejectedError(proposal.lastOffset, proposal.epoch, epoch));
      }
    }
    if (settled > 0) this.pending.splice(0, settled);
  }

  /** A snapshot replaced the log up to `lastContainedOffset`: proposals there can no longer be told. */
  onSnapshotLoaded(lastContainedOffset: number): void {
    this.failWhere((proposal) => proposal.lastOffset <= lastContainedOffset, 'snapshot');
  }

  /** Gives up on one proposal (its wait timed out); false if it was settled already. */
  expire(tracked: TrackedProposal): boolean {
    return this.failWhere((proposal) => proposal === tracked, 'timeout') > 0;
  }

  /** The node is closing: every pending outcome stays unknown. */
  failAll(reason: IndeterminateReason): void {
    this.failWhere(() => true, reason);
  }

  private failWhere(matches: (proposal: PendingProposal) => boolean, reason: IndeterminateReason): number {
    const kept: PendingProposal[] = [];
    let failed = 0;
    for (const proposal of this.pending) {
      if (!matches(proposal)) {
        kept.push(proposal);
        continue;
      }
      failed += 1;
      proposal.reject(new IndeterminateError(proposal.lastOffset, proposal.epoch, reason));
    }
    this.pending = kept;
    return failed;
  }
}
