import { randomBytes } from 'node:crypto';
import { ProtocolError } from '../errors/protocol-error.js';

const UUID_SIZE_BYTES = 16;

/**
 * Kafka's 128-bit Uuid. Its text form is base64url without padding of the 16 bytes (most
 * significant long first), always 22 characters.
 *
 * Held as four big-endian int32 words, not as a 16-byte `Buffer`: decoding a record allocates one
 * small object per id instead of an object and a typed-array view over a pooled slab (which also
 * keeps the whole slab alive for as long as the id lives), and comparing two ids is four number
 * comparisons. The bytes are made on demand (`bytes`, `writeTo`).
 */
export class Uuid {
  private readonly word0: number;
  private readonly word1: number;
  private readonly word2: number;
  private readonly word3: number;
  private text: string | undefined;

  private constructor(word0: number, word1: number, word2: number, word3: number) {
    this.word0 = word0;
    this.word1 = word1;
    this.word2 = word2;
    this.word3 = word3;
  }

  static readonly ZERO = new Uuid(0, 0, 0, 0);
  static readonly ONE = new Uuid(0, 0, 0, 1);
  /** `__cluster_metadata`'s topic id, `Uuid(0, 1)`. */
  static readonly METADATA_TOPIC_ID = Uuid.ONE;

  /** The Uuid of these 16 bytes (copied: it never aliases the caller's buffer). */
  static fromBytes(bytes: Uint8Array): Uuid {
    if (bytes.length !== UUID_SIZE_BYTES) {
      throw new ProtocolError(`a uuid is ${UUID_SIZE_BYTES} bytes, got ${bytes.length}`);
    }
    return Uuid.copyOf(bytes, 0);
  }

  /**
   * The Uuid of the 16 bytes at `offset` of `buffer`, read into its own words: no view of the
   * buffer is kept. The caller checks that the bytes are there.
   */
  static copyOf(buffer: Uint8Array, offset: number): Uuid {
    return new Uuid(
      int32At(buffer, offset),
      int32At(buffer, offset + 4),
      int32At(buffer, offset + 8),
      int32At(buffer, offset + 12),
    );
  }

  /**
   * The Uuid of Kafka's `new Uuid(mostSignificantBits, leastSignificantBits)`: each half is taken
   * as a signed 64-bit value (wrapped with `BigInt.asIntN`), written big-endian.
   */
  static fromLongs(mostSignificantBits: bigint, leastSignificantBits: bigint): Uuid {
    const bytes = Buffer.alloc(UUID_SIZE_BYTES);
    bytes.writeBigInt64BE(BigInt.asIntN(64, mostSignificantBits), 0);
    bytes.writeBigInt64BE(BigInt.asIntN(64, leastSignificantBits), 8);
    return Uuid.copyOf(bytes, 0);
  }

  /** Accepts Kafka's text form; like Kafka, tolerates padding up to 24 characters. */
  static fromString(text: string): Uuid {
    if (text.length > 24 || !/^[A-Za-z0-9_-]+=*$/.test(text)) {
      throw new ProtocolError(`invalid uuid text '${text}'`);
    }
    const bytes = Buffer.from(text.replace(/=+$/, ''), 'base64url');
    if (bytes.length !== UUID_SIZE_BYTES || bytes.toString('base64url') !== text.replace(/=+$/, '')) {
      throw new ProtocolError(`uuid text '${text}' does not decode to 16 bytes`);
    }
    return Uuid.copyOf(bytes, 0);
  }

  /**
   * A random Uuid that is not reserved: not ZERO or ONE, and whose text does not start with
   * '-' (Kafka redraws those so they are never mistaken for command-line flags).
   */
  static randomUuid(nextBytes: (size: number) => Buffer = randomBytes): Uuid {
    for (;;) {
      const candidate = Uuid.fromBytes(nextBytes(UUID_SIZE_BYTES));
      if (candidate.equals(Uuid.ZERO) || candidate.equals(Uuid.ONE)) continue;
      if (candidate.toString().startsWith('-')) continue;
      return candidate;
    }
  }

  /**
   * A random directory id (KIP-858): like `randomUuid`, and also never one of the reserved
   * directory ids `msb == 0 && lsb < 100` (UNASSIGNED, LOST, MIGRATING...).
   */
  static randomDirectoryId(nextBytes: (size: number) => Buffer = randomBytes): Uuid {
    for (;;) {
      const candidate = Uuid.randomUuid(nextBytes);
      if (
        candidate.mostSignificantBits === 0n &&
        candidate.leastSignificantBits >= 0n &&
        candidate.leastSignificantBits < 100n
      ) {
        continue;
      }
      return candidate;
    }
  }

  get mostSignificantBits(): bigint {
    return (BigInt(this.word0) << 32n) | BigInt(this.word1 >>> 0);
  }

  get leastSignificantBits(): bigint {
    return (BigInt(this.word2) << 32n) | BigInt(this.word3 >>> 0);
  }

  /** The 16 bytes, most significant first: a new buffer on every call. */
  get bytes(): Buffer {
    const bytes = Buffer.allocUnsafe(UUID_SIZE_BYTES);
    this.writeTo(bytes, 0);
    return bytes;
  }

  /** Writes the 16 bytes at `offset` of `target`; the caller checks that they fit. */
  writeTo(target: Uint8Array, offset: number): void {
    setInt32At(target, offset, this.word0);
    setInt32At(target, offset + 4, this.word1);
    setInt32At(target, offset + 8, this.word2);
    setInt32At(target, offset + 12, this.word3);
  }

  /**
   * A 32-bit mix of the id, for hash tables keyed by ids: equal ids hash equal, different ids
   * may collide.
   */
  hash(): number {
    return (
      (Math.imul(this.word0, 0x9e3779b1) ^
        Math.imul(this.word1, 0x85ebca6b) ^
        Math.imul(this.word2, 0xc2b2ae35) ^
        this.word3) |
      0
    );
  }

  /** Whether `other` holds the same 128 bits; false for null and undefined. */
  equals(other: Uuid | null | undefined): boolean {
    if (other === null || other === undefined) return false;
    return (
      this.word0 === other.word0 &&
      this.word1 === other.word1 &&
      this.word2 === other.word2 &&
      this.word3 === other.word3
    );
  }

  /** Kafka's text form: 22 characters of unpadded base64url (`AAAAAAAAAAAAAAAAAAAAAQ` for ONE). */
  toString(): string {
    this.text ??= this.bytes.toString('base64url');
    return this.text;
  }

  /** The text form, so `JSON.stringify` writes a Uuid as Kafka's JSON files do (`quorum-state`). */
  toJSON(): string {
    return this.toString();
  }
}

function int32At(buffer: Uint8Array, offset: number): number {
  return (
    ((buffer[offset] as number) << 24) |
    ((buffer[offset + 1] as number) << 16) |
    ((buffer[offset + 2] as number) << 8) |
    (buffer[offset + 3] as number)
  );
}

function setInt32At(target: Uint8Array, offset: number, value: number): void {
  target[offset] = value >>> 24;
  target[offset + 1] = value >>> 16;
  target[offset + 2] = value >>> 8;
  target[offset + 3] = value;
}
