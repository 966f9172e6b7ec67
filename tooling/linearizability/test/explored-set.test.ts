import { describe, expect, it } from 'vitest';
import { ExploredSet } from '../src/explored-set.js';

const equal = (a: string, b: string) => a === b;

describe('ExploredSet', () => {
  it('tells pairs apart by their set and their state when their hashes collide', () => {
    const explored = new ExploredSet<string>(equal, 2);
    const bits = Uint32Array.of(1, 0);
    expect(explored.addIfAbsent(42, bits, 'a')).toBe(true);
    expect(explored.addIfAbsent(42, bits, 'a')).toBe(false);
    expect(explored.addIfAbsent(42, bits, 'b')).toBe(true);
    expect(explored.addIfAbsent(42, Uint32Array.of(1, 1), 'a')).toBe(true);
    expect(explored.addIfAbsent(42, Uint32Array.of(0, 1), 'a')).toBe(true);
    expect(explored.addIfAbsent(42, Uint32Array.of(1, 1), 'a')).toBe(false);
    expect(explored.addIfAbsent(7, bits, 'a')).toBe(true);
    expect(explored.size).toBe(5);
  });

  it('keeps sets intact across chunks and does not alias the bitset it is given', () => {
    // 300,000 words a set: three sets to a 2^20-word chunk, so ten sets span four chunks.
    const wordsPerSet = 300_000;
    const explored = new ExploredSet<string>(equal, wordsPerSet);
    const bits = new Uint32Array(wordsPerSet);
    for (let index = 0; index < 10; index++) {
      bits[wordsPerSet - 1] = index;
      expect(explored.addIfAbsent(0, bits, 's')).toBe(true);
    }
    for (let index = 0; index < 10; index++) {
      bits[wordsPerSet - 1] = index;
      expect(explored.addIfAbsent(0, bits, 's')).toBe(false);
    }
    bits[wordsPerSet - 1] = 10;
    expect(explored.addIfAbsent(0, bits, 's')).toBe(true);
  });
});
