import { invariant } from '@kraft/protocol';
import { type Random, SeededRandom } from '../ports/random.js';

/**
 * The run's seeded generator with the helpers the harness needs. Each node gets its own forked
 * stream, so harness draws (fault choice, delays) never shift a node's election jitter and the
 * other way round; one seed still determines everything.
 */
export class SimulationRandom implements Random {
  private readonly generator: SeededRandom;

  constructor(readonly seed: number) {
    this.generator = new SeededRandom(seed);
  }

  nextInt(bound: number): number {
    return this.generator.nextInt(bound);
  }

  /** Uniform in [low, high] (inclusive). */
  between(low: number, high: number): number {
    invariant(high >= low, () => `empty range [${low}, ${high}]`);
    return low + this.generator.nextInt(high - low + 1);
  }

  /** Uniform in [0, 1). */
  nextDouble(): number {
    return this.generator.nextUint32() / 0x1_0000_0000;
  }

  chance(probability: number): boolean {
    return this.nextDouble() < probability;
  }

  pick<T>(items: readonly T[]): T {
    invariant(items.length > 0, () => 'pick from an empty list');
    return items[this.generator.nextInt(items.length)] as T;
  }

  /** A random subset (in the input's order) of the given size. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    for (let index = pool.length - 1; index > 0; index -= 1) {
      const other = this.generator.nextInt(index + 1);
      [pool[index], pool[other]] = [pool[other] as T, pool[index] as T];
    }
    const chosen = new Set(pool.slice(0, count));
    return items.filter((item) => chosen.has(item));
  }

  /** An independent stream derived from this one. */
  fork(): SimulationRandom {
    return new SimulationRandom(this.generator.nextUint32());
  }
}
