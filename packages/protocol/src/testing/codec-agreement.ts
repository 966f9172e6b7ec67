import fc from 'fast-check';
import { ByteReader } from '../primitives/byte-reader.js';
import { ByteWriter } from '../primitives/byte-writer.js';
import type { MessageCodec } from '../schema/message-codec.js';
import { StructCodecCache } from '../schema/struct-codec.js';
import type { StructPlan } from '../schema/struct-plan.js';
import { readStruct } from '../schema/struct-reader.js';
import { writeStruct } from '../schema/struct-writer.js';
import { messageArbitrary } from './message-arbitrary.js';

// The plan-walking reader and writer are the reference (ADR 0032): a specialised codec must
// produce and accept exactly what they do, on valid data and on damaged bytes alike.

/** What one read or write gave: its value, or its error's message and name. */
export type CodecOutcome = { value: unknown } | { error: string; name: string };

/** The assertion of the caller's test runner, e.g. `(actual, expected) => expect(actual).toEqual(expected)`. */
export type ExpectEqual = (actual: unknown, expected: unknown) => void;

export function outcomeOf(run: () => unknown): CodecOutcome {
  try {
    return { value: run() };
  } catch (error) {
    return { error: (error as Error).message, name: (error as Error).name };
  }
}

export function referenceWrite(plan: StructPlan, data: unknown): Buffer {
  const writer = new ByteWriter();
  writeStruct(writer, plan, data as Record<string, unknown>);
  return Buffer.from(writer.toBuffer());
}

export function specialisedWrite(cache: StructCodecCache, plan: StructPlan, data: unknown): Buffer {
  const writer = new ByteWriter();
  cache.codecFor(plan).write(writer, data as Record<string, unknown>);
  return Buffer.from(writer.toBuffer());
}

function bothReads(cache: StructCodecCache, plan: StructPlan, bytes: Buffer): [CodecOutcome, CodecOutcome] {
  return [
    outcomeOf(() => readStruct(new ByteReader(bytes), plan)),
    outcomeOf(() => cache.codecFor(plan).read(new ByteReader(bytes))),
  ];
}

/** One byte changed, then the bytes cut at a random point: valid, wrong or truncated input. */
const damage = fc.record({ position: fc.nat(), byte: fc.integer({ min: 0, max: 255 }), cut: fc.nat() });

/**
 * Property check of ADR 0032 for a message declared with the schema DSL: at `version`, the
 * specialised (generated) codec writes the bytes the plan-walking reference writes for every
 * value `messageArbitrary` draws, reads them back to that value, and reads damaged or truncated
 * copies exactly as the reference does (the same value, or the same error). Returns whether code
 * generation was available (false where the host forbids it and the codec fell back to the
 * walker). Throws fast-check's failure, with the counterexample, when they disagree.
 */
export function checkSpecialisedCodecAgreement(
  codec: MessageCodec<unknown>,
  version: number,
  expectEqual: ExpectEqual,
  numRuns = 40,
): boolean {
  const cache = new StructCodecCache();
  const plan = codec.planFor(version);
  fc.assert(
    fc.property(messageArbitrary(codec, version), damage, (data, { position, byte, cut }) => {
      const bytes = referenceWrite(plan, data);
      expectEqual(specialisedWrite(cache, plan, data).equals(bytes), true);
      const [reference, specialised] = bothReads(cache, plan, bytes);
      expectEqual(specialised, reference);
      expectEqual(specialised, { value: data });
      const damaged = Buffer.from(bytes);
      if (damaged.length > 0) damaged[position % damaged.length] = byte;
      const [damagedReference, damagedSpecialised] = bothReads(
        cache,
        plan,
        damaged.subarray(0, cut % (damaged.length + 1)),
      );
      expectEqual(damagedSpecialised, damagedReference);
    }),
    { numRuns },
  );
  return cache.generated;
}
