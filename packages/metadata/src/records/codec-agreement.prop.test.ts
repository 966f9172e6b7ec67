import type { MessageCodec } from '@kraft/protocol';
import { checkSpecialisedCodecAgreement, versionsOf } from '@kraft/protocol/testing';
import { describe, expect, it } from 'vitest';
import { ALL_METADATA_RECORD_TYPES, metadataRecordCodec } from './metadata-record-type.js';

// The metadata records go through protocol's specialised (generated) codecs (ADR 0032): at every
// version of every record, they must agree with the plan-walking reference on valid and damaged bytes.
const CODECS = ALL_METADATA_RECORD_TYPES.map((id) => metadataRecordCodec(id) as MessageCodec<unknown>);

describe.each(CODECS.map((codec) => [codec.name, codec] as const))(
  '%s: specialised codec agrees with the plan walker',
  (_name, codec) => {
    it.each(versionsOf(codec))('at version %i', (version) => {
      const generated = checkSpecialisedCodecAgreement(codec, version, (actual, expected) =>
        expect(actual).toEqual(expected),
      );
      expect(generated).toBe(true);
    });
  },
);
