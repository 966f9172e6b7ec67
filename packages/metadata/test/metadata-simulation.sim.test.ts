// The metadata layer on the simulated cluster (test/support/metadata-simulation.ts): seeds
// 1..KRAFT_METADATA_SIM_SEEDS (50), from KRAFT_METADATA_SIM_FROM (1). Many seeds:
//   KRAFT_METADATA_SIM_SEEDS=2000 pnpm vitest run --project sim packages/metadata
import { describe, expect, it } from 'vitest';
import { type MetadataSimulationResult, runMetadataSimulation } from './support/metadata-simulation.js';

const seedCount = Number(process.env['KRAFT_METADATA_SIM_SEEDS'] ?? 50);
const firstSeed = Number(process.env['KRAFT_METADATA_SIM_FROM'] ?? 1);

describe('the metadata layer in the simulator', () => {
  it(`keeps every image and snapshot equal to the committed log's replay (seeds ${firstSeed}..${firstSeed + seedCount - 1})`, async () => {
    const results: MetadataSimulationResult[] = [];
    for (let seed = firstSeed; seed < firstSeed + seedCount; seed += 1) {
      const result = await runMetadataSimulation(seed);
      results.push(result);
      expect(result.violations, `seed ${seed} (replay: runMetadataSimulation(${seed}))`).toEqual([]);
    }
    const total = (key: 'imagesChecked' | 'snapshotsChecked' | 'snapshotLoads' | 'crashes'): number =>
      results.reduce((sum, result) => sum + result[key], 0);
    // The run exercised what it claims to check.
    expect(total('snapshotsChecked')).toBeGreaterThan(seedCount);
    expect(total('snapshotLoads')).toBeGreaterThan(0);
    expect(total('crashes')).toBeGreaterThan(0);
    expect(Math.min(...results.map((result) => result.committedEnd))).toBeGreaterThan(50);
  });
});
