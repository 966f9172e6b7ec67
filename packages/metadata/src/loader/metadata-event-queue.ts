/**
 * The loader's single worker (Kafka's `KafkaEventQueue`). Raft listener callbacks run on the turn
 * that drives `poll` and must only enqueue work; events run later, one at a time, in order.
 */
export interface MetadataEventQueue {
  /** Runs `event` after the events already queued; ignored once closed. */
  append(event: () => void): void;
  /** Runs `event` after at least `delayMs`, unless the queue is closed first. */
  scheduleDeferred(delayMs: number, event: () => void): void;
  /** Drops queued and deferred events; nothing runs afterwards. */
  close(): void;
}

/**
 * Runs events on later turns of the Node event loop (`setImmediate`), so a raft poll never waits
 * for a batch to be applied. Deferred events use a timer that does not keep the process alive.
 */
export class EventLoopEventQueue implements MetadataEventQueue {
  private readonly events: (() => void)[] = [];
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private scheduled = false;
  private closed = false;

  /**
   * Runs `event` on a later event-loop turn, after the events already queued; ignored once closed.
   */
  append(event: () => void): void {
    if (this.closed) return;
    this.events.push(event);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.runOne());
    }
  }

  scheduleDeferred(delayMs: number, event: () => void): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.append(event);
    }, delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  /** Drops queued events and cancels deferred ones; nothing runs afterwards. */
  close(): void {
    this.closed = true;
    this.events.length = 0;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** One event per turn, so timers and IO get their turn between long events. */
  private runOne(): void {
    this.scheduled = false;
    const event = this.events.shift();
    if (event === undefined || this.closed) return;
    if (this.events.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.runOne());
    }
    event();
  }
}
