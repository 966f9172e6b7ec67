import { type CheckOptions, type CheckResult, checkOperations } from './check-operations.js';
import { operationsFromEvents } from './history-event.js';
import { type ReadHistoryOptions, readHistoryFile } from './history-file.js';
import type { Model } from './model.js';

/** Reads a JSON-lines history saved by a test (say, one that failed) and checks it again. */
export async function checkHistoryFile<State, Input, Output>(
  model: Model<State, Input, Output>,
  path: string,
  options: ReadHistoryOptions<Input, Output> & CheckOptions = {},
): Promise<CheckResult<State, Input, Output>> {
  const events = await readHistoryFile(path, options);
  return checkOperations(model, operationsFromEvents(events), options);
}
