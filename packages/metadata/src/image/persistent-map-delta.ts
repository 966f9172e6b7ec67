import { invariant } from '@kraft/protocol';
import type { Map as PersistentMap } from 'immutable';

/**
 * The changes one delta makes to one persistent map of an image. The first change takes a
 * transient copy (`asMutable`): later changes update the nodes that copy owns in place, and the
 * base map, still held by the previous image, is never touched. `seal()` turns the transient into
 * the next image's map, so k changes to a map of n entries cost O(k log n) and no O(n) copy.
 *
 * It also remembers which keys changed and what the removed entries were, for publishers.
 */
export class PersistentMapDelta<K, V> {
  private readonly base: PersistentMap<K, V>;
  private transient: PersistentMap<K, V> | undefined;
  private sealed: PersistentMap<K, V> | undefined;
  private readonly changed = new Set<K>();
  private readonly removedEntries = new Map<K, V>();

  constructor(base: PersistentMap<K, V>) {
    this.base = base;
  }

  /** The map as this delta sees it: the base with every change so far. */
  get current(): PersistentMap<K, V> {
    return this.sealed ?? this.transient ?? this.base;
  }

  get(key: K): V | undefined {
    return this.current.get(key);
  }

  has(key: K): boolean {
    return this.current.has(key);
  }

  set(key: K, value: V): void {
    this.writable().set(key, value);
    this.changed.add(key);
    this.removedEntries.delete(key);
  }

  /** Removes `key` if present; returns the value it had. */
  delete(key: K): V | undefined {
    const previous = this.current.get(key);
    if (previous === undefined) return undefined;
    this.writable().delete(key);
    this.changed.delete(key);
    if (this.base.has(key)) this.removedEntries.set(key, this.base.get(key) as V);
    return previous;
  }

  /** Keys set by this delta (created or replaced) and still present. */
  changedKeys(): ReadonlySet<K> {
    return this.changed;
  }

  /** Entries of the base map that this delta removed, with their last base value. */
  removed(): ReadonlyMap<K, V> {
    return this.removedEntries;
  }

  hasChanges(): boolean {
    return this.changed.size > 0 || this.removedEntries.size > 0 || this.transient !== undefined;
  }

  /** The next image's map. Once sealed the delta takes no more changes. */
  seal(): PersistentMap<K, V> {
    if (this.sealed === undefined) {
      this.sealed = this.transient === undefined ? this.base : this.transient.asImmutable();
      this.transient = undefined;
    }
    return this.sealed;
  }

  private writable(): PersistentMap<K, V> {
    invariant(this.sealed === undefined, () => 'a sealed map delta was changed after apply()');
    this.transient ??= this.base.asMutable();
    return this.transient;
  }
}
