import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Counterexample,
  checkOperations,
  type KvInput,
  type KvOutput,
  type KvState,
  kvModel,
  REJECTED,
} from '../src/index.js';
import type { KvOperation } from './kv-operations.js';

const keys = ['x', 'y', 'z'];
const values = ['a', 'b', 'c'];
const NEVER_WRITTEN = 'never written';
const collidingKvModel = { ...kvModel, hash: () => 7 };

const inputArbitrary: fc.Arbitrary<KvInput> = fc.oneof(
  fc.record({ type: fc.constant('get' as const), key: fc.constantFrom(...keys) }),
  fc.record({
    type: fc.constant('put' as const),
    key: fc.constantFrom(...keys),
    value: fc.constantFrom(...values),
  }),
  fc.record({ type: fc.constant('delete' as const), key: fc.constantFrom(...keys) }),
  fc.record({
    type: fc.constant('cas' as const),
    key: fc.constantFrom(...keys),
    expected: fc.constantFrom(null, ...values),
    value: fc.constantFrom(null, ...values),
  }),
);

/** What a real map returns for `input`, applying it. */
function execute(map: Map<string, string>, input: KvInput): KvOutput {
  const current = map.get(input.key) ?? null;
  switch (input.type) {
    case 'get':
      return { value: current };
    case 'put':
      map.set(input.key, input.value);
      return null;
    case 'delete':
      map.delete(input.key);
      return null;
    case 'cas': {
      if (current !== input.expected) return { swapped: false };
      if (input.value === null) map.delete(input.key);
      else map.set(input.key, input.value);
      return { swapped: true };
    }
  }
}

interface Step {
  readonly input: KvInput;
  readonly before: number;
  readonly after: number;
  readonly outcome: 'ok' | 'info' | 'never-applied';
}

const stepArbitrary: fc.Arbitrary<Step> = fc.record({
  input: inputArbitrary,
  before: fc.integer({ min: 0, max: 60 }),
  after: fc.integer({ min: 0, max: 60 }),
  outcome: fc.constantFrom('ok', 'ok', 'ok', 'ok', 'info', 'never-applied'),
});

/**
 * Runs the steps one after another on a real map, the i-th taking effect at time 10 i, and gives
 * each an interval around that point of random width, so that neighbours overlap. An `info`
 * operation took effect but its client never learnt the output; a `never-applied` one is an
 * unknown-outcome operation that did not take effect at all.
 */
function sequentialHistory(steps: readonly Step[]): KvOperation[] {
  const map = new Map<string, string>();
  return steps.map((step, index): KvOperation => {
    const clientId = index % 8;
    const call = index * 10 - step.before;
    if (step.outcome === 'never-applied')
      return { clientId, input: step.input, call, return: undefined, output: undefined };
    const output = execute(map, step.input);
    if (step.outcome === 'info')
      return { clientId, input: step.input, call, return: undefined, output: undefined };
    return { clientId, input: step.input, call, return: index * 10 + step.after, output };
  });
}

