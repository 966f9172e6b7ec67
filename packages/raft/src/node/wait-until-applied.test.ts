import { describe, expect, it } from 'vitest';
import { RaftNodeClosedError } from '../errors/raft-node-closed-error.js';
import { RaftTimeoutError } from '../errors/raft-timeout-error.js';
import { type AppliedProgress, waitUntilApplied } from './wait-until-applied.js';

/** A state machine that applies one offset per progress signal, on a clock that moves 10 ms per wait. */
class LaggingProgress implements AppliedProgress {
  applied = 0;
  clockMs = 0;
  waits = 0;
  running = true;

  constructor(private readonly appliedPerWait: number) {}

  nextOffset(): number {
    return this.applied;
  }

  nowMs(): number {
    return this.clockMs;
  }

  async nextProgressOrTimeout(timeoutMs: number): Promise<void> {
    this.waits += 1;
    this.clockMs += Math.min(10, timeoutMs);
    this.applied += this.appliedPerWait;
  }

  checkRunning(): void {
    if (!this.running) throw new RaftNodeClosedError('closed while waiting');
  }
}

describe('waitUntilApplied', () => {
  it('returns at once when the state machine already applied below the offset', async () => {
    const progress = new LaggingProgress(1);
    progress.applied = 5;
    await waitUntilApplied(progress, 5, 1_000, 1_000);
    expect(progress.waits).toBe(0);
  });

  it('waits for a lagging state machine until it reaches the offset', async () => {
    const progress = new LaggingProgress(1);
    await waitUntilApplied(progress, 3, 1_000, 1_000);
    expect(progress.applied).toBe(3);
    expect(progress.waits).toBe(3);
  });

  it('rejects with RaftTimeoutError naming the caller timeout once the deadline passes', async () => {
    const progress = new LaggingProgress(0);
    const error = await waitUntilApplied(progress, 1, 30, 30).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RaftTimeoutError);
    expect(error).toMatchObject({ operation: 'read-index', timeoutMs: 30 });
    expect(progress.clockMs).toBe(30);
  });

  it('stops waiting when the node stops meanwhile', async () => {
    const progress = new LaggingProgress(0);
    progress.running = false;
    await expect(waitUntilApplied(progress, 1, 1_000, 1_000)).rejects.toBeInstanceOf(RaftNodeClosedError);
  });
});
