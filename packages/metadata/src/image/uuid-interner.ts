import type { Uuid } from '@kraft/protocol';

/** Directory ids are few (brokers × log directories); past this many the interner stops growing. */
const MAX_INTERNED_UUIDS = 4096;

/**
 * Hands out one `Uuid` object per distinct value, so a million partitions placed in a few dozen
 * directories hold a few dozen directory ids and not three million copies (each a `Uuid` and a
 * 16-byte `Buffer`, about 140 bytes). Keyed by a 32-bit mix of the bytes: a colliding value that
 * differs is returned as it is, never confused with the interned one. Bounded by `maxSize`.
 */
export class UuidInterner {
  private readonly byHash = new Map<number, Uuid>();
  private readonly maxSize: number;

  constructor(maxSize = MAX_INTERNED_UUIDS) {
    this.maxSize = maxSize;
  }

  get size(): number {
    return this.byHash.size;
  }

  intern(uuid: Uuid): Uuid {
    const bytes = uuid.bytes;
    const hash =
      (Math.imul(bytes.readInt32BE(0), 0x9e3779b1) ^
        Math.imul(bytes.readInt32BE(4), 0x85ebca6b) ^
        Math.imul(bytes.readInt32BE(8), 0xc2b2ae35) ^
        bytes.readInt32BE(12)) |
      0;
    const interned = this.byHash.get(hash);
    if (interned !== undefined) return interned.equals(uuid) ? interned : uuid;
    if (this.byHash.size < this.maxSize) this.byHash.set(hash, uuid);
    return uuid;
  }

  /** A new exact-size list of the interned ids (a decoded list has spare capacity). */
  internAll(ids: readonly Uuid[]): readonly Uuid[] {
    return ids.map((id) => this.intern(id));
  }
}
