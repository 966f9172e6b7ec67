import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../errors/protocol-error.js';
import { toSafeNumber } from './to-safe-number.js';
import { Uuid } from './uuid.js';

describe('toSafeNumber', () => {
  it('narrows safe int64 values exactly', () => {
    expect(toSafeNumber(0n)).toBe(0);
    expect(toSafeNumber(-1n)).toBe(-1);
    expect(toSafeNumber(BigInt(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
    expect(toSafeNumber(BigInt(Number.MIN_SAFE_INTEGER))).toBe(Number.MIN_SAFE_INTEGER);
  });

  it('refuses values beyond 2^53 with a typed error naming the field', () => {
    expect(() => toSafeNumber(BigInt(Number.MAX_SAFE_INTEGER) + 1n, 'fetchOffset')).toThrow(ProtocolError);
    expect(() => toSafeNumber(-(2n ** 63n), 'fetchOffset')).toThrow(/fetchOffset/);
  });
});

describe('Uuid.randomDirectoryId', () => {
  it('redraws reserved directory ids (msb 0, lsb below 100)', () => {
    const draws = [
      Buffer.from('0000000000000000' + '0000000000000002', 'hex'), // LOST
      Buffer.from('0000000000000000' + '0000000000000063', 'hex'), // 99, reserved
      Buffer.from('0000000000000000' + '0000000000000064', 'hex'), // 100, allowed
    ];
    let index = 0;
    const id = Uuid.randomDirectoryId(() => draws[index++] as Buffer);
    expect(index).toBe(3);
    expect(id.leastSignificantBits).toBe(100n);
  });

  it('draws distinct ids from the real random source', () => {
    expect(Uuid.randomDirectoryId().equals(Uuid.randomDirectoryId())).toBe(false);
  });
});
