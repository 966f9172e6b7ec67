import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteReader } from '../primitives/byte-reader.js';
import { ByteWriter } from '../primitives/byte-writer.js';
import { ALL_MESSAGES } from '../testing/all-messages.js';
import { messageArbitrary, versionsOf } from '../testing/message-arbitrary.js';
import { field } from './field.js';
import { defineMessage } from './message-codec.js';
import { StructCodecCache } from './struct-codec.js';
import type { StructPlan } from './struct-plan.js';
import { readStruct } from './struct-reader.js';
import { writeStruct } from './struct-writer.js';

// The plan-walking reader and writer are the reference: the specialised codecs must produce
// and accept exactly what they do, on valid data and on damaged bytes alike.

type Outcome = { value: unknown } | { error: string; name: string };

function outcome(run: () => unknown): Outcome {
  try {
    return { value: run() };
  } catch (error) {
    return { error: (error as Error).message, name: (error as Error).name };
  }
}

function referenceWrite(plan: StructPlan, data: unknown): Buffer {
  const writer = new ByteWriter();
  writeStruct(writer, plan, data as Record<string, unknown>);
  return Buffer.from(writer.toBuffer());
}

function specialisedWrite(cache: StructCodecCache, plan: StructPlan, data: unknown): Buffer {
  const writer = new ByteWriter();
  cache.codecFor(plan).write(writer, data as Record<string, unknown>);
  return Buffer.from(writer.toBuffer());
}

function bothReads(cache: StructCodecCache, plan: StructPlan, bytes: Buffer): [Outcome, Outcome] {
  return [
    outcome(() => readStruct(new ByteReader(bytes), plan)),
    outcome(() => cache.codecFor(plan).read(new ByteReader(bytes))),
  ];
}

/** One byte changed, then the bytes cut at a random point: valid, wrong or truncated input. */
const damage = fc.record({ position: fc.nat(), byte: fc.integer({ min: 0, max: 255 }), cut: fc.nat() });

describe.each(ALL_MESSAGES.map((codec) => [codec.name, codec] as const))(
  '%s: specialised codec agrees with the plan walker',
  (_name, codec) => {
    it.each(versionsOf(codec))('at version %i', (version) => {
      const cache = new StructCodecCache();
      const plan = codec.planFor(version);
      fc.assert(
        fc.property(messageArbitrary(codec, version), damage, (data, { position, byte, cut }) => {
          const bytes = referenceWrite(plan, data);
          expect(specialisedWrite(cache, plan, data).equals(bytes)).toBe(true);
          const [reference, specialised] = bothReads(cache, plan, bytes);
          expect(specialised).toEqual(reference);
          expect(specialised).toEqual({ value: data });
          const damaged = Buffer.from(bytes);
          if (damaged.length > 0) damaged[position % damaged.length] = byte;
          const [damagedReference, damagedSpecialised] = bothReads(
            cache,
            plan,
            damaged.subarray(0, cut % (damaged.length + 1)),
          );
          expect(damagedSpecialised).toEqual(damagedReference);
        }),
        { numRuns: 40 },
      );
      expect(cache.generated).toBe(true);
    });
  },
);

describe('specialised codec refusals', () => {
  const Sample = defineMessage({
    name: 'Sample',
    validVersions: '0-1',
    flexibleVersions: '1+',
    fields: {
      id: field.int32({ versions: '0+' }),
      name: field.string({ versions: '0+' }),
      added: field.int64({ versions: '1+' }),
      label: field.string({ versions: '1+', nullableVersions: '1+', taggedVersions: '1+', tag: 0 }),
    },
  });

  it('writes and refuses the same values as the plan walker', () => {
    const cache = new StructCodecCache();
    const plan = Sample.planFor(0);
    const cases: unknown[] = [
      { id: 1, name: 'a', added: 7n, label: null },
      { id: 2 ** 40, name: 'a', added: 0n, label: null },
      { id: 1, name: null, added: 0n, label: null },
      { id: 1, name: 'x'.repeat(40_000), added: 0n, label: null },
    ];
    for (const data of cases) {
      expect(outcome(() => specialisedWrite(cache, plan, data))).toEqual(
        outcome(() => referenceWrite(plan, data)),
      );
      expect(outcome(() => specialisedWrite(cache, plan, data))).toHaveProperty('error');
    }
  });

  it('falls back to the plan walker when the host forbids code generation', () => {
    const cache = new StructCodecCache(() => {
      throw new EvalError('Code generation from strings disallowed for this context');
    });
    const plan = Sample.planFor(1);
    const data = Sample.defaults({ id: 3, name: 'n', added: 9n, label: 'l' });
    expect(specialisedWrite(cache, plan, data).equals(referenceWrite(plan, data))).toBe(true);
    expect(cache.generated).toBe(false);
    expect(cache.codecFor(plan).read(new ByteReader(referenceWrite(plan, data)))).toEqual(data);
  });

  it('refuses a field name that is not a plain identifier before generating code', () => {
    for (const name of ['__proto__', 'a-b', 'x"]; y']) {
      const Odd = defineMessage({
        name: 'Odd',
        validVersions: '0',
        flexibleVersions: 'none',
        fields: { [name]: field.int32({ versions: '0+' }) },
      });
      expect(() => new StructCodecCache().codecFor(Odd.planFor(0))).toThrow(/not a plain identifier/);
    }
  });
});
