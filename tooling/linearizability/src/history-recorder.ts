import { HistoryError } from './history-error.js';
import type { HistoryEvent } from './history-event.js';
import { operationsFromEvents } from './history-event.js';
import type { Operation } from './operation.js';

/** Completes one recorded operation, exactly once. */
export interface OperationHandle<Output> {
  /** It took effect and returned `output`. */
  ok(output: Output): void;
  /** It certainly did not take effect (refused before reaching the log, say). */
  fail(): void;
  /** Its outcome is unknown (timed out, connection lost): it may or may not have taken effect. */
  info(): void;
}

export interface HistoryRecorderOptions<Input, Output> {
  /**
   * A monotonic clock, shared by every client of the history. Default: nanoseconds of
   * `process.hrtime` since the recorder was made (small enough to stay an exact number).
   */
  readonly clock?: () => number;
  /** Called with each event as it is recorded, to write it out before a crash can lose it. */
  readonly onEvent?: (event: HistoryEvent<Input, Output>) => void;
  /** The most events kept in memory. Default 2,000,000 (a million operations). */
  readonly maxEvents?: number;
}

const DEFAULT_MAX_EVENTS = 2_000_000;

/**
 * Records the operations of concurrent clients as invoke/completion events with times from one
 * monotonic clock. Times never go backwards; two events at the same time are read by the checker
 * as concurrent, which can hide a violation but never report a false one.
 */
export class HistoryRecorder<Input, Output> {
  private readonly recorded: HistoryEvent<Input, Output>[] = [];
  private readonly clock: () => number;
  private readonly onEvent: ((event: HistoryEvent<Input, Output>) => void) | undefined;
  private readonly maxEvents: number;
  private nextId = 0;
  private lastTime = Number.NEGATIVE_INFINITY;

  constructor(options: HistoryRecorderOptions<Input, Output> = {}) {
    this.clock = options.clock ?? nanosecondsSinceNow();
    this.onEvent = options.onEvent;
    this.maxEvents = options.maxEvents ?? DEFAULT_MAX_EVENTS;
  }

  invoke(clientId: number, input: Input): OperationHandle<Output> {
    const id = this.nextId++;
    this.record({ type: 'invoke', id, clientId, time: this.now(), input });
    let completed = false;
    const complete = (event: HistoryEvent<Input, Output>) => {
      if (completed) throw new HistoryError('INVALID_HISTORY', `operation ${id} is completed twice`);
      completed = true;
      this.record(event);
    };
    return {
      ok: (output) => complete({ type: 'ok', id, clientId, time: this.now(), output }),
      fail: () => complete({ type: 'fail', id, clientId, time: this.now() }),
      info: () => complete({ type: 'info', id, clientId, time: this.now() }),
    };
  }

  events(): readonly HistoryEvent<Input, Output>[] {
    return this.recorded;
  }

  /**
   * The history so far as operations; those still pending count as unknown-outcome. Not
   * validated here: `checkOperations` validates what it is given, once.
   */
  operations(): Operation<Input, Output>[] {
    return operationsFromEvents(this.recorded);
  }

  private now(): number {
    const time = this.clock();
    if (!Number.isFinite(time)) throw new HistoryError('INVALID_HISTORY', `the clock returned ${time}`);
    if (time > this.lastTime) this.lastTime = time;
    return this.lastTime;
  }

  private record(event: HistoryEvent<Input, Output>): void {
    if (this.recorded.length >= this.maxEvents) {
      throw new HistoryError('HISTORY_TOO_LARGE', `the history already holds ${this.maxEvents} events`);
    }
    this.recorded.push(event);
    this.onEvent?.(event);
  }
}

function nanosecondsSinceNow(): () => number {
  const start = process.hrtime.bigint();
  return () => Number(process.hrtime.bigint() - start);
}
