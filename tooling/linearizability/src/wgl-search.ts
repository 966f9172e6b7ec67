import { ExploredSet } from './explored-set.js';
import { type Model, REJECTED } from './model.js';
import type { Operation } from './operation.js';

/** Shared by the partitions of one check, so the caller's bound covers the whole history. */
export interface SearchBudget {
  remainingStates: number;
  remainingBytes: number;
  readonly deadlineMs: number;
  readonly nowMs: () => number;
}

export type PartitionOutcome<State> =
  | { readonly kind: 'linearizable' }
  | {
      readonly kind: 'not-linearizable';
      /** Indices into the partition's operations, in linearization order. */
      readonly linearized: readonly number[];
      readonly stateAfterLinearized: State;
      readonly unplaceable: readonly number[];
      readonly blocking: number;
    }
  | { readonly kind: 'unknown'; readonly reason: BudgetExhausted };

export type BudgetExhausted = 'max-states' | 'max-memory' | 'time-budget';

const NONE = -1;
// Reading the clock costs far more than one search step; every 4,096 steps keeps the overrun of a
// time budget well under a millisecond.
const CLOCK_CHECK_MASK = 4095;
// Fixed, so that a history's search (and its counterexample) is the same on every run.
const ZOBRIST_SEED = 0x2545f491;

/**
 * The Wing & Gong search as Lowe improved it, with Porcupine's memoisation, over one partition.
 *
 * The operations' call and return events, sorted by time, form a doubly linked list. The search
 * walks it from the front: at a call it tries to linearize that operation next (the model accepts
 * it in the current state), removing its call and return from the list and starting again from
 * the front; at a return it has reached an operation that completed without being linearized, so
 * it undoes the last choice and tries the next candidate after it. The list empties (or holds only
 * calls of unknown-outcome operations, which may never take effect) exactly when every completed
 * operation has a linearization point. A (linearized set, model state) pair already explored is
 * not explored again: the search from it does not depend on how it was reached.
 */
export class WglSearch<State, Input, Output> {
  private readonly model: Model<State, Input, Output>;
  private readonly operations: readonly Operation<Input, Output>[];
  private readonly budget: SearchBudget;
  // The event list: entries 0..entryCount-1 in time order, `head` a sentinel before the first.
  private readonly head: number;
  private readonly next: Int32Array;
  private readonly previous: Int32Array;
  private readonly entryOperation: Int32Array;
  private readonly entryIsReturn: Uint8Array;
  private readonly returnEntryOf: Int32Array;
  // The linearized set as a bitset, and its Zobrist hash (XOR of one random word per member).
  private readonly linearized: Uint32Array;
  private readonly zobrist: Int32Array;
  private linearizedHash = 0;
  private readonly explored: ExploredSet<State>;
  private readonly bytesPerState: number;
  // The choices made so far: the call entry linearized and the state before it. A forced choice
  // (a read-only operation, placed as soon as the model accepts it) has no alternatives to try.
  private readonly stackEntries: Int32Array;
  private readonly stackForced: Uint8Array;
  private readonly stackStates: State[];
  private readonly readOnly: Uint8Array;
  private stackLength = 0;
  // The deepest point reached, for the counterexample. `lowWater` is the shallowest the stack has
  // been since then, so a deeper record copies only the part of the stack that changed.
  private deepest = NONE;
  private readonly deepestPrefix: number[] = [];
  private lowWater = 0;
  private deepestState: State;
  private deepestUnplaceable: number[] = [];
  private deepestBlocking = NONE;

