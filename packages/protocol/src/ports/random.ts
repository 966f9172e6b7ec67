import { invariant } from '../errors/illegal-state-error.js';

/**
 * The Random port: every random choice the core makes (election jitter, bootstrap server choice,
 * backoff jitter) draws from here, so a seed replays a whole run.
 */
export interface Random {
  /** A uniformly distributed integer in [0, bound). `bound` is a positive safe integer ≤ 2^32. */
  nextInt(bound: number): number;
}

const UINT32_RANGE = 0x1_0000_0000;

/**
 * xoshiro128** (Blackman and Vigna): 128 bits of state, period 2^128 − 1, fast with 32-bit
 * integer math. Seeded through splitmix32 so nearby seeds give unrelated streams.
 */
export class SeededRandom implements Random {
  private state0: number;
  private state1: number;
  private state2: number;
  private state3: number;

  constructor(seed: number) {
    let mixer = seed >>> 0;
    const next = (): number => {
      mixer = (mixer + 0x9e3779b9) >>> 0;
      let value = mixer;
      value = Math.imul(value ^ (value >>> 16), 0x85ebca6b);
      value = Math.imul(value ^ (value >>> 13), 0xc2b2ae35);
      return (value ^ (value >>> 16)) >>> 0;
    };
    this.state0 = next();
    this.state1 = next();
    this.state2 = next();
    this.state3 = next();
    if ((this.state0 | this.state1 | this.state2 | this.state3) === 0) this.state0 = 1;
  }

  /** The next 32 random bits as an unsigned integer. */
  nextUint32(): number {
    const result = Math.imul(rotateLeft(Math.imul(this.state1, 5), 7), 9) >>> 0;
    const shifted = this.state1 << 9;
    this.state2 ^= this.state0;
    this.state3 ^= this.state1;
    this.state1 ^= this.state2;
    this.state0 ^= this.state3;
    this.state2 ^= shifted;
    this.state3 = rotateLeft(this.state3, 11);
    return result;
  }

  nextInt(bound: number): number {
    invariant(
      Number.isSafeInteger(bound) && bound > 0 && bound <= UINT32_RANGE,
      () => `bound must be an integer in (0, 2^32], got ${bound}`,
    );
    // Rejection sampling removes modulo bias: draw again when the value falls in the partial
    // last block of size UINT32_RANGE % bound.
    const limit = UINT32_RANGE - (UINT32_RANGE % bound);
    for (;;) {
      const value = this.nextUint32();
      if (value < limit) return value % bound;
    }
  }
}

function rotateLeft(value: number, bits: number): number {
  return ((value << bits) | (value >>> (32 - bits))) >>> 0;
}
