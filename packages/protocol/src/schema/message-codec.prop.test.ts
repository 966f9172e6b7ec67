import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALL_MESSAGES } from '../testing/all-messages.js';
import { messageArbitrary, versionsOf } from '../testing/message-arbitrary.js';

// Generated from the declarations themselves, so every field of every version is exercised,
// including nulls, tagged fields and unknown tagged fields.
describe.each(ALL_MESSAGES.map((codec) => [codec.name, codec] as const))('%s round-trips', (_name, codec) => {
  it.each(versionsOf(codec))('at version %i', (version) => {
    fc.assert(
      fc.property(messageArbitrary(codec, version), (data) => {
        const bytes = codec.write(data, version);
        const decoded = codec.read(bytes, version);
        expect(decoded).toEqual(data);
        expect(codec.write(decoded, version).equals(bytes)).toBe(true);
        // The gathering encoder, referencing every byte string, produces the same bytes.
        expect(Buffer.concat(codec.writeChunks(data, version, 1)).equals(bytes)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });
});
