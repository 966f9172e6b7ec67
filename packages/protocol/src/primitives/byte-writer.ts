import type { Uuid } from './uuid.js';

const INITIAL_CAPACITY_BYTES = 256;

/**
 * A growable big-endian writer. Capacity doubles, so writing n bytes costs O(n) amortised.
 * `toBuffer()` returns a view of the written bytes without copying.
 */
export class ByteWriter {
  private buffer: Buffer;
  offset = 0;

  constructor(initialCapacityBytes = INITIAL_CAPACITY_BYTES) {
    this.buffer = Buffer.allocUnsafe(Math.max(16, initialCapacityBytes));
  }

  private ensure(size: number): void {
    const needed = this.offset + size;
    if (needed <= this.buffer.length) return;
    let capacity = this.buffer.length * 2;
    while (capacity < needed) capacity *= 2;
    const grown = Buffer.allocUnsafe(capacity);
    this.buffer.copy(grown, 0, 0, this.offset);
    this.buffer = grown;
  }

  toBuffer(): Buffer {
    return this.buffer.subarray(0, this.offset);
  }

  writeInt8(value: number): this {
    this.ensure(1);
    this.buffer.writeInt8(value, this.offset);
    this.offset += 1;
    return this;
  }

  writeBool(value: boolean): this {
    return this.writeInt8(value ? 1 : 0);
  }

  writeInt16(value: number): this {
    this.ensure(2);
    this.buffer.writeInt16BE(value, this.offset);
    this.offset += 2;
    return this;
  }

  writeUint16(value: number): this {
    this.ensure(2);
    this.buffer.writeUInt16BE(value, this.offset);
    this.offset += 2;
    return this;
  }

  writeInt32(value: number): this {
    this.ensure(4);
    this.buffer.writeInt32BE(value, this.offset);
    this.offset += 4;
    return this;
  }

  writeUint32(value: number): this {
    this.ensure(4);
    this.buffer.writeUInt32BE(value, this.offset);
    this.offset += 4;
    return this;
  }

  writeInt64(value: bigint): this {
    this.ensure(8);
    this.buffer.writeBigInt64BE(value, this.offset);
    this.offset += 8;
    return this;
  }

  writeFloat64(value: number): this {
    this.ensure(8);
    this.buffer.writeDoubleBE(value, this.offset);
    this.offset += 8;
    return this;
  }

  writeUuid(value: Uuid): this {
    return this.writeRaw(value.bytes);
  }

  writeUnsignedVarint(value: number): this {
    this.ensure(5);
    let remaining = value;
    while (remaining >= 0x80) {
      this.buffer[this.offset] = (remaining % 0x80) | 0x80;
      this.offset += 1;
      remaining = Math.floor(remaining / 0x80);
    }
    this.buffer[this.offset] = remaining;
    this.offset += 1;
    return this;
  }

  /** Zigzag varint (int32). */
  writeVarint(value: number): this {
    return this.writeUnsignedVarint(value >= 0 ? value * 2 : -value * 2 - 1);
  }

  /** Zigzag varlong (int64). */
  writeVarlong(value: bigint): this {
    let raw = BigInt.asUintN(64, (value << 1n) ^ (value >> 63n));
    this.ensure(10);
    while (raw >= 0x80n) {
      this.buffer[this.offset] = Number(raw & 0x7fn) | 0x80;
      this.offset += 1;
      raw >>= 7n;
    }
    this.buffer[this.offset] = Number(raw);
    this.offset += 1;
    return this;
  }

  writeRaw(bytes: Uint8Array): this {
    this.ensure(bytes.length);
    this.buffer.set(bytes, this.offset);
    this.offset += bytes.length;
    return this;
  }

  /** int16 length, -1 = null. */
  writeNullableString(value: string | null): this {
    if (value === null) return this.writeInt16(-1);
    const size = Buffer.byteLength(value, 'utf8');
    this.writeInt16(size);
    this.ensure(size);
    this.offset += this.buffer.write(value, this.offset, size, 'utf8');
    return this;
  }

  /** Unsigned varint (length + 1), 0 = null. */
  writeCompactNullableString(value: string | null): this {
    if (value === null) return this.writeUnsignedVarint(0);
    const size = Buffer.byteLength(value, 'utf8');
    this.writeUnsignedVarint(size + 1);
    this.ensure(size);
    this.offset += this.buffer.write(value, this.offset, size, 'utf8');
    return this;
  }

  writeNullableBytes(value: Uint8Array | null): this {
    if (value === null) return this.writeInt32(-1);
    return this.writeInt32(value.length).writeRaw(value);
  }

  writeCompactNullableBytes(value: Uint8Array | null): this {
    if (value === null) return this.writeUnsignedVarint(0);
    return this.writeUnsignedVarint(value.length + 1).writeRaw(value);
  }

  writeArrayLength(compact: boolean, count: number | null): this {
    if (compact) return this.writeUnsignedVarint(count === null ? 0 : count + 1);
    return this.writeInt32(count === null ? -1 : count);
  }
}

/** Bytes an unsigned varint of `value` takes. */
export function sizeOfUnsignedVarint(value: number): number {
  let size = 1;
  let remaining = value;
  while (remaining >= 0x80) {
    size += 1;
    remaining = Math.floor(remaining / 0x80);
  }
  return size;
}

/** Bytes a zigzag varint of `value` takes. */
export function sizeOfVarint(value: number): number {
  return sizeOfUnsignedVarint(value >= 0 ? value * 2 : -value * 2 - 1);
}
