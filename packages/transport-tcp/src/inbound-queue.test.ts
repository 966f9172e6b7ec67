import { describe, expect, it } from 'vitest';
import { InboundQueue } from './inbound-queue.js';

describe('InboundQueue', () => {
  it('refuses items beyond its capacity and drains oldest first', () => {
    const queue = new InboundQueue<number>(2);
    expect(queue.offer(1)).toBe(true);
    expect(queue.offer(2)).toBe(true);
    expect(queue.offer(3)).toBe(false);
    expect(queue.isFull()).toBe(true);
    expect(queue.drain()).toEqual([1, 2]);
    expect(queue.size()).toBe(0);
  });

  it('wakes a waiting driver when an item arrives', async () => {
    const queue = new InboundQueue<string>(4);
    let woken = false;
    const waiting = queue.waitForItems().then(() => {
      woken = true;
    });
    await Promise.resolve();
    expect(woken).toBe(false);
    queue.offer('vote');
    await waiting;
    expect(woken).toBe(true);
    await queue.waitForItems();
  });
});