  constructor(
    model: Model<State, Input, Output>,
    operations: readonly Operation<Input, Output>[],
    budget: SearchBudget,
  ) {
    this.model = model;
    this.operations = operations;
    this.budget = budget;
    const operationCount = operations.length;
    const order = sortedEvents(operations);
    const entryCount = order.length;
    this.head = entryCount;
    this.next = new Int32Array(entryCount + 1);
    this.previous = new Int32Array(entryCount + 1);
    this.entryOperation = new Int32Array(entryCount);
    this.entryIsReturn = new Uint8Array(entryCount);
    this.returnEntryOf = new Int32Array(operationCount).fill(NONE);
    for (let entry = 0; entry < entryCount; entry++) {
      const event = order[entry]!;
      const operation = event >>> 1;
      this.entryOperation[entry] = operation;
      if ((event & 1) === 1) {
        this.entryIsReturn[entry] = 1;
        this.returnEntryOf[operation] = entry;
      }
      this.next[entry] = entry + 1 < entryCount ? entry + 1 : NONE;
      this.previous[entry] = entry === 0 ? this.head : entry - 1;
    }
    this.next[this.head] = entryCount > 0 ? 0 : NONE;
    this.previous[this.head] = NONE;
    this.linearized = new Uint32Array(Math.ceil(operationCount / 32));
    this.explored = new ExploredSet<State>((a, b) => model.equal(a, b), this.linearized.length);
    this.bytesPerState = ExploredSet.bytesPerState(this.linearized.length);
    this.zobrist = zobristWords(operationCount);
    this.stackEntries = new Int32Array(operationCount);
    this.stackForced = new Uint8Array(operationCount);
    this.readOnly = readOnlyFlags(model, operations);
    this.stackStates = new Array<State>(operationCount);
    this.deepestState = model.init();
  }

  run(): PartitionOutcome<State> {
    const { model, operations, next, entryOperation, budget } = this;
    let state = model.init();
    let entry = next[this.head]!;
    let steps = 0;
    while (entry !== NONE) {
      if ((++steps & CLOCK_CHECK_MASK) === 0 && budget.nowMs() > budget.deadlineMs) {
        return { kind: 'unknown', reason: 'time-budget' };
      }
      if (this.entryIsReturn[entry] === 1) {
        // An operation returned before any linearization point could be found for it.
        this.recordIfDeepest(entry, state);
        // Undo choices until one has alternatives left; a forced one has none.
        let callEntry: number;
        let forced: boolean;
        do {
          if (this.stackLength === 0) return this.counterexample();
          forced = this.stackForced[this.stackLength - 1] === 1;
          callEntry = this.pop();
        } while (forced);
        state = this.stackStates[this.stackLength]!;
        entry = next[callEntry]!;
        continue;
      }
      const operationIndex = entryOperation[entry]!;
      const operation = operations[operationIndex]!;
      const output = operation.return === undefined ? undefined : operation.output;
      const nextState = model.step(state, operation.input, output);
      if (nextState !== REJECTED && this.markIfUnexplored(operationIndex, nextState)) {
        const exhausted = this.chargeState();
        if (exhausted !== undefined) return { kind: 'unknown', reason: exhausted };
        this.push(entry, state, this.readOnly[operationIndex] === 1);
        state = nextState;
        entry = next[this.head]!;
      } else {
        entry = next[entry]!;
      }
    }
    return { kind: 'linearizable' };
  }

  private chargeState(): BudgetExhausted | undefined {
    const { budget } = this;
    budget.remainingStates--;
    budget.remainingBytes -= this.bytesPerState;
    if (budget.remainingStates < 0) return 'max-states';
    return budget.remainingBytes < 0 ? 'max-memory' : undefined;
  }

  /** Adds the operation to the linearized set; keeps it there only if the pair is new. */
  private markIfUnexplored(operationIndex: number, nextState: State): boolean {
    const word = operationIndex >>> 5;
    const bit = 1 << (operationIndex & 31);
    this.linearized[word]! |= bit;
    this.linearizedHash ^= this.zobrist[operationIndex]!;
    const key = (this.linearizedHash ^ Math.imul(this.model.hash(nextState), 0x9e3779b1)) | 0;
    if (this.explored.addIfAbsent(key, this.linearized, nextState)) return true;
    this.linearized[word]! &= ~bit;
    this.linearizedHash ^= this.zobrist[operationIndex]!;
    return false;
  }

  private push(callEntry: number, stateBefore: State, forced: boolean): void {
    this.stackEntries[this.stackLength] = callEntry;
    this.stackForced[this.stackLength] = forced ? 1 : 0;
    this.stackStates[this.stackLength] = stateBefore;
    this.stackLength++;
    this.unlink(callEntry);
    const returnEntry = this.returnEntryOf[this.entryOperation[callEntry]!]!;
    if (returnEntry !== NONE) this.unlink(returnEntry);
  }

