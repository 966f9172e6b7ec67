// The simulation matrix (Kafka's RaftEventSimulationTest): every scenario over many seeds, each
// checking the safety invariants after every event and liveness after healing.
// KRAFT_SIM_SEEDS_PER_SCENARIO scales it (default 10); `pnpm sim --seeds 1000` is the CI tier.
import { describe, expect, it } from 'vitest';
import { MEMBERSHIP_SCENARIOS } from './membership-scenarios.js';
import { runSeed } from './run-seed.js';
import { SCENARIOS } from './scenarios.js';
import type { SeedResult } from './seed-result.js';

const { KRAFT_SIM_SEEDS_PER_SCENARIO: seedsPerScenario } = process.env;
const SEEDS_PER_SCENARIO = Number(seedsPerScenario ?? 10);

function describeFailure(result: SeedResult): string {
  return [
    `seed ${result.seed} (${result.scenario}); replay: KRAFT_SEED=${result.seed} pnpm sim --scenario ${result.scenario} --trace`,
    ...result.violations,
    ...result.traceTail.slice(-60),
  ].join('\n');
}

describe.each([...SCENARIOS, ...MEMBERSHIP_SCENARIOS].map((scenario) => scenario.name))(
  'scenario %s',
  (scenario) => {
    const seeds = Array.from({ length: SEEDS_PER_SCENARIO }, (_, index) => 1000 + index);
    it.each(seeds)('seed %i keeps every invariant and converges', async (seed) => {
      const result = await runSeed(seed, { scenario });
      expect(result.violations, describeFailure(result)).toEqual([]);
      expect(result.lost, describeFailure(result)).toBe(0);
      expect(result.duplicated, describeFailure(result)).toBe(0);
    });
  },
);

describe('determinism', () => {
  it('runs each of 20 seeds twice, in opposite orders, with identical trace hashes', async () => {
    // The second pass runs the seeds backwards, so a seed's hash cannot depend on what the same
    // process ran before it (module-level state leaking between runs).
    const seeds = Array.from({ length: 20 }, (_, index) => index + 1);
    const firstPass = new Map<number, string>();
    for (const seed of seeds) firstPass.set(seed, (await runSeed(seed, {})).traceHash);
    for (const seed of [...seeds].reverse()) {
      expect((await runSeed(seed, {})).traceHash, `seed ${seed}`).toBe(firstPass.get(seed));
    }
  });
});
