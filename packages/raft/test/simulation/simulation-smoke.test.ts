// A fast slice of the simulator for `pnpm test`: real clients, real logs, invariants after every
// event. The full matrix runs in the sim project (`pnpm test:sim`) and through `pnpm sim`.
import { describe, expect, it } from 'vitest';
import { runSeed } from './run-seed.js';
import type { SeedResult } from './seed-result.js';

function describeFailure(result: SeedResult): string {
  return [
    `seed ${result.seed} (${result.scenario})`,
    ...result.violations,
    ...result.traceTail.slice(-40),
  ].join('\n');
}

describe('simulation smoke', () => {
  it.each([1, 2, 3, 4, 5, 6])('elects a leader, replicates and converges (seed %i)', async (seed) => {
    const result = await runSeed(seed, { scenario: 'elect-initial-leader' });
    expect(result.violations, describeFailure(result)).toEqual([]);
    expect(result.lost).toBe(0);
    expect(result.acked).toBeGreaterThan(0);
  });

  it.each([7, 8])('survives the loss of the leader (seed %i)', async (seed) => {
    const result = await runSeed(seed, { scenario: 'elect-new-leader-after-old-leader-failure' });
    expect(result.violations, describeFailure(result)).toEqual([]);
    expect(result.lost).toBe(0);
  });

  it.each([7, 8])(
    'survives the loss of the leader at kraft.version 1, voters read from the log (seed %i)',
    async (seed) => {
      const result = await runSeed(seed, {
        scenario: 'elect-new-leader-after-old-leader-failure',
        kraftVersion: 1,
      });
      expect(result.violations, describeFailure(result)).toEqual([]);
      expect(result.lost).toBe(0);
      expect(result.acked).toBeGreaterThan(0);
    },
  );

  it.each([
    ['add-voter-once-it-caught-up', 1],
    ['remove-the-leader', 1],
    ['voter-changes-race-leader-changes', 2],
    ['re-add-voter-with-new-directory-id', 1],
    ['voter-changes-in-random-fault-mix', 3],
    ['observers-auto-join', 1],
  ])('changes voters at kraft.version 1: %s (seed %i)', async (scenario, seed) => {
    const result = await runSeed(seed, { scenario });
    expect(result.violations, describeFailure(result)).toEqual([]);
    expect(result.lost).toBe(0);
    expect(result.acked).toBeGreaterThan(0);
  });

  it('gives the same trace hash when a seed runs twice', async () => {
    for (const seed of [11, 12, 13]) {
      const options = { scenario: 'elect-new-leader-after-old-leader-partitioned-away' };
      const first = await runSeed(seed, options);
      const second = await runSeed(seed, options);
      expect(second.traceHash).toBe(first.traceHash);
      expect(second.events).toBe(first.events);
    }
  });
});