  /** Undoes the last choice; the caller restores the state from `stackStates[stackLength]`. */
  private pop(): number {
    this.stackLength--;
    if (this.stackLength < this.lowWater) this.lowWater = this.stackLength;
    const callEntry = this.stackEntries[this.stackLength]!;
    const operationIndex = this.entryOperation[callEntry]!;
    this.linearized[operationIndex >>> 5]! &= ~(1 << (operationIndex & 31));
    this.linearizedHash ^= this.zobrist[operationIndex]!;
    // Dancing links: relink in the reverse order of unlinking.
    const returnEntry = this.returnEntryOf[operationIndex]!;
    if (returnEntry !== NONE) this.relink(returnEntry);
    this.relink(callEntry);
    return callEntry;
  }

  private unlink(entry: number): void {
    const before = this.previous[entry]!;
    const after = this.next[entry]!;
    this.next[before] = after;
    if (after !== NONE) this.previous[after] = before;
  }

  private relink(entry: number): void {
    this.next[this.previous[entry]!] = entry;
    const after = this.next[entry]!;
    if (after !== NONE) this.previous[after] = entry;
  }

  private recordIfDeepest(returnEntry: number, state: State): void {
    if (this.stackLength <= this.deepest) return;
    this.deepestPrefix.length = this.lowWater;
    for (let depth = this.lowWater; depth < this.stackLength; depth++) {
      this.deepestPrefix.push(this.entryOperation[this.stackEntries[depth]!]!);
    }
    this.lowWater = this.stackLength;
    this.deepest = this.stackLength;
    this.deepestState = state;
    this.deepestBlocking = this.entryOperation[returnEntry]!;
    // The operations still pending before this return: none of them could come next.
    const unplaceable: number[] = [];
    for (let entry = this.next[this.head]!; entry !== returnEntry; entry = this.next[entry]!) {
      if (this.entryIsReturn[entry] === 0) unplaceable.push(this.entryOperation[entry]!);
    }
    this.deepestUnplaceable = unplaceable;
  }

  private counterexample(): PartitionOutcome<State> {
    return {
      kind: 'not-linearizable',
      linearized: this.deepestPrefix.slice(),
      stateAfterLinearized: this.deepestState,
      unplaceable: this.deepestUnplaceable,
      blocking: this.deepestBlocking,
    };
  }
}

/**
 * The call and return events of the operations in time order, each as `operation * 2 + isReturn`.
 * At equal times calls sort before returns: two operations that touch the same instant are taken
 * as concurrent, which never reports a violation the clock cannot prove. Unknown-outcome
 * operations have no return event: they stay pending to the end.
 */
function sortedEvents<Input, Output>(operations: readonly Operation<Input, Output>[]): Int32Array {
  let eventCount = 0;
  for (const operation of operations) eventCount += operation.return === undefined ? 1 : 2;
  const events = new Int32Array(eventCount);
  let position = 0;
  for (let index = 0; index < operations.length; index++) {
    events[position++] = index * 2;
    if (operations[index]!.return !== undefined) events[position++] = index * 2 + 1;
  }
  const timeOf = (event: number): number => {
    const operation = operations[event >>> 1]!;
    return (event & 1) === 1 ? operation.return! : operation.call;
  };
  return events.sort((a, b) => timeOf(a) - timeOf(b) || (a & 1) - (b & 1) || a - b);
}

/** Which operations are completed and read-only with their output: their placement is forced. */
function readOnlyFlags<State, Input, Output>(
  model: Model<State, Input, Output>,
  operations: readonly Operation<Input, Output>[],
): Uint8Array {
  const flags = new Uint8Array(operations.length);
  operations.forEach((operation, index) => {
    const completed = operation.return !== undefined;
    if (completed && model.isReadOnly?.(operation.input, operation.output) === true) flags[index] = 1;
  });
  return flags;
}

function zobristWords(count: number): Int32Array {
  // mulberry32: small, fast and good enough to make hash collisions rare (they are resolved by
  // comparing the sets anyway).
  let seed = ZOBRIST_SEED;
  const words = new Int32Array(count);
  for (let index = 0; index < count; index++) {
    seed = (seed + 0x6d2b79f5) | 0;
    let mixed = Math.imul(seed ^ (seed >>> 15), seed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    words[index] = mixed ^ (mixed >>> 14);
  }
  return words;
}
