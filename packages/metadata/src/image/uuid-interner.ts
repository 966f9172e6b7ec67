import type { Uuid } from '@kraft/protocol';

/** Directory ids are few (brokers × log directories); past this many the interner stops growing. */
const MAX_INTERNED_UUIDS = 4096;

/**
 * Hands out one `Uuid` object per distinct value, so a million partitions placed in a few dozen
 * directories hold a few dozen directory ids and not three million copies (about 64 bytes
 * each). Keyed by `Uuid.hash()`: a colliding value that differs is returned as it is, never
 * confused with the interned one. Bounded by `maxSize`.
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
    const hash = uuid.hash();
    const interned = this.byHash.get(hash);
    if (interned !== undefined) return interned.equals(uuid) ? interned : uuid;
    if (this.byHash.size < this.maxSize) this.byHash.set(hash, uuid);
    return uuid;
  }
}
