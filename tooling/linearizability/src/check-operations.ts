import type { Model } from './model.js';
import { type Operation, validateOperations } from './operation.js';
import { type BudgetExhausted, type SearchBudget, WglSearch } from './wgl-search.js';

export interface CheckOptions {
  /**
   * The most (linearized set, state) pairs the search may explore, over all partitions: the work
   * it may do. Default 5,000,000 (a few seconds).
   */
  readonly maxStates?: number;
  /**
   * The most memory those pairs may take, counted as the bitset's bytes plus 48 per pair (a
   * 10,000-operation key costs about 1.3 KB a pair). Default 1 GiB: the search must end with a
   * verdict, not with the process out of memory.
   */
  readonly maxMemoryInBytes?: number;
  /** Wall-clock time the search may take. Default 60,000 ms. */
  readonly timeBudgetMs?: number;
  /** The clock the time budget is measured on; `performance.now` by default. */
  readonly nowMs?: () => number;
}

/** Why a history is not linearizable, in the partition (key) where no linearization exists. */
export interface Counterexample<State, Input, Output> {
  /** The longest prefix the search could linearize, in linearization order. */
  readonly linearized: readonly Operation<Input, Output>[];
  /** The model state after that prefix. */
  readonly stateAfterLinearized: State;
  /** The operations pending after that prefix: none of them can take effect next. */
  readonly unplaceable: readonly Operation<Input, Output>[];
  /** The operation that returned while still unplaced: the first one the prefix cannot absorb. */
  readonly blocking: Operation<Input, Output>;
}

export type CheckResult<State, Input, Output> =
  | {
      readonly ok: true;
      readonly outcome: 'linearizable';
      readonly partitions: number;
      /** (linearized set, state) pairs explored: the work done, to size `maxStates` by. */
      readonly exploredStates: number;
    }
  | {
      readonly ok: false;
      readonly outcome: 'not-linearizable';
      /** The partition key (`undefined` when the model does not partition). */
      readonly key: string | undefined;
      readonly counterexample: Counterexample<State, Input, Output>;
      readonly exploredStates: number;
    }
  | {
      // Never a pass: a search that ran out of budget proved nothing either way.
      readonly ok: false;
      readonly outcome: 'unknown';
      readonly key: string | undefined;
      readonly reason: BudgetExhausted;
    };

const DEFAULT_MAX_STATES = 5_000_000;
const DEFAULT_MAX_MEMORY_IN_BYTES = 1024 ** 3;
const DEFAULT_TIME_BUDGET_MS = 60_000;

/**
 * Checks that the operations are linearizable with respect to the model: there is one order of
 * all completed operations (and any subset of the unknown-outcome ones) that respects real time
 * (an operation that returned before another was called comes first) and that the model accepts
 * with the recorded outputs. Partitions are searched one after another in order of first
 * appearance; the first violation or exhausted budget ends the check.
 */
export function checkOperations<State, Input, Output>(
  model: Model<State, Input, Output>,
  operations: readonly Operation<Input, Output>[],
  options: CheckOptions = {},
): CheckResult<State, Input, Output> {
  validateOperations(operations);
  validateBounds(options);
  const nowMs = options.nowMs ?? (() => performance.now());
  const maxStates = options.maxStates ?? DEFAULT_MAX_STATES;
  const budget: SearchBudget = {
    remainingStates: maxStates,
    remainingBytes: options.maxMemoryInBytes ?? DEFAULT_MAX_MEMORY_IN_BYTES,
    deadlineMs: nowMs() + (options.timeBudgetMs ?? DEFAULT_TIME_BUDGET_MS),
    nowMs,
  };
  const partitions = partition(model, operations);
  for (const [key, members] of partitions) {
    const outcome = new WglSearch(model, members, budget).run();
    if (outcome.kind === 'unknown') return { ok: false, outcome: 'unknown', key, reason: outcome.reason };
    if (outcome.kind === 'not-linearizable') {
      const pick = (indices: readonly number[]) => indices.map((index) => members[index]!);
      return {
        ok: false,
        outcome: 'not-linearizable',
        key,
        counterexample: {
          linearized: pick(outcome.linearized),
          stateAfterLinearized: outcome.stateAfterLinearized,
          unplaceable: pick(outcome.unplaceable),
          blocking: members[outcome.blocking]!,
        },
        exploredStates: maxStates - budget.remainingStates,
      };
    }
  }
  return {
    ok: true,
    outcome: 'linearizable',
    partitions: partitions.size,
    exploredStates: maxStates - budget.remainingStates,
  };
}

/** A NaN bound would never run out: the search would be unbounded. */
function validateBounds(options: CheckOptions): void {
  for (const name of ['maxStates', 'maxMemoryInBytes', 'timeBudgetMs'] as const) {
    const bound = options[name];
    if (bound !== undefined && !(bound >= 0))
      throw new RangeError(`${name} must be a number >= 0, not ${bound}`);
  }
}

function partition<State, Input, Output>(
  model: Model<State, Input, Output>,
  operations: readonly Operation<Input, Output>[],
): Map<string | undefined, Operation<Input, Output>[]> {
  const partitions = new Map<string | undefined, Operation<Input, Output>[]>();
  for (const operation of operations) {
    // An unknown-outcome operation that changes nothing cannot affect the verdict.
    if (operation.return === undefined && model.isReadOnly?.(operation.input, undefined) === true) continue;
    const key = model.partitionKey?.(operation.input);
    let members = partitions.get(key);
    if (members === undefined) {
      members = [];
      partitions.set(key, members);
    }
    members.push(operation);
  }
  return partitions;
}
