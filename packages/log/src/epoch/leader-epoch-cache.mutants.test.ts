import { describe, expect, it } from 'vitest';
import { LeaderEpochCache } from './leader-epoch-cache.js';

// Written for mutants of the leader-epoch cache that survived `pnpm mutation`
// (docs/reliability.md, "Mutation testing"): each names the rule it pins down.

function cacheOf(...entries: [epoch: number, startOffset: number][]): LeaderEpochCache {
  return new LeaderEpochCache(
    undefined,
    entries.map(([epoch, startOffset]) => ({ epoch, startOffset })),
  );
}

describe('LeaderEpochCache.assign keeps epochs and start offsets strictly increasing', () => {
  it('the latest epoch assigned again at its own start offset changes nothing', () => {
    const cache = cacheOf([1, 0], [2, 10]);
    const before = cache.all();
    expect(cache.assign(2, 10)).toBe(false);
    expect(cache.all()).toBe(before);
  });

  it('the latest epoch assigned at an earlier offset moves its start down', () => {
    const cache = cacheOf([1, 0], [2, 10]);
    expect(cache.assign(2, 7)).toBe(true);
    expect(cache.all()).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 2, startOffset: 7 },
    ]);
  });

  it('a newer epoch drops older epochs that start at or after its start offset', () => {
    const atSameOffset = cacheOf([1, 0], [2, 10]);
    expect(atSameOffset.assign(3, 10)).toBe(true);
    expect(atSameOffset.all()).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 3, startOffset: 10 },
    ]);
    const belowIt = cacheOf([1, 0], [2, 10]);
    expect(belowIt.assign(3, 5)).toBe(true);
    expect(belowIt.all()).toEqual([
      { epoch: 1, startOffset: 0 },
      { epoch: 3, startOffset: 5 },
    ]);
    expect(belowIt.epochForOffset(12)).toBe(3);
  });
});

describe('LeaderEpochCache.truncateFromEnd', () => {
  it('a truncation at or past every entry start keeps the entries and leaves no checkpoint change', () => {
    const writes: unknown[] = [];
    const checkpoint = { write: (entries: unknown) => writes.push(entries) };
    const cache = new LeaderEpochCache(
      checkpoint as unknown as ConstructorParameters<typeof LeaderEpochCache>[0],
      [
        { epoch: 1, startOffset: 0 },
        { epoch: 2, startOffset: 10 },
      ],
    );
    const before = cache.all();
    cache.truncateFromEnd(11);
    expect(cache.all()).toBe(before);
    expect(cache.hasUnwrittenChanges()).toBe(false);
    cache.truncateFromEnd(10);
    expect(cache.all()).toEqual([{ epoch: 1, startOffset: 0 }]);
    // The change waits for the next flush (ADR 0033): nothing is written on the event loop.
    expect(cache.hasUnwrittenChanges()).toBe(true);
    expect(writes).toHaveLength(0);
  });
});

describe('LeaderEpochCache.truncateFromStart keeps the epoch in force at the new log start', () => {
  it('a log start below every entry changes nothing', () => {
    const cache = cacheOf([1, 5], [2, 10]);
    const before = cache.all();
    cache.truncateFromStart(3);
    expect(cache.all()).toBe(before);
  });

  it('a log start exactly at an entry keeps that entry and drops the ones before it', () => {
    const cache = cacheOf([1, 0], [2, 10], [3, 20]);
    cache.truncateFromStart(10);
    expect(cache.all()).toEqual([
      { epoch: 2, startOffset: 10 },
      { epoch: 3, startOffset: 20 },
    ]);
    expect(cache.epochForOffset(10)).toBe(2);
  });
});
