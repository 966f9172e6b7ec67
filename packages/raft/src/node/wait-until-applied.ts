import { RaftTimeoutError } from '../errors/raft-timeout-error.js';

/** What `waitUntilApplied` watches: the state machine's position and the node's progress signal. */
export interface AppliedProgress {
  /** The offset the state machine applies next (everything below it is applied). */
  nextOffset(): number;
  nowMs(): number;
  /** Settles at the next applied batch, leader change or close, or after `timeoutMs`. */
  nextProgressOrTimeout(timeoutMs: number): Promise<void>;
  /** Throws when the node stopped while the wait slept. */
  checkRunning(): void;
}

/**
 * The second half of a read barrier: resolves once the local state machine has applied every
 * offset below `offset`; rejects with RaftTimeoutError (`timeoutMs`, the caller's bound) once
 * `deadlineMs` passes first.
 */
export async function waitUntilApplied(
  progress: AppliedProgress,
  offset: number,
  deadlineMs: number,
  timeoutMs: number,
): Promise<void> {
  while (progress.nextOffset() < offset) {
    const remainingMs = deadlineMs - progress.nowMs();
    if (remainingMs <= 0) throw new RaftTimeoutError('read-index', timeoutMs);
    await progress.nextProgressOrTimeout(remainingMs);
    progress.checkRunning();
  }
}
