import { HistoryRecorder, type KvInput, type KvOutput } from '@kraft/linearizability';
import { describe, expect, it } from 'vitest';
import { checkFinalReads, checkKvHistory, countKvHistory, type FinalRead } from './kv-check.js';

/** A recorder on a clock that moves one tick per event: the order of calls is the order in time. */
function recorder(): HistoryRecorder<KvInput, KvOutput> {
  let time = 0;
  return new HistoryRecorder<KvInput, KvOutput>({ clock: () => time++ });
}

describe('checkKvHistory', () => {
  it('passes a history where every key is linearizable, checking each key on its own', () => {
    const history = recorder();
    history.invoke(0, { type: 'put', key: 'a', value: '0-0' }).ok(null);
    const concurrentPut = history.invoke(1, { type: 'put', key: 'b', value: '1-0' });
    history.invoke(2, { type: 'get', key: 'b' }).ok({ value: '1-0' });
    concurrentPut.ok(null);
    history.invoke(0, { type: 'cas', key: 'a', expected: '0-0', value: '0-1' }).ok({ swapped: true });
    history.invoke(1, { type: 'get', key: 'a' }).ok({ value: '0-1' });
    // Unknown outcomes may or may not have taken effect; a failed one did not.
    history.invoke(2, { type: 'put', key: 'a', value: '2-1' }).info();
    history.invoke(0, { type: 'put', key: 'b', value: '0-2' }).fail();
    history.invoke(1, { type: 'get', key: 'b' }).ok({ value: '1-0' });
    const check = checkKvHistory(history.events());
    expect(check.valid).toBe(true);
    expect(check.keys.map((key) => [key.key, key.outcome, key.operations])).toEqual([
      ['a', 'linearizable', 4],
      ['b', 'linearizable', 3],
    ]);
    expect(check.counts).toEqual({ operations: 8, ok: 6, fail: 1, info: 1 });
    expect(check.problems).toEqual([]);
  });

  it('fails the key a stale read is on, and only that key', () => {
    const history = recorder();
    history.invoke(0, { type: 'put', key: 'a', value: 'old' }).ok(null);
    history.invoke(0, { type: 'put', key: 'a', value: 'new' }).ok(null);
    // Called after 'new' was acknowledged, it answered what a lagging follower still held.
    history.invoke(1, { type: 'get', key: 'a' }).ok({ value: 'old' });
    history.invoke(2, { type: 'put', key: 'b', value: 'x' }).ok(null);
    const check = checkKvHistory(history.events());
    expect(check.valid).toBe(false);
    expect(check.violations).toBe(1);
    expect(check.keys.find((key) => key.key === 'b')?.outcome).toBe('linearizable');
    const a = check.keys.find((key) => key.key === 'a');
    expect(a?.outcome).toBe('not-linearizable');
    expect(a?.detail).toContain('get("a") -> "old"');
    expect(check.problems).toEqual([expect.stringMatching(/^not linearizable for key "a": /)]);
  });

  it('fails, never passes, a key whose search runs out of its bound', () => {
    const history = recorder();
    const pending = Array.from({ length: 6 }, (_, client) =>
      history.invoke(client, { type: 'put', key: 'a', value: `${client}-0` }),
    );
    for (const handle of pending) handle.ok(null);
    history.invoke(0, { type: 'get', key: 'a' }).ok({ value: '0-0' });
    const check = checkKvHistory(history.events(), { maxStatesPerKey: 1, timeBudgetPerKeyMs: 60_000 });
    expect(check.keys[0]?.outcome).toBe('unknown');
    expect(check.keys[0]?.exploredStates).toBeUndefined();
    expect(check.unknown).toBe(1);
    expect(check.valid).toBe(false);
    expect(check.problems[0]).toMatch(/ran out of its max-states budget/);
  });

  it('counts an operation never completed as an unknown outcome', () => {
    const history = recorder();
    history.invoke(0, { type: 'put', key: 'a', value: '0-0' });
    history.invoke(1, { type: 'get', key: 'a' }).fail();
    expect(countKvHistory(history.events())).toEqual({ operations: 2, ok: 0, fail: 1, info: 1 });
  });
});

describe('checkFinalReads', () => {
  const origins = ['http://10.213.0.1:8080', 'http://10.213.0.2:8080'];
  const read = (key: string, value: string | null, nodes: (string | null)[]): FinalRead => ({
    key,
    linearizable: { value },
    nodes: Object.fromEntries(origins.map((origin, index) => [origin, { value: nodes[index] ?? null }])),
  });

  it('accepts maps that all hold what the linearizable reads returned, absent keys included', () => {
    expect(checkFinalReads([read('a', 'x', ['x', 'x']), read('b', null, [null, null])], origins)).toEqual({
      problems: [],
      equalKeys: 2,
    });
  });

  it('names each node whose map differs, a node that did not answer, and a failed final read', () => {
    const missing: FinalRead = {
      key: 'c',
      linearizable: { value: 'z' },
      nodes: { [origins[0] as string]: { value: 'z' }, [origins[1] as string]: { error: 'ECONNREFUSED' } },
    };
    const failed: FinalRead = { key: 'd', linearizable: { error: 'no answer within 30000 ms' }, nodes: {} };
    const { problems, equalKeys } = checkFinalReads([read('a', 'x', ['x', 'y']), missing, failed], origins);
    expect(equalKeys).toBe(0);
    expect(problems).toEqual([
      'final map of http://10.213.0.2:8080 holds "y" for "a", the linearizable get "x"',
      'final map of http://10.213.0.2:8080 holds error ECONNREFUSED for "c", the linearizable get "z"',
      'final linearizable get of "d" failed: no answer within 30000 ms',
    ]);
  });
});
