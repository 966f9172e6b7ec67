import type { Logger } from '@kraft/protocol';
import { LeadershipTransferError } from '../errors/leadership-transfer-error.js';
import { NotLeaderError } from '../errors/not-leader-error.js';
import { RaftTimeoutError } from '../errors/raft-timeout-error.js';
import type { RaftLog } from '../ports/raft-log.js';
import type { QuorumState } from '../quorum-state.js';
import type { CompletionSink, OperationCompletion } from '../raft-outbox.js';

/** How a transfer makes the leader step down: resign with the target as the first successor. */
export interface Resigner {
  resignLeadership(nowMs: number, preferredSuccessorId?: number): void;
}

interface RunningTransfer {
  readonly id: number;
  readonly targetId: number;
  /** The epoch this node led when the transfer began; the target must lead a later one. */
  readonly fromEpoch: number;
  readonly deadlineMs: number;
  readonly timeoutMs: number;
  /** Set once the leader resigned for the target: it only waits for the target to win. */
  resigned: boolean;
}

/**
 * Leadership transfer (Raft thesis §3.10, in Kafka's shape; ADR 0024). While the target catches
 * up the leader refuses new appends, so the log end it must reach stops moving; once the
 * target's fetch offset reaches the log end (and nothing waits in the accumulator) the leader
 * resigns naming the target first among the preferred successors: EndQuorumEpoch gives the
 * first successor a zero election backoff, so it campaigns at once with the most complete log.
 * The transfer succeeds when this node sees the target lead a later epoch. At the timeout a
 * leader still catching the target up resumes accepting appends; one that already resigned
 * stays resigned (its epoch is over) and the election runs its course.
 */
export class LeadershipTransfer {
  private running: RunningTransfer | undefined;

  constructor(
    private readonly quorum: QuorumState,
    private readonly log: Pick<RaftLog, 'endOffset'>,
    private readonly resigner: Resigner,
    private readonly completions: CompletionSink,
    private readonly logger: Logger,
  ) {}

  /** True while the leader holds back new appends for a transfer. */
  blocksAppends(): boolean {
    return this.running !== undefined && !this.running.resigned;
  }

  /** Starts transfer `id` to voter `targetId` (the caller checked that this node leads). */
  start(id: number, targetId: number, nowMs: number, timeoutMs: number): void {
    const leader = this.quorum.leaderStateOrThrow();
    if (targetId === leader.localKey.id) {
      // Already done: the target leads. Resolving beats an error the caller must special-case.
      this.completions.complete({ kind: 'leadership-transfer', id, leaderEpoch: leader.epoch });
      return;
    }
    if (!leader.voters().isVoterId(targetId)) {
      throw new LeadershipTransferError('not-a-voter', targetId, `node ${targetId} is not a voter`);
    }
    if (this.running !== undefined) {
      throw new LeadershipTransferError(
        'in-progress',
        targetId,
        `a transfer to node ${this.running.targetId} is already running`,
      );
    }
    this.running = {
      id,
      targetId,
      fromEpoch: leader.epoch,
      deadlineMs: nowMs + timeoutMs,
      timeoutMs,
      resigned: false,
    };
    this.logger.info({ epoch: leader.epoch, targetId }, 'leadership transfer started');
  }

  /** Advances the running transfer; returns the time until it must be polled again. */
  poll(nowMs: number): number {
    const transfer = this.running;
    if (transfer === undefined) return Number.POSITIVE_INFINITY;
    const { leaderId, epoch } = this.quorum.leaderAndEpoch();
    if (epoch > transfer.fromEpoch && leaderId !== undefined) {
      this.finish(
        leaderId === transfer.targetId
          ? { kind: 'leadership-transfer', id: transfer.id, leaderEpoch: epoch }
          : this.failure(
              transfer,
              new LeadershipTransferError(
                'another-leader-elected',
                transfer.targetId,
                `node ${leaderId} won epoch ${epoch} instead of node ${transfer.targetId}`,
              ),
            ),
      );
      return Number.POSITIVE_INFINITY;
    }
    if (nowMs >= transfer.deadlineMs) {
      this.finish(this.failure(transfer, new RaftTimeoutError('leadership-transfer', transfer.timeoutMs)));
      return Number.POSITIVE_INFINITY;
    }
    if (!transfer.resigned) {
      if (!this.quorum.isLeader() || this.quorum.epoch() !== transfer.fromEpoch) {
        const message = `leadership of epoch ${transfer.fromEpoch} ended before the transfer`;
        this.finish(this.failure(transfer, new NotLeaderError(message, transfer.fromEpoch)));
        return Number.POSITIVE_INFINITY;
      }
      if (this.isTargetCaughtUp(transfer.targetId)) {
        this.logger.info(
          { epoch: transfer.fromEpoch, targetId: transfer.targetId },
          'resigning for the transfer',
        );
        transfer.resigned = true;
        this.resigner.resignLeadership(nowMs, transfer.targetId);
      }
    }
    return transfer.deadlineMs - nowMs;
  }

  /** The target holds the whole log: its fetch offset is the log end and nothing waits to be appended. */
  private isTargetCaughtUp(targetId: number): boolean {
    const leader = this.quorum.leaderStateOrThrow();
    const endOffset = this.log.endOffset();
    return (
      leader.accumulator.nextAppendOffset() === endOffset &&
      (leader.voterEndOffset(targetId) ?? -1) >= endOffset
    );
  }

  private failure(
    transfer: RunningTransfer,
    error: LeadershipTransferError | NotLeaderError | RaftTimeoutError,
  ) {
    this.logger.info(
      { epoch: transfer.fromEpoch, targetId: transfer.targetId, err: error },
      'leadership transfer failed',
    );
    return { kind: 'failed', id: transfer.id, error } as const;
  }

  private finish(completion: OperationCompletion): void {
    this.running = undefined;
    this.completions.complete(completion);
  }
}
