import type { MessageCodec } from '@kraft/protocol';
import { messageArbitrary, versionsOf } from '@kraft/protocol/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MetadataParseError } from '../errors/metadata-parse-error.js';
import { ALL_METADATA_RECORD_TYPES, metadataRecordCodec } from '../records/metadata-record-type.js';
import { apiMessageAndVersionArbitrary } from '../testing/api-message-and-version-arbitrary.js';
import type { ApiMessageAndVersion } from './api-message-and-version.js';
import { MetadataRecordSerde } from './metadata-record-serde.js';

const serde = MetadataRecordSerde.INSTANCE;
const CODECS = ALL_METADATA_RECORD_TYPES.map((id) => metadataRecordCodec(id) as MessageCodec<unknown>);

// Data generated from each declaration, so every field of every version is exercised,
// including nulls, tagged fields and unknown tagged fields.
describe.each(CODECS.map((codec) => [codec.name, codec] as const))(
  '%s round-trips framed',
  (_name, codec) => {
    it.each(versionsOf(codec))('at version %i', (version) => {
      fc.assert(
        fc.property(messageArbitrary(codec, version), (data) => {
          const record = { recordType: codec.apiKey, version, data } as ApiMessageAndVersion;
          const value = serde.serialize(record);
          const decoded = serde.read(value);
          expect(decoded).toEqual(record);
          expect(serde.serialize(decoded).equals(value)).toBe(true);
        }),
        { numRuns: 60 },
      );
    });
  },
);

/** A framed value cut, with bytes flipped, or with bytes inserted. */
const mutatedValue = apiMessageAndVersionArbitrary().chain((record) => {
  const value = serde.serialize(record);
  return fc.oneof(
    fc.nat({ max: value.length - 1 }).map((length) => value.subarray(0, length)),
    fc
      .array(fc.tuple(fc.nat({ max: value.length - 1 }), fc.integer({ min: 0, max: 255 })), {
        minLength: 1,
        maxLength: 3,
      })
      .map((flips) => {
        const copy = Buffer.from(value);
        for (const [position, byte] of flips) copy[position] = byte;
        return copy;
      }),
    fc
      .tuple(fc.nat({ max: value.length }), fc.uint8Array({ minLength: 1, maxLength: 4 }))
      .map(([position, bytes]) =>
        Buffer.concat([value.subarray(0, position), Buffer.from(bytes), value.subarray(position)]),
      ),
  );
});

describe('MetadataRecordSerde on damaged values', () => {
  it('decodes or throws a MetadataParseError, never another error', () => {
    fc.assert(
      fc.property(mutatedValue, (value) => {
        try {
          serde.read(value);
        } catch (error) {
          if (!MetadataParseError.isMetadataParseError(error)) throw error;
          expect(error.position).toBeGreaterThanOrEqual(0);
          expect(error.position).toBeLessThanOrEqual(value.length);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('always refuses a value cut short', () => {
    fc.assert(
      fc.property(
        apiMessageAndVersionArbitrary().chain((record) => {
          const value = serde.serialize(record);
          return fc.nat({ max: value.length - 1 }).map((length) => value.subarray(0, length));
        }),
        (value) => {
          expect(() => serde.read(value)).toThrow(MetadataParseError);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
