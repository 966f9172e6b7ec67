import type { Uuid } from '@kraft/protocol';
import { UuidInterner } from './uuid-interner.js';

/**
 * Distinct lists are few (a replica list is a choice of brokers, a directory list a choice of
 * their log directories); past this many of each kind the interner stops growing and copies.
 */
const MAX_INTERNED_LISTS = 4096;

/** The one empty replica list of an image. */
export const NO_REPLICAS: readonly number[] = Object.freeze([]);
/** The one empty directory list of an image. */
export const NO_DIRECTORIES: readonly Uuid[] = Object.freeze([]);

/**
 * Hands out one list object per distinct replica list and per distinct directory list, so a
 * million partitions over a few dozen brokers hold a few hundred lists and not two or three
 * million exact-size copies: the image is smaller, and a replay promotes one object per partition
 * instead of three, which is most of what its young-generation collections cost. A lookup hashes
 * the decoded list and compares it element by element; a colliding list that differs is copied,
 * never confused with the interned one. Shared lists are never mutated (the image's contract).
 */
export class PartitionListInterner {
  private readonly replicaLists = new Map<number, readonly number[]>();
  private readonly directoryLists = new Map<number, readonly Uuid[]>();
  private readonly maxLists: number;
  /** Directory ids, one object per value, for the lists this interner copies. */
  private readonly directoryIds = new UuidInterner();

  constructor(maxLists = MAX_INTERNED_LISTS) {
    this.maxLists = maxLists;
  }

  /** How many distinct replica lists and directory lists are interned. */
  get size(): { readonly replicaLists: number; readonly directoryLists: number } {
    return { replicaLists: this.replicaLists.size, directoryLists: this.directoryLists.size };
  }

  /** The interned list equal to `replicas` (the shared empty list when it is empty). */
  replicas(replicas: readonly number[]): readonly number[] {
    if (replicas.length === 0) return NO_REPLICAS;
    let hash = replicas.length;
    for (let index = 0; index < replicas.length; index += 1) {
      hash = (Math.imul(hash, 0x9e3779b1) ^ (replicas[index] as number)) | 0;
    }
    const known = this.replicaLists.get(hash);
    if (known !== undefined && sameNumbers(known, replicas)) return known;
    const copy = replicas.slice();
    if (known === undefined && this.replicaLists.size < this.maxLists) this.replicaLists.set(hash, copy);
    return copy;
  }

  /** The interned list equal to `directories`, its ids interned too. */
  directories(directories: readonly Uuid[]): readonly Uuid[] {
    if (directories.length === 0) return NO_DIRECTORIES;
    let hash = directories.length;
    for (let index = 0; index < directories.length; index += 1) {
      hash = (Math.imul(hash, 0x9e3779b1) ^ (directories[index] as Uuid).hash()) | 0;
    }
    const known = this.directoryLists.get(hash);
    if (known !== undefined && sameUuids(known, directories)) return known;
    const copy = directories.map((id) => this.directoryIds.intern(id));
    if (known === undefined && this.directoryLists.size < this.maxLists) this.directoryLists.set(hash, copy);
    return copy;
  }
}

function sameNumbers(left: readonly number[], right: readonly number[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) if (left[index] !== right[index]) return false;
  return true;
}

function sameUuids(left: readonly Uuid[], right: readonly Uuid[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index += 1) {
    if (!(left[index] as Uuid).equals(right[index])) return false;
  }
  return true;
}
