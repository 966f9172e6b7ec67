import { describe, expect, it } from 'vitest';
import { PollTimeoutError, pollUntil } from './poll-until.js';

describe('pollUntil', () => {
  it('resolves once the condition holds, looking again every interval', async () => {
    let looks = 0;
    await pollUntil('the third look', 10_000, () => ++looks === 3, { intervalMs: 1 });
    expect(looks).toBe(3);
  });

  it('rejects with a PollTimeoutError naming what it waited for', async () => {
    const waiting = pollUntil('nothing', 5, () => false, { intervalMs: 1 });
    await expect(waiting).rejects.toBeInstanceOf(PollTimeoutError);
    await expect(waiting).rejects.toThrow('timed out after 5 ms waiting for nothing');
  });

  it('gives up at once when the check throws, before looking at the condition', async () => {
    let looks = 0;
    const check = () => {
      throw new Error('a node exited');
    };
    await expect(pollUntil('a leader', 10_000, () => ++looks > 0, { intervalMs: 1, check })).rejects.toThrow(
      'a node exited',
    );
    expect(looks).toBe(0);
  });
});
