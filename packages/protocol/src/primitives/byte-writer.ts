import { IllegalStateError } from '../errors/illegal-state-error.js';
import type { Uuid } from './uuid.js';

const INITIAL_CAPACITY_BYTES = 256;

/**
 * A growable big-endian writer. Capacity doubles, so writing n bytes costs O(n) amortised.
 * `toBuffer()` returns a view of the written bytes without copying.
 */
export class ByteWriter {
  private buffer: Buffer;
  offset = 0;
  /** Output chunks when gathering (see `gatherLargeBytes`); undefined otherwise. */
  private gathered: Buffer[] | undefined;
  private gatherStart = 0;
  private gatherThresholdBytes = Number.POSITIVE_INFINITY;
  private gatheredBytes = 0;
  /** Open size prefixes: their payload may be moved, so nothing inside one is gathered. */
  private openSizePrefixes = 0;

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

  /** The size of the internal buffer: what the writer holds on to, written or not. */
  capacityInBytes(): number {
    return this.buffer.length;
  }

  /**
   * The bytes written so far, as a view of the internal buffer (not copied): it shares memory
   * with the writer, so take it once writing is done.
   *
   * @throws {@link IllegalStateError} on a gathering writer, whose output is `toChunks()`.
   */
  toBuffer(): Buffer {
    if (this.gathered !== undefined) throw new IllegalStateError('a gathering writer ends with toChunks()');
    return this.buffer.subarray(0, this.offset);
  }

  /**
   * From here on, byte strings of at least `thresholdBytes` (record batches in a Fetch
   * response) are referenced as their own output chunks instead of being copied; `toChunks()`
   * returns the output, ready for a vectored socket write.
   */
  gatherLargeBytes(thresholdBytes: number): this {
    this.gathered = [];
    this.gatherStart = this.offset;
    this.gatherThresholdBytes = thresholdBytes;
    return this;
  }

  /** The output as chunks, in order (one chunk when nothing was large enough to gather). */
  toChunks(): Buffer[] {
    const chunks = this.gathered ?? [];
    const tail = this.buffer.subarray(this.gathered === undefined ? 0 : this.gatherStart, this.offset);
    if (tail.length > 0 || chunks.length === 0) chunks.push(tail);
    this.gathered = undefined;
    return chunks;
  }

  /** Bytes written so far, gathered chunks included. */
  sizeInBytes(): number {
    return this.offset + this.gatheredBytes;
  }

