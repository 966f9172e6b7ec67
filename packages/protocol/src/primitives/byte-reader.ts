import { ProtocolError } from '../errors/protocol-error.js';
import { Uuid } from './uuid.js';

const MAX_UNSIGNED_VARINT_BYTES = 5;
const MAX_VARLONG_BYTES = 10;

/**
 * A bounds-checked, big-endian cursor over a Buffer. Every read checks what remains first, so a
 * truncated or lying input raises a typed `ProtocolError` and never a Node `RangeError`, and no
 * length read from the input is allocated before it is checked against the bytes that remain.
 * Byte strings come back as zero-copy views (`subarray`) of the input.
 */
export class ByteReader {
  readonly buffer: Buffer;
  offset: number;
  readonly end: number;

  constructor(buffer: Buffer, offset = 0, end = buffer.length) {
    if (offset < 0 || end > buffer.length || offset > end) {
      throw new ProtocolError(`invalid window [${offset}, ${end}) over ${buffer.length} bytes`);
    }
    this.buffer = buffer;
    this.offset = offset;
    this.end = end;
  }

  /** Bytes left between the cursor (`offset`) and the end of the window. */
  remaining(): number {
    return this.end - this.offset;
  }

  private require(size: number): void {
    if (this.end - this.offset < size) {
      throw new ProtocolError(`needs ${size} bytes, ${this.end - this.offset} remain`, '', {
        truncated: true,
      });
    }
  }

  /**
   * Reads Kafka's `int8` and advances 1 byte.
   *
   * @throws {@link ProtocolError} (truncated) when no byte remains.
   */
  readInt8(): number {
    this.require(1);
    const value = this.buffer.readInt8(this.offset);
    this.offset += 1;
    return value;
  }

  /** Reads Kafka's `bool`: one byte, any non-zero value is true. Truncation as {@link ByteReader.readInt8}. */
  readBool(): boolean {
    return this.readInt8() !== 0;
  }

  /**
   * Reads Kafka's `int16` (big-endian, signed) and advances 2 bytes.
   *
   * @throws {@link ProtocolError} (truncated) when fewer than 2 bytes remain.
   */
  readInt16(): number {
    this.require(2);
    const value = this.buffer.readInt16BE(this.offset);
    this.offset += 2;
    return value;
  }

  /**
   * Reads Kafka's `uint16` (big-endian, 0..65535: ports in endpoints) and advances 2 bytes.
   *
   * @throws {@link ProtocolError} (truncated) when fewer than 2 bytes remain.
   */
  readUint16(): number {
    this.require(2);
    const value = this.buffer.readUInt16BE(this.offset);
    this.offset += 2;
    return value;
  }

  /**
   * Reads Kafka's `int32` (big-endian, signed) and advances 4 bytes.
   *
   * @throws {@link ProtocolError} (truncated) when fewer than 4 bytes remain.
   */
  readInt32(): number {
    this.require(4);
    // Assembled from the bytes already bounds-checked, without Buffer's own checks.
    const buffer = this.buffer;
    const offset = this.offset;
    this.offset = offset + 4;
    return (
      ((buffer[offset] as number) << 24) |
      ((buffer[offset + 1] as number) << 16) |
      ((buffer[offset + 2] as number) << 8) |
      (buffer[offset + 3] as number)
    );
  }

  /**
   * Reads Kafka's `uint32` (big-endian, 0..2^32-1) and advances 4 bytes.
   *
   * @throws {@link ProtocolError} (truncated) when fewer than 4 bytes remain.
   */
  readUint32(): number {
    this.require(4);
    const value = this.buffer.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }

  /**
   * Reads Kafka's `int64` (big-endian, signed) as a bigint, every value exact, and advances 8
   * bytes; convert offsets with `toSafeNumber`.
   *
   * @throws {@link ProtocolError} (truncated) when fewer than 8 bytes remain.
   */
  readInt64(): bigint {
    this.require(8);
    const value = this.buffer.readBigInt64BE(this.offset);
    this.offset += 8;
    return value;
  }

  /**
   * Reads Kafka's `float64` (big-endian IEEE 754 double) and advances 8 bytes.
   *
   * @throws {@link ProtocolError} (truncated) when fewer than 8 bytes remain.
   */
  readFloat64(): number {
    this.require(8);
    const value = this.buffer.readDoubleBE(this.offset);
    this.offset += 8;
    return value;
  }

  /**
   * Reads Kafka's `uuid` (16 raw bytes, most significant first) and advances 16 bytes; the
   * {@link Uuid} copies them, so it outlives the input buffer.
   *
   * @throws {@link ProtocolError} (truncated) when fewer than 16 bytes remain.
   */
  readUuid(): Uuid {
    this.require(16);
    const value = Uuid.copyOf(this.buffer, this.offset);
    this.offset += 16;
    return value;
  }

