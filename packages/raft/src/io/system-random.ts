import { randomBytes } from 'node:crypto';
import { SeededRandom } from '../ports/random.js';

/**
 * The production Random port: the core's seeded generator, seeded from the OS entropy source, so
 * election jitter differs between nodes and restarts while the core stays deterministic given
 * its seed (which the driver logs).
 */
export function createSystemRandom(): { random: SeededRandom; seed: number } {
  const seed = randomBytes(4).readUInt32BE(0);
  return { random: new SeededRandom(seed), seed };
}