  /** Writes `bytes`, by reference when gathering and they are large enough, else by copy. */
  writeBytesView(bytes: Uint8Array): this {
    const gathered = this.gathered;
    if (gathered === undefined || this.openSizePrefixes > 0 || bytes.length < this.gatherThresholdBytes) {
      return this.writeRaw(bytes);
    }
    if (this.offset > this.gatherStart) gathered.push(this.buffer.subarray(this.gatherStart, this.offset));
    gathered.push(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
    this.gatheredBytes += bytes.length;
    this.gatherStart = this.offset;
    return this;
  }

  /** Writes Kafka's `int8`; a value outside -128..127 is Node's `RangeError`. */
  writeInt8(value: number): this {
    this.ensure(1);
    this.buffer.writeInt8(value, this.offset);
    this.offset += 1;
    return this;
  }

  /** Writes Kafka's `bool`: one byte, 1 for true and 0 for false. */
  writeBool(value: boolean): this {
    return this.writeInt8(value ? 1 : 0);
  }

  /** Writes Kafka's `int16`, big-endian; a value outside the int16 range is Node's `RangeError`. */
  writeInt16(value: number): this {
    this.ensure(2);
    this.buffer.writeInt16BE(value, this.offset);
    this.offset += 2;
    return this;
  }

  /** Writes Kafka's `uint16` (a port), big-endian; outside 0..65535 is Node's `RangeError`. */
  writeUint16(value: number): this {
    this.ensure(2);
    this.buffer.writeUInt16BE(value, this.offset);
    this.offset += 2;
    return this;
  }

  /** Writes Kafka's `int32`, big-endian; a value outside the int32 range is Node's `RangeError`. */
  writeInt32(value: number): this {
    this.ensure(4);
    const buffer = this.buffer;
    const offset = this.offset;
    if (value === (value | 0)) {
      // An int32 already: its bytes directly, without Buffer's own checks.
      buffer[offset] = value >>> 24;
      buffer[offset + 1] = value >>> 16;
      buffer[offset + 2] = value >>> 8;
      buffer[offset + 3] = value;
    } else {
      buffer.writeInt32BE(value, offset); // Node's RangeError or TypeError for anything else
    }
    this.offset = offset + 4;
    return this;
  }

  /** Writes Kafka's `uint32`, big-endian; outside 0..2^32-1 is Node's `RangeError`. */
  writeUint32(value: number): this {
    this.ensure(4);
    this.buffer.writeUInt32BE(value, this.offset);
    this.offset += 4;
    return this;
  }

  /** Writes Kafka's `int64` from a bigint, big-endian; outside the int64 range is Node's `RangeError`. */
  writeInt64(value: bigint): this {
    this.ensure(8);
    this.buffer.writeBigInt64BE(value, this.offset);
    this.offset += 8;
    return this;
  }

  /** Writes Kafka's `float64`: the IEEE 754 double, big-endian (NaN and infinities included). */
  writeFloat64(value: number): this {
    this.ensure(8);
    this.buffer.writeDoubleBE(value, this.offset);
    this.offset += 8;
    return this;
  }

  /** Writes Kafka's `uuid`: its 16 bytes as they are. */
  writeUuid(value: Uuid): this {
    this.ensure(16);
    value.writeTo(this.buffer, this.offset);
    this.offset += 16;
    return this;
  }

  /**
   * Writes Kafka's `unsigned varint` (LEB128, 1 to 5 bytes).
   *
   * @throws {@link IllegalStateError} when `value` is not an integer in 0..2^32-1: a larger one
   *   would need more than the 5 bytes Kafka's readers accept (and than the space reserved here).
   */
  writeUnsignedVarint(value: number): this {
    // `>>> 0` maps every integer in 0..2^32-1 to itself and anything else elsewhere: one check.
    if (value >>> 0 !== value) throw new IllegalStateError(`unsigned varint out of range: ${value}`);
    if (value < 0x80) {
      this.ensure(1);
      this.buffer[this.offset] = value;
      this.offset += 1;
      return this;
    }
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

  /** Copies `bytes` as they are, with no length prefix (always a copy, even when gathering). */
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

  /**
   * Writes Kafka's classic `bytes`/nullable bytes: int32 length (-1 for null) then the bytes,
   * gathered by reference when they are large enough (see `gatherLargeBytes`).
   */
  writeNullableBytes(value: Uint8Array | null): this {
    if (value === null) return this.writeInt32(-1);
    return this.writeInt32(value.length).writeBytesView(value);
  }

  /**
   * Writes Kafka's `compact bytes`/compact nullable bytes (flexible versions): unsigned varint
   * length + 1 (0 for null) then the bytes, gathered by reference when large enough.
   */
  writeCompactNullableBytes(value: Uint8Array | null): this {
    if (value === null) return this.writeUnsignedVarint(0);
    return this.writeUnsignedVarint(value.length + 1).writeBytesView(value);
  }

  /**
   * Reserves one byte for an unsigned-varint size and returns where the sized payload starts.
   * Most tagged fields are under 128 bytes, so this avoids a separate sizing pass.
   */
  reserveSizePrefix(): number {
    this.openSizePrefixes += 1;
    this.ensure(1);
    this.offset += 1;
    return this.offset;
  }

  /** Fills the prefix reserved at `start`, moving the payload if its size needs more bytes. */
  commitSizePrefix(start: number): void {
    this.openSizePrefixes -= 1;
    const size = this.offset - start;
    const extraBytes = sizeOfUnsignedVarint(size) - 1;
    if (extraBytes > 0) {
      this.ensure(extraBytes);
      this.buffer.copyWithin(start + extraBytes, start, this.offset);
    }
    let position = start - 1;
    let remaining = size;
    while (remaining >= 0x80) {
      this.buffer[position] = (remaining % 0x80) | 0x80;
      position += 1;
      remaining = Math.floor(remaining / 0x80);
    }
    this.buffer[position] = remaining;
    this.offset += extraBytes;
  }

  /** Writes an int32 at an earlier position (a frame's size once the frame is complete). */
  patchInt32(position: number, value: number): void {
    if (this.gathered !== undefined) throw new IllegalStateError('cannot patch bytes that may be gathered');
    this.buffer.writeInt32BE(value, position);
  }

  /**
   * Writes an array's element count: classic int32 (-1 for null) or, when `compact` (flexible
   * versions), unsigned varint count + 1 (0 for null). The elements follow.
   */
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
