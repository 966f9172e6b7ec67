import { randomBytes } from 'node:crypto';
import { ProtocolError } from '../errors/protocol-error.js';

const UUID_SIZE_BYTES = 16;

/**
 * Kafka's 128-bit Uuid. Its text form is base64url without padding of the 16 bytes (most
 * significant long first), always 22 characters.
 */
export class Uuid {
  /** Exactly 16 bytes; never mutated. */
  readonly bytes: Buffer;
  private text: string | undefined;

  private constructor(bytes: Buffer) {
    this.bytes = bytes;
  }

  static readonly ZERO = new Uuid(Buffer.alloc(UUID_SIZE_BYTES));
  static readonly ONE = Uuid.fromLongs(0n, 1n);
  /** `__cluster_metadata`'s topic id, `Uuid(0, 1)`. */
  static readonly METADATA_TOPIC_ID = Uuid.ONE;

  /** Copies 16 bytes so the Uuid never aliases a frame buffer. */
  static fromBytes(bytes: Uint8Array): Uuid {
    if (bytes.length !== UUID_SIZE_BYTES) {
      throw new ProtocolError(`a uuid is ${UUID_SIZE_BYTES} bytes, got ${bytes.length}`);
    }
    return new Uuid(Buffer.from(bytes));
  }

  /**
   * Copies the 16 bytes at `offset` of `buffer` into the Uuid's own storage: one small buffer
   * and the Uuid, no intermediate view. The caller checks that the bytes are there.
   */
  static copyOf(buffer: Uint8Array, offset: number): Uuid {
    const bytes = Buffer.allocUnsafe(UUID_SIZE_BYTES);
    for (let index = 0; index < UUID_SIZE_BYTES; index += 1) {
      bytes[index] = buffer[offset + index] as number;
    }
    return new Uuid(bytes);
  }

  /**
   * The Uuid of Kafka's `new Uuid(mostSignificantBits, leastSignificantBits)`: each half is taken
   * as a signed 64-bit value (wrapped with `BigInt.asIntN`), written big-endian.
   */
  static fromLongs(mostSignificantBits: bigint, leastSignificantBits: bigint): Uuid {
    const bytes = Buffer.alloc(UUID_SIZE_BYTES);
    bytes.writeBigInt64BE(BigInt.asIntN(64, mostSignificantBits), 0);
    bytes.writeBigInt64BE(BigInt.asIntN(64, leastSignificantBits), 8);
    return new Uuid(bytes);
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
    return new Uuid(bytes);
  }

  /**
   * A random Uuid that is not reserved: not ZERO or ONE, and whose text does not start with
   * '-' (Kafka redraws those so they are never mistaken for command-line flags).
   */
  static randomUuid(nextBytes: (size: number) => Buffer = randomBytes): Uuid {
    for (;;) {
      const candidate = new Uuid(Buffer.from(nextBytes(UUID_SIZE_BYTES)));
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
    return this.bytes.readBigInt64BE(0);
  }

  get leastSignificantBits(): bigint {
    return this.bytes.readBigInt64BE(8);
  }

  /**
   * Whether `other` holds the same 16 bytes; false for null and undefined. Compared as four int32s
   * in JavaScript: `Buffer.equals` crosses into C++, which costs more than the comparison on the
   * replay paths that compare an id per record.
   */
  equals(other: Uuid | null | undefined): boolean {
    if (other === null || other === undefined) return false;
    const a = this.bytes;
    const b = other.bytes;
    return (
      a === b ||
      (a.readInt32BE(0) === b.readInt32BE(0) &&
        a.readInt32BE(4) === b.readInt32BE(4) &&
        a.readInt32BE(8) === b.readInt32BE(8) &&
        a.readInt32BE(12) === b.readInt32BE(12))
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
