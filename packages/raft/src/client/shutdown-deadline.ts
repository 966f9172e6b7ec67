/** Whether a graceful shutdown has begun: what the transitions and the state poller ask of it. */
export interface ShutdownStatus {
  isShuttingDown(): boolean;
}

/** The graceful shutdown's deadline, set once by `KafkaRaftClient.shutdown`. */
export class ShutdownDeadline implements ShutdownStatus {
  private deadlineMs: number | undefined;

  /** Starts the shutdown, due by `nowMs + timeoutMs`; false (and no change) when it had begun. */
  begin(nowMs: number, timeoutMs: number): boolean {
    if (this.deadlineMs !== undefined) return false;
    this.deadlineMs = nowMs + timeoutMs;
    return true;
  }

  isShuttingDown(): boolean {
    return this.deadlineMs !== undefined;
  }

  /** True once the shutdown began and its deadline is reached. */
  hasExpired(nowMs: number): boolean {
    return this.deadlineMs !== undefined && nowMs >= this.deadlineMs;
  }
}
