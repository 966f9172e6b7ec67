// The fast tier of test/metadata-simulation.sim.test.ts: a few seeds, and the planted bug the
// invariants must catch.
import { describe, expect, it } from 'vitest';
import { runMetadataSimulation } from './support/metadata-simulation.js';

describe('the metadata simulation', () => {
  it.each([1, 2])('runs seed %i clean, with snapshots written and checked', async (seed) => {
    const result = await runMetadataSimulation(seed, { workloadMs: 3_000 });
    expect(result.violations).toEqual([]);
    expect(result.snapshotsChecked).toBeGreaterThan(0);
    expect(result.imagesChecked).toBeGreaterThan(0);
  });

  it('catches a loader that applies one record past the high watermark', async () => {
    const result = await runMetadataSimulation(1, {
      workloadMs: 3_000,
      sabotage: 'apply-past-high-watermark',
    });
    expect(result.violations.join('\n')).toMatch(
      /the loader applied offset \d+, at or above its high watermark/,
    );
  });
});
