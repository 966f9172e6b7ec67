import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { crc32cOracle } from '../test/helpers/crc32c-oracle.js';
import { crc32c } from './crc32c.js';

describe('crc32c', () => {
  it('gives the CRC-32C check value for "123456789"', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
    expect(crc32cOracle(Buffer.from('123456789'))).toBe(0xe3069283);
  });

  it('agrees with the pure-JS slicing-by-8 oracle on random bytes and views', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(16), (bytes, skip) => {
        const view = Buffer.from(bytes).subarray(Math.min(skip, bytes.length));
        expect(crc32c(view)).toBe(crc32cOracle(view));
      }),
    );
  });

  it('chains across chunks', () => {
    const bytes = Buffer.from('the quick brown fox jumps over the lazy dog');
    expect(crc32c(bytes.subarray(10), crc32c(bytes.subarray(0, 10)))).toBe(crc32c(bytes));
  });
});
