import { describe, expect, it } from 'vitest';
import { checkOperations, formatCheckResult, HistoryError, kvModel } from '../src/index.js';
import { cas, get, type KvOperation, put, remove } from './kv-operations.js';

const check = (operations: KvOperation[], options = {}) => checkOperations(kvModel, operations, options);

function expectViolation(operations: KvOperation[]) {
  const result = check(operations);
  if (result.outcome !== 'not-linearizable') throw new Error(`expected a violation, got ${result.outcome}`);
  return result;
}

describe('checkOperations over the key-value model', () => {
  it('accepts an empty history and a sequential one', () => {
    expect(check([]).ok).toBe(true);
    expect(
      check([
        put(0, 0, 10, 'x', 'a'),
        get(1, 20, 30, 'x', 'a'),
        remove(0, 40, 50, 'x'),
        get(1, 60, 70, 'x', null),
      ]),
    ).toEqual({ ok: true, outcome: 'linearizable', partitions: 1, exploredStates: 4 });
  });

  it('rejects a stale read after a completed write', () => {
    const history = [put(0, 0, 10, 'x', 'a'), put(0, 20, 30, 'x', 'b'), get(1, 40, 50, 'x', 'a')];
    const result = expectViolation(history);
    expect(result.key).toBe('x');
    expect(result.counterexample.linearized).toEqual([history[0], history[1]]);
    expect(result.counterexample.stateAfterLinearized).toBe('b');
    expect(result.counterexample.blocking).toBe(history[2]);
    expect(result.counterexample.unplaceable).toEqual([history[2]]);
  });

  it('reports the deepest prefix even when it was reached after backtracking below an earlier one', () => {
    // The search first orders the writes a, b and fails at the first read (depth 2); it then
    // orders them b, a, passes that read and fails deeper, at the impossible second read.
    const [writeA, writeB] = [put(0, 0, 10, 'x', 'a'), put(1, 0, 10, 'x', 'b')];
    const [readA, impossibleRead] = [get(2, 20, 30, 'x', 'a'), get(2, 40, 50, 'x', 'never written')];
    const { counterexample } = expectViolation([writeA, writeB, readA, impossibleRead]);
    expect(counterexample.linearized).toEqual([writeB, writeA, readA]);
    expect(counterexample.stateAfterLinearized).toBe('a');
    expect(counterexample.blocking).toBe(impossibleRead);
  });

  it('rejects a lost write: a read after an acknowledged put sees nothing', () => {
    expectViolation([put(0, 0, 10, 'x', 'a'), get(1, 20, 30, 'x', null)]);
  });

  it('rejects a read of a value before the write of it was invoked', () => {
    expectViolation([get(1, 0, 10, 'x', 'a'), put(0, 20, 30, 'x', 'a')]);
  });

  it('rejects a compare-and-set that succeeded on the wrong value, and one that failed on the right value', () => {
    expectViolation([put(0, 0, 10, 'x', 'a'), cas(1, 20, 30, 'x', 'b', 'c', true)]);
    expectViolation([put(0, 0, 10, 'x', 'a'), cas(1, 20, 30, 'x', 'a', 'c', false)]);
    expect(
      check([put(0, 0, 10, 'x', 'a'), cas(1, 20, 30, 'x', 'b', 'c', false), get(2, 40, 50, 'x', 'a')]).ok,
    ).toBe(true);
    expect(
      check([
        cas(1, 0, 10, 'x', null, 'c', true),
        cas(2, 20, 30, 'x', 'c', null, true),
        get(2, 40, 50, 'x', null),
      ]).ok,
    ).toBe(true);
  });

  it('accepts either order of two overlapping writes, but only one order for all readers', () => {
    const writes = [put(0, 0, 100, 'x', 'a'), put(1, 10, 90, 'x', 'b')];
    expect(check([...writes, get(2, 110, 120, 'x', 'a')]).ok).toBe(true);
    expect(check([...writes, get(2, 110, 120, 'x', 'b')]).ok).toBe(true);
    // Two readers during the writes may see them land in either order...
    expect(check([...writes, get(2, 20, 30, 'x', 'b'), get(3, 40, 50, 'x', 'a')]).ok).toBe(true);
    // ...but once both have landed the value cannot flip back.
    expectViolation([...writes, get(2, 110, 120, 'x', 'a'), get(3, 130, 140, 'x', 'b')]);
  });

  it('lets an unknown-outcome write take effect late, or never, but not undo itself', () => {
    const lateWrite = put(0, 0, undefined, 'x', 'a');
    expect(check([lateWrite, get(1, 10, 20, 'x', null), get(1, 30, 40, 'x', 'a')]).ok).toBe(true);
    expect(check([lateWrite, get(1, 10, 20, 'x', null), get(1, 1000, 1010, 'x', null)]).ok).toBe(true);
    expectViolation([lateWrite, get(1, 10, 20, 'x', 'a'), get(1, 30, 40, 'x', null)]);
    // It cannot take effect before it was invoked.
    expectViolation([get(1, 0, 5, 'x', 'a'), put(0, 10, undefined, 'x', 'a')]);
  });

  it('applies an unknown-outcome compare-and-set only where its expected value holds', () => {
    const setup = put(0, 0, 10, 'x', 'a');
    expect(check([setup, cas(1, 20, undefined, 'x', 'a', 'b', true), get(2, 30, 40, 'x', 'b')]).ok).toBe(
      true,
    );
    expectViolation([setup, cas(1, 20, undefined, 'x', 'z', 'b', true), get(2, 30, 40, 'x', 'b')]);
  });

  it('drops unknown-outcome reads before the search', () => {
    const result = check([put(0, 0, 10, 'x', 'a'), get(1, 0, undefined, 'y', 'never')]);
    expect(result).toEqual({ ok: true, outcome: 'linearizable', partitions: 1, exploredStates: 1 });
  });

  it('treats operations touching the same instant as concurrent', () => {
    expect(check([put(0, 0, 10, 'x', 'a'), get(1, 10, 20, 'x', null)]).ok).toBe(true);
    expectViolation([put(0, 0, 10, 'x', 'a'), get(1, 11, 20, 'x', null)]);
  });

  it('checks each key on its own and names the key that fails', () => {
    const result = expectViolation([
      put(0, 0, 10, 'x', 'a'),
      put(1, 0, 10, 'y', 'a'),
      get(2, 20, 30, 'x', 'a'),
      get(3, 20, 30, 'y', 'b'),
    ]);
    expect(result.key).toBe('y');
    expect(check([put(0, 0, 10, 'x', 'a'), put(1, 0, 10, 'y', 'b'), get(2, 20, 30, 'x', 'a')])).toMatchObject(
      {
        partitions: 2,
      },
    );
  });

  it('backtracks through several wrong first choices', () => {
    // Three concurrent writes; the reads afterwards fix their order as c, a, b, and the search
    // tries a first.
    const history = [
      put(0, 0, 100, 'x', 'a'),
      put(1, 0, 100, 'x', 'b'),
      put(2, 0, 100, 'x', 'c'),
      get(3, 10, 20, 'x', 'c'),
      get(3, 30, 40, 'x', 'a'),
      get(3, 110, 120, 'x', 'b'),
    ];
    expect(check(history).ok).toBe(true);
    expectViolation([...history, get(3, 130, 140, 'x', 'c')]);
  });

  describe('Porcupine-style register regressions', () => {
    it('accepts a read of the old value that overlaps the write', () => {
      expect(
        check([put(0, 0, 100, 'r', '100'), get(1, 25, 75, 'r', '100'), get(2, 30, 60, 'r', null)]).ok,
      ).toBe(true);
    });

    it('rejects a read of the old value after another read saw the new one', () => {
      expectViolation([put(0, 0, 100, 'r', '200'), get(1, 10, 30, 'r', '200'), get(2, 40, 90, 'r', null)]);
    });

    it('rejects a compare-and-set register history whose swaps contradict each other', () => {
      expectViolation([
        put(0, 0, 10, 'r', '0'),
        cas(1, 20, 50, 'r', '0', '1', true),
        cas(2, 20, 50, 'r', '0', '2', true),
      ]);
      expect(
        check([
          put(0, 0, 10, 'r', '0'),
          cas(1, 20, 50, 'r', '0', '1', true),
          cas(2, 20, 50, 'r', '0', '2', false),
        ]).ok,
      ).toBe(true);
    });
  });

  it('places a read as soon as the model accepts it, with no search over other orders', () => {
    // All concurrent; the last read is impossible. Without the rule the search also tries the put
    // before the first read: one more state.
    const history = [
      get(0, 0, 100, 'x', null),
      put(1, 0, 100, 'x', 'a'),
      get(2, 0, 100, 'x', 'never written'),
    ];
    const { isReadOnly: _, ...modelWithoutReadOnly } = kvModel;
    expect(check(history)).toMatchObject({ outcome: 'not-linearizable', exploredStates: 2 });
    expect(checkOperations(modelWithoutReadOnly, history)).toMatchObject({
      outcome: 'not-linearizable',
      exploredStates: 3,
    });
  });

  it('memoises: many concurrent writes followed by an impossible read exhaust in few states', () => {
    // Twelve concurrent writes have 12! orders; (written set, last value) pairs are 12 * 2^11.
    const writes = Array.from({ length: 12 }, (_, index) => put(index, 0, 100, 'x', `v${index}`));
    const result = check([...writes, get(12, 200, 210, 'x', 'never written')], {
      maxStates: 12 * 2 ** 11 + 12,
    });
    expect(result.outcome).toBe('not-linearizable');
  });

  it('reports unknown, never a pass, when the state budget runs out', () => {
    const writes = Array.from({ length: 12 }, (_, index) => put(index, 0, 100, 'x', `v${index}`));
    const result = check([...writes, get(12, 200, 210, 'x', 'never written')], { maxStates: 1000 });
    expect(result).toEqual({ ok: false, outcome: 'unknown', key: 'x', reason: 'max-states' });
  });

  it('reports unknown when the memory budget runs out', () => {
    const writes = Array.from({ length: 12 }, (_, index) => put(index, 0, 100, 'x', `v${index}`));
    const result = check([...writes, get(12, 200, 210, 'x', 'never written')], { maxMemoryInBytes: 100_000 });
    expect(result).toEqual({ ok: false, outcome: 'unknown', key: 'x', reason: 'max-memory' });
  });

  it('reports unknown when the time budget runs out', () => {
    const writes = Array.from({ length: 12 }, (_, index) => put(index, 0, 100, 'x', `v${index}`));
    let clockMs = 0;
    const result = check([...writes, get(12, 200, 210, 'x', 'never written')], {
      timeBudgetMs: 5,
      nowMs: () => clockMs++,
    });
    expect(result).toEqual({ ok: false, outcome: 'unknown', key: 'x', reason: 'time-budget' });
  });

  it('refuses bounds that could never run out', () => {
    expect(() => check([], { maxStates: Number.NaN })).toThrow(/maxStates must be a number >= 0, not NaN/);
    expect(() => check([], { timeBudgetMs: -1 })).toThrow(RangeError);
    expect(check([], { maxMemoryInBytes: Number.POSITIVE_INFINITY }).ok).toBe(true);
  });

  it('refuses operations that return before they are called or at no finite time', () => {
    expect(() => check([put(0, 10, 5, 'x', 'a')])).toThrow(HistoryError);
    expect(() => check([put(0, Number.NaN, 5, 'x', 'a')])).toThrow(/call time NaN/);
  });

  it('formats a violation with the prefix, the state and the pending operations', () => {
    const history = [put(0, 0, 10, 'x', 'a'), put(1, 20, 30, 'x', 'b'), get(2, 40, 50, 'x', 'a')];
    const text = formatCheckResult(kvModel, check(history));
    expect(text).toContain('not linearizable for key "x": client 2 [40, 50] get("x") -> "a" returned');
    expect(text).toContain('  client 1 [20, 30] put("x", "b")');
    expect(text).toContain('state after it: "b"');
    expect(formatCheckResult(kvModel, check(history.slice(0, 2)))).toBe('linearizable (1 partitions)');
  });
});
