import type { Logger } from '@kraft/protocol';
import { NotLeaderError } from '../errors/not-leader-error.js';
import { RaftTimeoutError } from '../errors/raft-timeout-error.js';
import type { QuorumState } from '../quorum-state.js';
import type { CompletionSink } from '../raft-outbox.js';
import type { LeaderState } from '../states/leader-state.js';
import type { ParkedFetches } from './request-senders.js';

/**
 * The leader's read barriers (`readIndex`, ADR 0024): registration, the quorum round that
 * confirms them, their timeouts, and their failure when leadership ends. The pending reads live
 * in the LeaderState of their epoch; results leave through the outbox as completions.
 */
export class ReadBarriers {
  constructor(
    private readonly quorum: QuorumState,
    private readonly parkedFetches: ParkedFetches,
    private readonly completions: CompletionSink,
    private readonly logger: Logger,
  ) {}

  /**
   * Registers read `id` on the leader (PendingReadsFullError past its bound). Followers
   * long-poll, so the parked fetches are answered at once: their next fetch, one round trip
   * later, confirms the read.
   */
  register(id: number, nowMs: number, timeoutMs: number): void {
    const leader = this.quorum.leaderStateOrThrow();
    leader.pendingReads.register(id, nowMs, timeoutMs, leader.highWatermark());
    this.parkedFetches.completeParkedFetches(nowMs);
  }

  /** Completes the confirmed reads and fails the expired ones; returns the time to the next deadline. */
  poll(nowMs: number): number {
    if (!this.quorum.isLeader()) return Number.POSITIVE_INFINITY;
    const leader = this.quorum.leaderStateOrThrow();
    const reads = leader.pendingReads;
    if (reads.size() === 0) return Number.POSITIVE_INFINITY;
    const confirmed = reads.takeConfirmed(leader.voters(), leader.localKey.id, leader.highWatermark());
    for (const read of confirmed) {
      this.completions.complete({ kind: 'read-index', id: read.id, readOffset: read.readOffset });
    }
    return reads.expire(nowMs, (read) => {
      this.completions.complete({
        kind: 'failed',
        id: read.id,
        error: new RaftTimeoutError('read-index', read.timeoutMs),
      });
    });
  }

  /** Leadership of `leader`'s epoch ended: its waiting reads can no longer be confirmed. */
  failAll(leader: LeaderState): void {
    const failed = leader.pendingReads.takeAll();
    if (failed.length === 0) return;
    this.logger.debug(
      { epoch: leader.epoch, failed: failed.length },
      'leadership ended: failing read barriers',
    );
    for (const read of failed) {
      this.completions.complete({
        kind: 'failed',
        id: read.id,
        error: new NotLeaderError(
          `leadership of epoch ${leader.epoch} ended before the read was confirmed`,
          leader.epoch,
        ),
      });
    }
  }
}
