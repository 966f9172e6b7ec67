import type { StateMachineSnapshotReader, StateMachineSnapshotWriter } from '@kraft/raft';
import { describe, expect, it } from 'vitest';
import { type KvCommand, KvStateMachine } from '../src/kv-state-machine.js';

const AT = { offset: 0, epoch: 1 };

function snapshotOf(source: KvStateMachine): KvCommand[] {
  const values: KvCommand[] = [];
  const writer: StateMachineSnapshotWriter<KvCommand> = {
    lastContained: AT,
    append: (batch) => void values.push(...batch),
  };
  source.snapshot(writer);
  return values;
}

function readerOf(values: KvCommand[]): StateMachineSnapshotReader<KvCommand> {
  return { lastContained: AT, [Symbol.iterator]: () => values[Symbol.iterator]() };
}

describe('KvStateMachine', () => {
  it('applies put, delete and compare-and-set, a cas only when the current value matches', () => {
    const machine = new KvStateMachine();
    machine.apply({ type: 'put', key: 'k', value: 'a', requestId: '1' });
    machine.expect('2');
    machine.apply({ type: 'cas', key: 'k', expected: 'b', value: 'c', requestId: '2' });
    expect(machine.takeResult('2')).toEqual({ swapped: false });
    expect(machine.get('k')).toBe('a');
    machine.expect('3');
    machine.apply({ type: 'cas', key: 'k', expected: 'a', value: 'c', requestId: '3' });
    expect(machine.takeResult('3')).toEqual({ swapped: true });
    expect(machine.get('k')).toBe('c');
    machine.apply({ type: 'cas', key: 'k', expected: 'c', value: null, requestId: '4' });
    expect(machine.get('k')).toBeNull();
    machine.apply({ type: 'cas', key: 'k', expected: null, value: 'd', requestId: '5' });
    expect(machine.get('k')).toBe('d');
    machine.apply({ type: 'delete', key: 'k', requestId: '6' });
    expect(machine.get('k')).toBeNull();
  });

  it('keeps results only for requests this process waits on, and forgets them once taken', () => {
    const machine = new KvStateMachine();
    machine.apply({ type: 'put', key: 'k', value: 'a', requestId: 'other-node' });
    expect(machine.takeResult('other-node')).toBeUndefined();
    machine.expect('mine');
    machine.apply({ type: 'put', key: 'k', value: 'b', requestId: 'mine' });
    expect(machine.takeResult('mine')).toEqual({ swapped: true });
    expect(machine.takeResult('mine')).toBeUndefined();
    // Abandoned (taken before it applied): applying it later records nothing.
    machine.expect('abandoned');
    expect(machine.takeResult('abandoned')).toBeUndefined();
    machine.apply({ type: 'put', key: 'k', value: 'c', requestId: 'abandoned' });
    expect(machine.takeResult('abandoned')).toBeUndefined();
  });

  it('restores from its snapshot the same map, replacing what it held', () => {
    const source = new KvStateMachine();
    source.apply({ type: 'put', key: 'a', value: '1', requestId: '' });
    source.apply({ type: 'put', key: 'b', value: '2', requestId: '' });
    source.apply({ type: 'delete', key: 'a', requestId: '' });
    const target = new KvStateMachine();
    target.apply({ type: 'put', key: 'stale', value: 'x', requestId: '' });
    target.restore(readerOf(snapshotOf(source)));
    expect([target.get('a'), target.get('b'), target.get('stale'), target.size()]).toEqual([
      null,
      '2',
      null,
      1,
    ]);
  });
});
