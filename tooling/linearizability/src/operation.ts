import { HistoryError } from './history-error.js';

/**
 * One completed or unknown-outcome operation of one client. `call` and `return` are times on one
 * clock shared by all clients (any unit). An operation that failed for certain (it did not take
 * effect) is not an operation here: leave it out.
 */
export interface Operation<Input, Output> {
  readonly clientId: number;
  readonly input: Input;
  readonly call: number;
  /**
   * `undefined` for an `info` operation (timed out, connection lost, process killed): it may take
   * effect at any point after `call`, or never, and its `output` is not checked.
   */
  readonly return: number | undefined;
  readonly output: Output | undefined;
}

export function validateOperations<Input, Output>(operations: readonly Operation<Input, Output>[]): void {
  for (let index = 0; index < operations.length; index++) {
    const operation = operations[index]!;
    if (!Number.isFinite(operation.call)) {
      throw new HistoryError(
        'INVALID_OPERATION',
        `operation ${index}: call time ${operation.call} is not finite`,
      );
    }
    const returnTime = operation.return;
    if (returnTime === undefined) continue;
    if (!Number.isFinite(returnTime) || returnTime < operation.call) {
      throw new HistoryError(
        'INVALID_OPERATION',
        `operation ${index}: return time ${returnTime} is not a finite time at or after its call ${operation.call}`,
      );
    }
  }
}
