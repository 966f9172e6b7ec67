import { IllegalStateError } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { LogSampler } from './log-sampler.js';

describe('LogSampler', () => {
  it('admits up to the count per window, then reports how many it suppressed', () => {
    const sampler = new LogSampler(2, 1000);
    expect([0, 1, 2, 3].map((offset) => sampler.admit(100 + offset))).toEqual([0, 0, -1, -1]);
    expect(sampler.admit(1099)).toBe(-1);
    expect(sampler.admit(1100)).toBe(3);
    expect(sampler.admit(1101)).toBe(0);
    expect(sampler.admit(1102)).toBe(-1);
  });

  it('rejects a non-positive count or window', () => {
    expect(() => new LogSampler(0, 1000)).toThrow(IllegalStateError);
    expect(() => new LogSampler(1, 0)).toThrow(IllegalStateError);
  });
});
