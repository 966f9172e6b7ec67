import { describe, expect, it } from 'vitest';
import { ReconnectBackoff } from './backoff.js';

describe('ReconnectBackoff', () => {
  it('doubles from reconnect.backoff.ms up to reconnect.backoff.max.ms without jitter at the midpoint', () => {
    const backoff = new ReconnectBackoff(50, 1000, () => 0.5);
    expect(Array.from({ length: 7 }, () => backoff.nextDelayMs())).toEqual([
      50, 100, 200, 400, 800, 1000, 1000,
    ]);
    backoff.reset();
    expect(backoff.nextDelayMs()).toBe(50);
  });

  it('spreads each delay by at most 20 percent and never past the maximum', () => {
    const low = new ReconnectBackoff(100, 1000, () => 0);
    const high = new ReconnectBackoff(100, 1000, () => 0.999_999);
    expect(low.nextDelayMs()).toBe(80);
    expect(high.nextDelayMs()).toBe(120);
    for (let attempt = 0; attempt < 10; attempt += 1) expect(high.nextDelayMs()).toBeLessThanOrEqual(1000);
  });
});
