import type { WorkloadScheduler } from '../../src/workload/workload-scheduler.js';

/** A manual clock and timer queue: `advance` runs every task due by the new time, in order. */
export class ManualScheduler implements WorkloadScheduler {
  private now = 0;
  private nextId = 0;
  private readonly tasks = new Map<number, { atMs: number; task: () => void }>();

  nowMs(): number {
    return this.now;
  }

  schedule(delayMs: number, task: () => void) {
    const id = this.nextId++;
    this.tasks.set(id, { atMs: this.now + Math.max(0, delayMs), task });
    return { cancel: () => this.tasks.delete(id) };
  }

  advance(byMs: number): void {
    const targetMs = this.now + byMs;
    for (;;) {
      const next = [...this.tasks.entries()]
        .filter(([, entry]) => entry.atMs <= targetMs)
        .sort((left, right) => left[1].atMs - right[1].atMs || left[0] - right[0])[0];
      if (next === undefined) break;
      this.tasks.delete(next[0]);
      this.now = Math.max(this.now, next[1].atMs);
      next[1].task();
    }
    this.now = targetMs;
  }

  pendingTasks(): number {
    return this.tasks.size;
  }
}
