import { IllegalStateError } from '@kraft/protocol';

/** One thing that happens at a simulated instant. */
export interface SimulationEvent {
  readonly atMs: number;
  /** Assigned in scheduling order: ties on `atMs` run in the order they were scheduled. */
  readonly id: number;
  /**
   * A short stable text for the trace (node ids, offsets; never object identities). Events that
   * are usually cancelled before they run (request timeouts) pass a function, so the text is
   * built only for the events that do run; `describeEvent` reads either form.
   */
  readonly description: string | (() => string);
  /** Some events await a promise (a log flush); the run loop awaits them before the next event. */
  readonly run: () => void | Promise<void>;
  cancelled: boolean;
}

/** The trace text of an event. */
export function describeEvent(event: Pick<SimulationEvent, 'description'>): string {
  const description = event.description;
  return typeof description === 'string' ? description : description();
}

/**
 * A priority queue of events on (deadlineMs, eventId) over simulated time, after Kafka's
 * `RaftEventSimulationTest.EventScheduler`. Time only moves when an event is taken.
 */
export class EventScheduler {
  private heap: SimulationEvent[] = [];
  private nextEventId = 0;
  private currentTimeMs = 0;

  nowMs(): number {
    return this.currentTimeMs;
  }

  size(): number {
    return this.heap.length;
  }

  /** Schedules `run` at `atMs` (never in the past); returns the event so it can be cancelled. */
  scheduleAt(
    atMs: number,
    description: string | (() => string),
    run: () => void | Promise<void>,
  ): SimulationEvent {
    if (!Number.isFinite(atMs)) {
      throw new IllegalStateError(`event '${describeEvent({ description })}' scheduled at ${atMs}`);
    }
    const event: SimulationEvent = {
      atMs: Math.max(atMs, this.currentTimeMs),
      id: this.nextEventId++,
      description,
      run,
      cancelled: false,
    };
    this.push(event);
    return event;
  }

  schedule(
    delayMs: number,
    description: string | (() => string),
    run: () => void | Promise<void>,
  ): SimulationEvent {
    return this.scheduleAt(this.currentTimeMs + delayMs, description, run);
  }

  /** Takes the earliest live event and advances time to it; undefined when nothing is left. */
  takeNext(): SimulationEvent | undefined {
    for (;;) {
      const event = this.pop();
      if (event === undefined) return undefined;
      if (event.cancelled) continue;
      this.currentTimeMs = event.atMs;
      return event;
    }
  }

  /** The time of the earliest live event, without taking it. */
  peekTimeMs(): number | undefined {
    while (this.heap.length > 0 && (this.heap[0] as SimulationEvent).cancelled) this.pop();
    return this.heap[0]?.atMs;
  }

  private static before(left: SimulationEvent, right: SimulationEvent): boolean {
    return left.atMs < right.atMs || (left.atMs === right.atMs && left.id < right.id);
  }

  private push(event: SimulationEvent): void {
    const heap = this.heap;
    heap.push(event);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const parentEvent = heap[parent] as SimulationEvent;
      if (!EventScheduler.before(event, parentEvent)) break;
      heap[index] = parentEvent;
      index = parent;
    }
    heap[index] = event;
  }

  private pop(): SimulationEvent | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (top === undefined || last === undefined || heap.length === 0) return top;
    let index = 0;
    const length = heap.length;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= length) break;
      const right = left + 1;
      let child = left;
      if (
        right < length &&
        EventScheduler.before(heap[right] as SimulationEvent, heap[left] as SimulationEvent)
      ) {
        child = right;
      }
      const childEvent = heap[child] as SimulationEvent;
      if (!EventScheduler.before(childEvent, last)) break;
      heap[index] = childEvent;
      index = child;
    }
    heap[index] = last;
    return top;
  }
}
