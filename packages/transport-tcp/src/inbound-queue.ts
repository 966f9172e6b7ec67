import { invariant } from '@kraft/protocol';

/**
 * A bounded FIFO between socket callbacks and the raft driver, with a wake-up signal: the driver
 * awaits `waitForItems()` (raced with its next deadline), then `drain()`s everything at its own
 * pace. Socket events are never handled inline (CONVENTIONS C4.4).
 */
export class InboundQueue<T> {
  private readonly capacity: number;
  private items: T[] = [];
  private waiters: Array<() => void> = [];

  constructor(capacity: number) {
    invariant(
      Number.isSafeInteger(capacity) && capacity > 0,
      () => `queue capacity ${capacity} must be a positive integer`,
    );
    this.capacity = capacity;
  }

  /** Items queued and not yet drained. */
  size(): number {
    return this.items.length;
  }

  /** Whether `offer` would refuse the next item: the capacity is reached until the driver drains. */
  isFull(): boolean {
    return this.items.length >= this.capacity;
  }

  /** Appends `item` and wakes the driver; false (and nothing queued) when the queue is full. */
  offer(item: T): boolean {
    if (this.items.length >= this.capacity) return false;
    this.items.push(item);
    if (this.waiters.length > 0) {
      const waiters = this.waiters;
      this.waiters = [];
      for (const wake of waiters) wake();
    }
    return true;
  }

  /** Removes and returns everything queued, oldest first. */
  drain(): T[] {
    const items = this.items;
    this.items = [];
    return items;
  }

  /** Resolves as soon as at least one item is queued (at once if one already is). */
  waitForItems(): Promise<void> {
    if (this.items.length > 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Wakes every waiter without an item, e.g. so a driver notices shutdown. */
  wakeUp(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
