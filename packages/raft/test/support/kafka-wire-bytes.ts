import type { Uuid } from '@kraft/protocol';

/**
 * Bytes written field by field the way Kafka's generated `Message.write` does for flexible
 * versions (compact strings and arrays, unsigned varint lengths, a tagged-field section at the
 * end of each struct). Tests build an expected response with it, independently of
 * `@kraft/protocol`'s codecs, and compare the codec's output with it byte for byte.
 */
export class KafkaWireBytes {
  private readonly chunks: Buffer[] = [];

  int16(value: number): this {
    const bytes = Buffer.alloc(2);
    bytes.writeInt16BE(value);
    return this.push(bytes);
  }

  int32(value: number): this {
    const bytes = Buffer.alloc(4);
    bytes.writeInt32BE(value);
    return this.push(bytes);
  }

  uint16(value: number): this {
    const bytes = Buffer.alloc(2);
    bytes.writeUInt16BE(value);
    return this.push(bytes);
  }

  int64(value: number | bigint): this {
    const bytes = Buffer.alloc(8);
    bytes.writeBigInt64BE(BigInt(value));
    return this.push(bytes);
  }

  uuid(value: Uuid): this {
    return this.int64(value.mostSignificantBits).int64(value.leastSignificantBits);
  }

  unsignedVarint(value: number): this {
    const bytes: number[] = [];
    let remaining = value;
    while (remaining >= 0x80) {
      bytes.push((remaining & 0x7f) | 0x80);
      remaining >>>= 7;
    }
    bytes.push(remaining);
    return this.push(Buffer.from(bytes));
  }

  /** COMPACT_NULLABLE_STRING: length + 1 as an unsigned varint (0 for null), then UTF-8. */
  compactString(value: string | null): this {
    if (value === null) return this.unsignedVarint(0);
    const utf8 = Buffer.from(value, 'utf8');
    return this.unsignedVarint(utf8.length + 1).push(utf8);
  }

  /** COMPACT_ARRAY header: element count + 1. The elements follow through the same builder. */
  compactArrayLength(count: number): this {
    return this.unsignedVarint(count + 1);
  }

  /** An empty tagged-field section. */
  noTaggedFields(): this {
    return this.unsignedVarint(0);
  }

  /** A tagged-field section with one field: count 1, tag, size, then the field's bytes. */
  oneTaggedField(tag: number, field: Buffer): this {
    return this.unsignedVarint(1).unsignedVarint(tag).unsignedVarint(field.length).push(field);
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }

  private push(bytes: Buffer): this {
    this.chunks.push(bytes);
    return this;
  }
}