  /** LEB128, at most 5 bytes, value within uint32; longer or overflowing encodings are rejected. */
  readUnsignedVarint(): number {
    // Most varints (lengths, counts, tags) are one byte.
    const first = this.offset < this.end ? (this.buffer[this.offset] as number) : 0x80;
    if (first < 0x80) {
      this.offset += 1;
      return first;
    }
    let value = 0;
    for (let index = 0; index < MAX_UNSIGNED_VARINT_BYTES; index += 1) {
      this.require(1);
      const byte = this.buffer[this.offset] as number;
      this.offset += 1;
      if (index === MAX_UNSIGNED_VARINT_BYTES - 1 && byte > 0x0f) {
        throw new ProtocolError('unsigned varint is over-long or exceeds 32 bits');
      }
      value += (byte & 0x7f) * 2 ** (7 * index);
      if ((byte & 0x80) === 0) return value;
    }
    throw new ProtocolError('unsigned varint is over-long');
  }

  /** Zigzag varint (int32). */
  readVarint(): number {
    const raw = this.readUnsignedVarint();
    // raw < 2^32: zigzag decode without 32-bit overflow surprises.
    return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
  }

  /** Zigzag varlong (int64) as bigint; at most 10 bytes. */
  readVarlong(): bigint {
    let raw = 0n;
    for (let index = 0; index < MAX_VARLONG_BYTES; index += 1) {
      this.require(1);
      const byte = this.buffer[this.offset] as number;
      this.offset += 1;
      if (index === MAX_VARLONG_BYTES - 1 && byte > 0x01) {
        throw new ProtocolError('varlong is over-long or exceeds 64 bits');
      }
      raw |= BigInt(byte & 0x7f) << BigInt(7 * index);
      if ((byte & 0x80) === 0) return (raw >> 1n) ^ -(raw & 1n);
    }
    throw new ProtocolError('varlong is over-long');
  }

  /** Takes `size` bytes as a zero-copy view, after checking they are there. */
  readSlice(size: number): Buffer {
    if (size < 0) throw new ProtocolError(`negative length ${size}`);
    this.require(size);
    const slice = this.buffer.subarray(this.offset, this.offset + size);
    this.offset += size;
    return slice;
  }

  /**
   * Advances past `size` bytes (an unknown tagged field's payload) without reading them.
   *
   * @throws {@link ProtocolError} for a negative size, or (truncated) when fewer than `size` remain.
   */
  skip(size: number): void {
    this.readSlice(size);
  }

  private readUtf8(size: number): string {
    this.require(size);
    const text = this.buffer.toString('utf8', this.offset, this.offset + size);
    this.offset += size;
    return text;
  }

  /** int16 length, -1 = null. */
  readNullableString(): string | null {
    const size = this.readInt16();
    if (size === -1) return null;
    if (size < 0) throw new ProtocolError(`negative string length ${size}`);
    return this.readUtf8(size);
  }

  /** Unsigned varint (length + 1), 0 = null; a length above `maxSizeBytes` is refused. */
  readCompactNullableString(maxSizeBytes = Number.MAX_SAFE_INTEGER): string | null {
    const sizePlusOne = this.readUnsignedVarint();
    if (sizePlusOne === 0) return null;
    if (sizePlusOne - 1 > maxSizeBytes) {
      throw new ProtocolError(`string of ${sizePlusOne - 1} bytes exceeds ${maxSizeBytes}`);
    }
    return this.readUtf8(sizePlusOne - 1);
  }

  /** int32 length, -1 = null. */
  readNullableBytes(): Buffer | null {
    const size = this.readInt32();
    if (size === -1) return null;
    if (size < 0) throw new ProtocolError(`negative bytes length ${size}`);
    return this.readSlice(size);
  }

  /** Unsigned varint (length + 1), 0 = null. */
  readCompactNullableBytes(): Buffer | null {
    const sizePlusOne = this.readUnsignedVarint();
    if (sizePlusOne === 0) return null;
    return this.readSlice(sizePlusOne - 1);
  }

  /**
   * Array element count, classic (int32, -1 = null) or compact (varint count + 1, 0 = null).
   * Every element takes at least `minElementBytes`, so a count that cannot fit in what remains
   * is rejected before any array is allocated.
   */
  readArrayLength(compact: boolean, minElementBytes = 1): number | null {
    let count: number;
    if (compact) {
      const countPlusOne = this.readUnsignedVarint();
      if (countPlusOne === 0) return null;
      count = countPlusOne - 1;
    } else {
      count = this.readInt32();
      if (count === -1) return null;
      if (count < 0) throw new ProtocolError(`negative array length ${count}`);
    }
    if (count * Math.max(1, minElementBytes) > this.remaining()) {
      throw new ProtocolError(`array of ${count} elements cannot fit in ${this.remaining()} bytes`, '', {
        truncated: true,
      });
    }
    return count;
  }
}
