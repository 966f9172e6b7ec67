import type { CheckResult } from './check-operations.js';
import type { Model } from './model.js';
import type { Operation } from './operation.js';

// A counterexample over thousands of operations is unreadable; the tail of the prefix and the
// pending operations are where the violation is.
const MAX_LINES_PER_SECTION = 20;

/** A few lines for a test failure or a log: the verdict and, for a violation, where it is. */
export function formatCheckResult<State, Input, Output>(
  model: Model<State, Input, Output>,
  result: CheckResult<State, Input, Output>,
): string {
  if (result.ok) return `linearizable (${result.partitions} partitions)`;
  const where = result.key === undefined ? '' : ` for key ${JSON.stringify(result.key)}`;
  if (result.outcome === 'unknown')
    return `unknown${where}: the search ran out of its ${result.reason} budget`;
  const { linearized, stateAfterLinearized, unplaceable, blocking } = result.counterexample;
  const line = (operation: Operation<Input, Output>) => {
    const text = model.describe?.(operation.input, operation.output) ?? JSON.stringify(operation.input);
    const returned = operation.return === undefined ? '...' : String(operation.return);
    return `  client ${operation.clientId} [${operation.call}, ${returned}] ${text}`;
  };
  const shown = linearized.slice(-MAX_LINES_PER_SECTION);
  return [
    `not linearizable${where}: ${line(blocking).trim()} returned, and no order of the pending operations explains it`,
    `longest linearizable prefix (${linearized.length} operations${shown.length < linearized.length ? ', last shown' : ''}):`,
    ...shown.map(line),
    `state after it: ${JSON.stringify(stateAfterLinearized)}`,
    `pending operations none of which can take effect next (${unplaceable.length}):`,
    ...unplaceable.slice(0, MAX_LINES_PER_SECTION).map(line),
  ].join('\n');
}
