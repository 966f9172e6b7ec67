/** Timers for the workload, so tests can drive it with a manual clock. */
export interface ScheduledTask {
  cancel(): void;
}

export interface WorkloadScheduler {
  /** A monotonic clock in milliseconds. */
  nowMs(): number;
  schedule(delayMs: number, task: () => void): ScheduledTask;
}

/** The production scheduler: `performance.now()` and `setTimeout`. */
export const timerScheduler: WorkloadScheduler = {
  nowMs: () => performance.now(),
  schedule(delayMs, task) {
    const handle = setTimeout(task, Math.max(0, delayMs));
    return { cancel: () => clearTimeout(handle) };
  },
};