describe('checkOperations properties', () => {
  it('accepts every history recorded from a real sequential execution with overlapping intervals', () => {
    fc.assert(
      fc.property(fc.array(stepArbitrary, { maxLength: 120 }), (steps) => {
        expect(checkOperations(kvModel, sequentialHistory(steps)).outcome).toBe('linearizable');
      }),
      { numRuns: 300 },
    );
  });

  it('rejects the same histories once one completed read returns a value never written', () => {
    fc.assert(
      fc.property(fc.array(stepArbitrary, { minLength: 1, maxLength: 120 }), fc.nat(), (steps, pick) => {
        const history = sequentialHistory(steps);
        const reads = history.flatMap((operation, index) =>
          operation.input.type === 'get' && operation.return !== undefined ? [index] : [],
        );
        fc.pre(reads.length > 0);
        const target = reads[pick % reads.length]!;
        history[target] = { ...history[target]!, output: { value: NEVER_WRITTEN } };
        const result = checkOperations(kvModel, history);
        expect(result.outcome).toBe('not-linearizable');
        if (result.outcome === 'not-linearizable')
          expect(result.counterexample.blocking).toBe(history[target]);
      }),
      { numRuns: 300 },
    );
  });

  it('agrees with a brute-force search over every order of small random histories', () => {
    const operationArbitrary = fc
      .record({
        input: inputArbitrary.filter((input) => input.key !== 'z'),
        call: fc.integer({ min: 0, max: 30 }),
        duration: fc.integer({ min: 0, max: 15 }),
        unknown: fc.boolean(),
        read: fc.constantFrom(null, ...values.slice(0, 2)),
        swapped: fc.boolean(),
      })
      .map(({ input, call, duration, unknown, read, swapped }): KvOperation => {
        if (unknown) return { clientId: 0, input, call, return: undefined, output: undefined };
        const output = input.type === 'get' ? { value: read } : input.type === 'cas' ? { swapped } : null;
        return { clientId: 0, input, call, return: call + duration, output };
      });
    let violations = 0;
    fc.assert(
      fc.property(fc.array(operationArbitrary, { maxLength: 7 }), (history) => {
        const expected = bruteForceLinearizable(history);
        if (!expected) violations++;
        const result = checkOperations(kvModel, history);
        expect(result.ok).toBe(expected);
        if (result.outcome === 'not-linearizable') expectValidCounterexample(result.counterexample, history);
        // Every state in one hash bucket: the explored set must tell pairs apart by comparing them.
        expect(checkOperations(collidingKvModel, history).ok).toBe(expected);
      }),
      { numRuns: 1500 },
    );
    // The random outputs must produce both verdicts often, or the comparison proves little.
    expect(violations).toBeGreaterThan(300);
    expect(violations).toBeLessThan(1200);
  });
});

/**
 * A counterexample's prefix is a legal run of its key's operations that respects real time and
 * ends in the state it names; the blocking operation is among the pending ones, and those are
 * neither in the prefix nor of another key.
 */
function expectValidCounterexample(
  counterexample: Counterexample<KvState, KvInput, KvOutput>,
  history: readonly KvOperation[],
): void {
  const { linearized, stateAfterLinearized, unplaceable, blocking } = counterexample;
  const key = blocking.input.key;
  const inHistory = new Set(history);
  const problems: string[] = [];
  let state: KvState = null;
  // Plain checks collected into one assertion: an expect per pair is quadratic in expect calls.
  linearized.forEach((operation, position) => {
    if (!inHistory.has(operation) || operation.input.key !== key)
      problems.push(`${position}: foreign operation`);
    const next = kvModel.step(
      state,
      operation.input,
      operation.return === undefined ? undefined : operation.output,
    );
    if (next === REJECTED) problems.push(`${position}: rejected by the model`);
    else state = next;
    const returnedBefore = linearized
      .slice(position + 1)
      .some((later) => later.return !== undefined && later.return < operation.call);
    if (returnedBefore)
      problems.push(`${position}: placed before an operation that returned before its call`);
  });
  const prefix = new Set(linearized);
  for (const operation of unplaceable) {
    if (prefix.has(operation) || operation.input.key !== key)
      problems.push('unplaceable operation in the prefix or of another key');
  }
  expect(problems).toEqual([]);
  expect(state).toBe(stateAfterLinearized);
  expect(unplaceable).toContain(blocking);
}

/**
 * The definition, searched naively over the whole map (no partitions, no memo): some order of the
 * completed operations and of any subset of the unknown ones respects real time and the model.
 * An unknown operation left out is one placed after every completed one.
 */
function bruteForceLinearizable(history: readonly KvOperation[]): boolean {
  const search = (remaining: readonly KvOperation[], map: ReadonlyMap<string, KvState>): boolean => {
    if (remaining.every((operation) => operation.return === undefined)) return true;
    return remaining.some((candidate) => {
      const mustComeFirst = remaining.some(
        (other) => other !== candidate && other.return !== undefined && other.return < candidate.call,
      );
      if (mustComeFirst) return false;
      const { key } = candidate.input;
      const next = kvModel.step(map.get(key) ?? null, candidate.input, candidate.output);
      if (next === REJECTED) return false;
      return search(
        remaining.filter((operation) => operation !== candidate),
        new Map(map).set(key, next),
      );
    });
  };
  return search(history, new Map());
}
