import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KRaftError } from '../errors/kraft-error.js';
import { ProtocolError } from '../errors/protocol-error.js';
import type { MessageCodec } from '../schema/message-codec.js';
import { ALL_MESSAGES } from '../testing/all-messages.js';
import { messageArbitrary, versionsOf } from '../testing/message-arbitrary.js';

// At least this many truncated or mutated bodies per message; KRAFT_FUZZ_RUNS raises it for soaks.
const { KRAFT_FUZZ_RUNS } = process.env;
const BODIES_PER_MESSAGE = Math.max(10_000, Number(KRAFT_FUZZ_RUNS ?? 0));
const SEEDS_PER_VERSION = 8;

/** mulberry32: a tiny seeded PRNG, so a failure replays exactly. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

const INTERESTING_BYTES = [0x00, 0x01, 0x7f, 0x80, 0xff, 0xfe];

/** One mutation of `body`: truncate it, flip bytes, overwrite a length-like window, or insert bytes. */
function mutate(body: Buffer, random: () => number): Buffer {
  const pick = (limit: number) => Math.floor(random() * limit);
  const kind = pick(4);
  if (kind === 0 || body.length === 0) return body.subarray(0, pick(body.length + 1));
  const copy = Buffer.from(body);
  if (kind === 1) {
    for (let flips = 1 + pick(3); flips > 0; flips -= 1) copy[pick(copy.length)] = pick(256);
    return copy;
  }
  if (kind === 2) {
    const start = pick(copy.length);
    const value = INTERESTING_BYTES[pick(INTERESTING_BYTES.length)] as number;
    copy.fill(value, start, Math.min(copy.length, start + 1 + pick(4)));
    return copy;
  }
  const at = pick(copy.length + 1);
  const inserted = Buffer.from(Array.from({ length: 1 + pick(4) }, () => pick(256)));
  return Buffer.concat([copy.subarray(0, at), inserted, copy.subarray(at)]);
}

function seedBodies(codec: MessageCodec<unknown>, version: number, seed: number): Buffer[] {
  const samples = fc.sample(messageArbitrary(codec, version), { numRuns: SEEDS_PER_VERSION, seed });
  return [codec.write(codec.defaults(), version), ...samples.map((data) => codec.write(data, version))];
}

// Hundreds of thousands of rejected bodies: skip capturing stack traces, the dominant cost.
let savedStackTraceLimit = Error.stackTraceLimit;
beforeAll(() => {
  savedStackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
});
afterAll(() => {
  Error.stackTraceLimit = savedStackTraceLimit;
});

describe.each(ALL_MESSAGES.map((codec) => [codec.name, codec] as const))('%s fuzz', (name, codec) => {
  it(`decodes ${BODIES_PER_MESSAGE} truncated and mutated bodies with only typed errors`, () => {
    const random = seededRandom(name.length * 7919 + codec.highestVersion);
    const versions = versionsOf(codec);
    const seeds = versions.map((version, index) => ({
      version,
      bodies: seedBodies(codec, version, index + 1),
    }));
    let decoded = 0;
    let rejected = 0;
    for (let run = 0; run < BODIES_PER_MESSAGE; run += 1) {
      const { version, bodies } = seeds[run % seeds.length] as (typeof seeds)[number];
      const body = mutate(bodies[Math.floor(random() * bodies.length)] as Buffer, random);
      let data: unknown;
      try {
        data = codec.read(body, version);
      } catch (error) {
        if (!ProtocolError.isProtocolError(error)) {
          throw new Error(`${name} v${version} threw a non-protocol error on ${body.toString('hex')}`, {
            cause: error,
          });
        }
        rejected += 1;
        continue;
      }
      // Whatever decodes must encode again: only typed errors, never a crash.
      try {
        codec.write(data, version);
      } catch (error) {
        if (!KRaftError.isInstance(error)) throw error;
      }
      decoded += 1;
    }
    expect(decoded + rejected).toBe(BODIES_PER_MESSAGE);
    expect(rejected).toBeGreaterThan(0);
  });
});
