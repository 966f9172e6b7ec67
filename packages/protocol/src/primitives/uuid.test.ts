import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../errors/protocol-error.js';
import { Uuid } from './uuid.js';

describe('Uuid', () => {
  it('copyOf copies the 16 bytes at an offset, so the input can be reused', () => {
    const input = Buffer.concat([Buffer.from([1, 2, 3]), Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A').bytes]);
    const uuid = Uuid.copyOf(input, 3);
    input.fill(0);
    expect(uuid.toString()).toBe('b8tRS7h4TJ2Vt43Dp85v2A');
    expect(uuid.bytes.length).toBe(16);
  });

  it('uses Kafka base64url text form (kraft-formats.md §5)', () => {
    const uuid = Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A');
    expect(uuid.bytes.toString('hex')).toBe('6fcb514bb8784c9d95b78dc3a7ce6fd8');
    expect(uuid.toString()).toBe('b8tRS7h4TJ2Vt43Dp85v2A');
    expect(Uuid.ZERO.toString()).toBe('AAAAAAAAAAAAAAAAAAAAAA');
    expect(Uuid.METADATA_TOPIC_ID.toString()).toBe('AAAAAAAAAAAAAAAAAAAAAQ');
  });

  it('tolerates padding and rejects texts that are not 16 bytes', () => {
    expect(Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A==').toString()).toBe('b8tRS7h4TJ2Vt43Dp85v2A');
    expect(() => Uuid.fromString('abc')).toThrow(ProtocolError);
    expect(() => Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A!')).toThrow(ProtocolError);
  });

  it('random uuids avoid reserved values and a leading dash', () => {
    const draws = [Buffer.alloc(16), Buffer.from(`fb${'00'.repeat(15)}`, 'hex'), Buffer.alloc(16, 7)];
    const uuid = Uuid.randomUuid(() => draws.shift() as Buffer);
    expect(uuid.equals(Uuid.fromBytes(Buffer.alloc(16, 7)))).toBe(true);
  });

  it('equals compares all 16 bytes, and is false for null and undefined', () => {
    const uuid = Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A');
    expect(uuid.equals(Uuid.fromBytes(uuid.bytes))).toBe(true);
    expect(uuid.equals(uuid)).toBe(true);
    for (let index = 0; index < 16; index += 1) {
      const bytes = Buffer.from(uuid.bytes);
      bytes[index] = (bytes[index] as number) ^ 1;
      expect(uuid.equals(Uuid.fromBytes(bytes))).toBe(false);
    }
    expect(uuid.equals(null)).toBe(false);
    expect(uuid.equals(undefined)).toBe(false);
  });

  it('keeps every 128-bit value: bytes, longs, text and writeTo agree (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), fc.nat(8), (raw, offset) => {
        const bytes = Buffer.from(raw);
        const uuid = Uuid.fromBytes(bytes);
        expect(uuid.bytes.equals(bytes)).toBe(true);
        expect(uuid.mostSignificantBits).toBe(bytes.readBigInt64BE(0));
        expect(uuid.leastSignificantBits).toBe(bytes.readBigInt64BE(8));
        expect(Uuid.fromLongs(uuid.mostSignificantBits, uuid.leastSignificantBits).equals(uuid)).toBe(true);
        expect(Uuid.fromString(uuid.toString()).equals(uuid)).toBe(true);
        const target = Buffer.alloc(offset + 20, 0xee);
        uuid.writeTo(target, offset);
        expect(target.subarray(offset, offset + 16).equals(bytes)).toBe(true);
        expect(target[offset + 16]).toBe(0xee);
        expect(Uuid.copyOf(target, offset).hash()).toBe(uuid.hash());
      }),
    );
  });

  it('bytes is a new buffer each time: changing it never changes the id', () => {
    const uuid = Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A');
    uuid.bytes.fill(0);
    expect(uuid.toString()).toBe('b8tRS7h4TJ2Vt43Dp85v2A');
    expect(uuid.bytes).not.toBe(uuid.bytes);
  });
});
