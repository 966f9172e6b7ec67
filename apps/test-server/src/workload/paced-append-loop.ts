import { KRaftError, type Logger } from '@kraft/protocol';
import { ThroughputThrottler } from './throughput-throttler.js';
import type { ScheduledTask, WorkloadScheduler } from './workload-scheduler.js';

/** Kafka's generator sleeps 10 ms after a NotLeaderException before trying again. */
export const NOT_LEADER_RETRY_MS = 10;
/** The accumulator drains on the next poll; retrying after 1 ms lets the driver run first. */
export const ACCUMULATOR_FULL_RETRY_MS = 1;
/** Node's timers fire at best every millisecond; sending each millisecond's records together costs nothing. */
export const MINIMUM_TICK_MS = 1;

export interface PacedAppendLoopOptions {
  readonly throughputRecordsPerSecond: number;
  readonly scheduler: WorkloadScheduler;
  /** Records one append hands to raft, at most. */
  readonly maxRecordsPerAppend: number;
  /**
   * The epoch to append in now, or undefined when nothing goes (this node does not lead, the
   * workload stopped, or it is not ready yet and has called `schedule` for its next look).
   */
  readonly appendEpoch: () => number | undefined;
  /** Records that may still be appended before the outstanding bound is reached. */
  readonly budget: () => number;
  /**
   * Hands at least `count` records to raft in `epoch` and returns how many it handed; raft's
   * refusals (NOT_LEADER, BATCH_ACCUMULATOR_FULL) are thrown and retried here.
   */
  readonly append: (epoch: number, count: number) => number;
  readonly logger: Logger;
}

/**
 * The pacing both workload generators share: each tick sends what the throttler made due, up to
 * the outstanding budget and one append's worth; it then waits for the budget to free up
 * (`resumeIfWaiting`), runs again at once while more is due, or sleeps until the next record is.
 */
export class PacedAppendLoop {
  private readonly throttler: ThroughputThrottler;
  private sentCount = 0;
  private task: ScheduledTask | undefined;
  private waitingForBudget = false;

  constructor(private readonly options: PacedAppendLoopOptions) {
    this.throttler = new ThroughputThrottler(options.throughputRecordsPerSecond, options.scheduler.nowMs());
  }

  /** Starts the throttle from now, with nothing sent (a new epoch to write in). */
  resetPacing(): void {
    this.sentCount = 0;
    this.throttler.reset(this.options.scheduler.nowMs());
  }

  /** When the throttler meant the next record to go. */
  intendedSendTimeMs(): number {
    return this.throttler.dueTimeMs(this.sentCount);
  }

  /** Runs the loop in `delayMs`, instead of whatever was scheduled. */
  schedule(delayMs: number): void {
    this.cancel();
    this.task = this.options.scheduler.schedule(delayMs, () => this.tick());
  }

  /** Budget was freed (commits or applies came in): a loop waiting for it runs now. */
  resumeIfWaiting(): void {
    if (this.waitingForBudget) this.schedule(0);
  }

  cancel(): void {
    this.task?.cancel();
    this.task = undefined;
    this.waitingForBudget = false;
  }

  private tick(): void {
    this.task = undefined;
    this.waitingForBudget = false;
    const epoch = this.options.appendEpoch();
    if (epoch === undefined) return;
    const due = this.throttler.dueCount(this.options.scheduler.nowMs()) - this.sentCount;
    const budget = this.options.budget();
    const count = Math.min(due, budget, this.options.maxRecordsPerAppend);
    if (count > 0 && !this.append(epoch, count)) return;
    if (due > count && count === budget) {
      this.waitingForBudget = true;
    } else if (due > count) {
      this.schedule(0);
    } else {
      const delayMs = this.throttler.delayMs(this.sentCount, this.options.scheduler.nowMs());
      this.schedule(Math.max(MINIMUM_TICK_MS, delayMs));
    }
  }

  /** False when raft refused the records and a retry is scheduled. */
  private append(epoch: number, count: number): boolean {
    try {
      this.sentCount += this.options.append(epoch, count);
      return true;
    } catch (error) {
      return this.retryAfterRefusal(error, epoch);
    }
  }

  private retryAfterRefusal(error: unknown, epoch: number): false {
    const code = KRaftError.isInstance(error) ? error.code : undefined;
    if (code === 'NOT_LEADER') {
      this.options.logger.debug({ epoch }, 'append refused: not the leader');
      this.schedule(NOT_LEADER_RETRY_MS);
      return false;
    }
    if (code === 'BATCH_ACCUMULATOR_FULL') {
      // Whatever the refused append drew is drawn again; only the generators' counters moved.
      this.schedule(ACCUMULATOR_FULL_RETRY_MS);
      return false;
    }
    throw error;
  }
}
