import type { Map as PersistentMap } from 'immutable';
import { PersistentMapDelta } from './persistent-map-delta.js';

/**
 * The delta of an image part that is one map of whole records replaced or removed by key: ACLs,
 * SCRAM credentials, delegation tokens. `rebuild` makes the part's image from the sealed map.
 */
export class KeyedEntitiesDelta<V, I> {
  readonly image: I;
  private readonly entries: PersistentMapDelta<string, V>;
  private readonly rebuild: (entries: PersistentMap<string, V>) => I;

  constructor(
    image: I,
    entries: PersistentMap<string, V>,
    rebuild: (entries: PersistentMap<string, V>) => I,
  ) {
    this.image = image;
    this.entries = new PersistentMapDelta(entries);
    this.rebuild = rebuild;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  set(key: string, value: V): void {
    this.entries.set(key, value);
  }

  delete(key: string): V | undefined {
    return this.entries.delete(key);
  }

  changedKeys(): ReadonlySet<string> {
    return this.entries.changedKeys();
  }

  removed(): ReadonlyMap<string, V> {
    return this.entries.removed();
  }

  apply(): I {
    return this.entries.hasChanges() ? this.rebuild(this.entries.seal()) : this.image;
  }
}
