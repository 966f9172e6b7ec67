import { describe, expect, it } from 'vitest';
import { ByteReader } from '../primitives/byte-reader.js';
import { ALL_MESSAGES } from '../testing/all-messages.js';
import {
  checkSpecialisedCodecAgreement,
  outcomeOf,
  referenceWrite,
  specialisedWrite,
} from '../testing/codec-agreement.js';
import { versionsOf } from '../testing/message-arbitrary.js';
import { field } from './field.js';
import { defineMessage, type MessageCodec } from './message-codec.js';
import { StructCodecCache } from './struct-codec.js';

describe.each(ALL_MESSAGES.map((codec) => [codec.name, codec] as const))(
  '%s: specialised codec agrees with the plan walker',
  (_name, codec) => {
    it.each(versionsOf(codec))('at version %i', (version) => {
      const generated = checkSpecialisedCodecAgreement(
        codec as MessageCodec<unknown>,
        version,
        (actual, expected) => expect(actual).toEqual(expected),
      );
      expect(generated).toBe(true);
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
      expect(outcomeOf(() => specialisedWrite(cache, plan, data))).toEqual(
        outcomeOf(() => referenceWrite(plan, data)),
      );
      expect(outcomeOf(() => specialisedWrite(cache, plan, data))).toHaveProperty('error');
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
