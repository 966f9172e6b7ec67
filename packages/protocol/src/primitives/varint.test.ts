import { describe, expect, it } from 'vitest';
import { IllegalStateError } from '../errors/illegal-state-error.js';
import { ProtocolError } from '../errors/protocol-error.js';
import { ByteReader } from './byte-reader.js';
import { ByteWriter } from './byte-writer.js';

// Vectors from kraft-formats.md §1.
const zigzagVectors: Array<[number, string]> = [
  [0, '00'],
  [-1, '01'],
  [1, '02'],
  [-2, '03'],
  [63, '7e'],
  [-64, '7f'],
  [64, '8001'],
  [300, 'd804'],
  [-300, 'd704'],
  [2147483647, 'feffffff0f'],
  [-2147483648, 'ffffffff0f'],
];

describe('varints', () => {
  it.each(zigzagVectors)('zigzag varint %d encodes as %s and back', (value, hex) => {
    expect(new ByteWriter().writeVarint(value).toBuffer().toString('hex')).toBe(hex);
    expect(new ByteReader(Buffer.from(hex, 'hex')).readVarint()).toBe(value);
  });

  it.each([
    [127, '7f'],
    [128, '8001'],
    [300, 'ac02'],
    [16384, '808001'],
  ])('unsigned varint %d encodes as %s and back', (value, hex) => {
    expect(new ByteWriter().writeUnsignedVarint(value).toBuffer().toString('hex')).toBe(hex);
    expect(new ByteReader(Buffer.from(hex, 'hex')).readUnsignedVarint()).toBe(value);
  });

  it('writes 2^32-1 in five bytes and refuses what five bytes cannot hold', () => {
    expect(new ByteWriter().writeUnsignedVarint(0xffffffff).toBuffer().toString('hex')).toBe('ffffffff0f');
    for (const value of [2 ** 32, -1, 1.5, Number.NaN, 2 ** 40]) {
      expect(() => new ByteWriter().writeUnsignedVarint(value)).toThrow(IllegalStateError);
    }
    expect(() => new ByteWriter().writeVarint(2 ** 31)).toThrow(IllegalStateError);
  });

  it('varlong 1700000000000 encodes as 80a0abfef962', () => {
    expect(new ByteWriter().writeVarlong(1700000000000n).toBuffer().toString('hex')).toBe('80a0abfef962');
    expect(new ByteReader(Buffer.from('80a0abfef962', 'hex')).readVarlong()).toBe(1700000000000n);
  });

  it('varlong round-trips the int64 extremes', () => {
    for (const value of [-(2n ** 63n), 2n ** 63n - 1n, -1n, 0n]) {
      const bytes = new ByteWriter().writeVarlong(value).toBuffer();
      expect(new ByteReader(bytes).readVarlong()).toBe(value);
    }
  });

  it('rejects over-long unsigned varints and truncated input with a ProtocolError', () => {
    expect(() => new ByteReader(Buffer.from('ffffffffff01', 'hex')).readUnsignedVarint()).toThrow(
      ProtocolError,
    );
    expect(() => new ByteReader(Buffer.from('ffffffff1f', 'hex')).readUnsignedVarint()).toThrow(
      ProtocolError,
    );
    expect(() => new ByteReader(Buffer.from('ff', 'hex')).readUnsignedVarint()).toThrow(ProtocolError);
    expect(() => new ByteReader(Buffer.from('ffffffffffffffffff7f', 'hex')).readVarlong()).toThrow(
      ProtocolError,
    );
  });

  it('rejects a length larger than what remains before allocating it', () => {
    const reader = new ByteReader(Buffer.from('7fffffff00', 'hex'));
    expect(() => reader.readNullableBytes()).toThrow(/needs 2147483647 bytes/);
    expect(() => new ByteReader(Buffer.from('7fffffff', 'hex')).readArrayLength(false)).toThrow(
      ProtocolError,
    );
  });
});
