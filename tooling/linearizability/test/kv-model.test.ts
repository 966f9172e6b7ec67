import { describe, expect, it } from 'vitest';
import { kvModel, REJECTED } from '../src/index.js';

describe('kvModel', () => {
  it('starts absent; put sets, delete clears, whatever their output', () => {
    expect(kvModel.init()).toBeNull();
    expect(kvModel.step(null, { type: 'put', key: 'k', value: 'a' }, null)).toBe('a');
    expect(kvModel.step('a', { type: 'delete', key: 'k' }, undefined)).toBeNull();
  });

  it('accepts a read only of the current value, and any unknown read', () => {
    expect(kvModel.step('a', { type: 'get', key: 'k' }, { value: 'a' })).toBe('a');
    expect(kvModel.step('a', { type: 'get', key: 'k' }, { value: null })).toBe(REJECTED);
    expect(kvModel.step(null, { type: 'get', key: 'k' }, { value: 'a' })).toBe(REJECTED);
    expect(kvModel.step('a', { type: 'get', key: 'k' }, { swapped: true })).toBe(REJECTED);
    expect(kvModel.step('a', { type: 'get', key: 'k' }, undefined)).toBe('a');
  });

  it('swaps exactly when the current value is the expected one; null expects absent and sets absent', () => {
    const swap = { type: 'cas', key: 'k', expected: 'a', value: 'b' } as const;
    expect(kvModel.step('a', swap, { swapped: true })).toBe('b');
    expect(kvModel.step('a', swap, { swapped: false })).toBe(REJECTED);
    expect(kvModel.step('c', swap, { swapped: false })).toBe('c');
    expect(kvModel.step('c', swap, { swapped: true })).toBe(REJECTED);
    expect(kvModel.step('a', swap, undefined)).toBe('b');
    expect(kvModel.step('c', swap, undefined)).toBe('c');
    expect(kvModel.step('a', swap, null)).toBe(REJECTED);
    expect(kvModel.step(null, { type: 'cas', key: 'k', expected: null, value: 'a' }, { swapped: true })).toBe(
      'a',
    );
    expect(
      kvModel.step('a', { type: 'cas', key: 'k', expected: 'a', value: null }, { swapped: true }),
    ).toBeNull();
  });

  it('hashes consistently with equality and keeps absent apart from strings', () => {
    expect(kvModel.hash('value')).toBe(kvModel.hash('value'));
    expect(kvModel.hash('value')).not.toBe(kvModel.hash('valuf'));
    expect(kvModel.hash(null)).not.toBe(kvModel.hash(''));
    expect(kvModel.equal('a', 'a')).toBe(true);
    expect(kvModel.equal('a', null)).toBe(false);
  });

  it('partitions by key and marks reads and compare-and-sets that did not swap as read-only', () => {
    const swap = { type: 'cas', key: 'k', expected: 'a', value: 'b' } as const;
    expect(kvModel.partitionKey?.({ type: 'delete', key: 'k' })).toBe('k');
    expect(kvModel.isReadOnly?.({ type: 'get', key: 'k' }, { value: 'a' })).toBe(true);
    expect(kvModel.isReadOnly?.({ type: 'get', key: 'k' }, undefined)).toBe(true);
    expect(kvModel.isReadOnly?.(swap, { swapped: false })).toBe(true);
    expect(kvModel.isReadOnly?.(swap, { swapped: true })).toBe(false);
    expect(kvModel.isReadOnly?.(swap, undefined)).toBe(false);
    expect(kvModel.isReadOnly?.({ type: 'put', key: 'k', value: 'a' }, null)).toBe(false);
  });

  it('describes operations for counterexamples', () => {
    const describe = kvModel.describe!;
    expect(describe({ type: 'get', key: 'k' }, { value: null })).toBe('get("k") -> null');
    expect(describe({ type: 'put', key: 'k', value: 'v' }, null)).toBe('put("k", "v")');
    expect(describe({ type: 'delete', key: 'k' }, undefined)).toBe('delete("k") -> ?');
    expect(describe({ type: 'cas', key: 'k', expected: null, value: 'v' }, { swapped: false })).toBe(
      'cas("k", null, "v") -> false',
    );
  });
});
