export { checkHistoryFile } from './check-history-file.js';
export {
  type CheckOptions,
  type CheckResult,
  type Counterexample,
  checkOperations,
} from './check-operations.js';
export { formatCheckResult } from './format-check-result.js';
export { HistoryError } from './history-error.js';
export { type HistoryEvent, operationsFromEvents } from './history-event.js';
export {
  type ParseHistoryOptions,
  parseHistory,
  type ReadHistoryOptions,
  readHistoryFile,
  serializeHistory,
  writeHistoryFile,
} from './history-file.js';
export { HistoryRecorder, type HistoryRecorderOptions, type OperationHandle } from './history-recorder.js';
export { isKvInput, isKvOutput, type KvInput, type KvOutput, type KvState, kvModel } from './kv-model.js';
export { type Model, REJECTED, type Rejected } from './model.js';
export type { Operation } from './operation.js';
