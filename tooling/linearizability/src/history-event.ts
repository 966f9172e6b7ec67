import { HistoryError } from './history-error.js';
import type { Operation } from './operation.js';

/**
 * One line of a recorded history, Jepsen's shape: an `invoke` when a client sends an operation,
 * then one completion with the same `id`: `ok` (it took effect, with its output), `fail` (it
 * certainly did not take effect) or `info` (unknown: timed out, connection lost).
 */
export type HistoryEvent<Input, Output> =
  | {
      readonly type: 'invoke';
      readonly id: number;
      readonly clientId: number;
      readonly time: number;
      readonly input: Input;
    }
  | {
      readonly type: 'ok';
      readonly id: number;
      readonly clientId: number;
      readonly time: number;
      readonly output: Output;
    }
  | { readonly type: 'fail' | 'info'; readonly id: number; readonly clientId: number; readonly time: number };

/**
 * Pairs invocations with their completions. A failed operation is left out (it did not happen);
 * an `info` one, and one never completed (the recording client died first), has no return time.
 * The operations come in invocation order.
 */
export function operationsFromEvents<Input, Output>(
  events: readonly HistoryEvent<Input, Output>[],
): Operation<Input, Output>[] {
  const slots: Array<Operation<Input, Output> | null> = [];
  const pending = new Map<number, { slot: number; clientId: number; input: Input; call: number }>();
  const completed = new Set<number>();
  for (const event of events) {
    if (event.type === 'invoke') {
      if (pending.has(event.id) || completed.has(event.id)) {
        throw new HistoryError('INVALID_HISTORY', `operation ${event.id} is invoked twice`);
      }
      pending.set(event.id, {
        slot: slots.length,
        clientId: event.clientId,
        input: event.input,
        call: event.time,
      });
      slots.push(null);
      continue;
    }
    const invocation = pending.get(event.id);
    if (invocation === undefined) {
      throw new HistoryError(
        'INVALID_HISTORY',
        `operation ${event.id} completes (${event.type}) without a pending invoke`,
      );
    }
    if (event.time < invocation.call) {
      throw new HistoryError(
        'INVALID_HISTORY',
        `operation ${event.id} completes at ${event.time}, before its invoke at ${invocation.call}`,
      );
    }
    pending.delete(event.id);
    completed.add(event.id);
    if (event.type === 'fail') continue;
    const { clientId, input, call } = invocation;
    slots[invocation.slot] =
      event.type === 'ok'
        ? { clientId, input, call, return: event.time, output: event.output }
        : { clientId, input, call, return: undefined, output: undefined };
  }
  for (const { slot, clientId, input, call } of pending.values()) {
    slots[slot] = { clientId, input, call, return: undefined, output: undefined };
  }
  return slots.filter((operation): operation is Operation<Input, Output> => operation !== null);
}
