import { Uuid } from '@kraft/protocol';

/**
 * A replica's identity: its node id and, since KIP-853, the directory id of its metadata log
 * (`Uuid.ZERO` = unknown, Kafka's `NO_DIRECTORY_ID`). Two keys match when the ids are equal and
 * either directory id is unknown or both are equal.
 */
export class ReplicaKey {
  readonly id: number;
  /** `undefined` when unknown (sent on the wire as the ZERO uuid). */
  readonly directoryId: Uuid | undefined;

  private constructor(id: number, directoryId: Uuid | undefined) {
    this.id = id;
    this.directoryId = directoryId;
  }

  /** Treats `Uuid.ZERO` as "no directory id", as the wire format does. */
  static of(id: number, directoryId?: Uuid): ReplicaKey {
    const known = directoryId === undefined || directoryId.equals(Uuid.ZERO) ? undefined : directoryId;
    return new ReplicaKey(id, known);
  }

  /** The directory id in wire form: ZERO when unknown. */
  directoryIdOrZero(): Uuid {
    return this.directoryId ?? Uuid.ZERO;
  }

  /** Kafka's voter-key rule: equal ids, and directory ids equal unless either is unknown. */
  matches(other: ReplicaKey): boolean {
    if (this.id !== other.id) return false;
    if (this.directoryId === undefined || other.directoryId === undefined) return true;
    return this.directoryId.equals(other.directoryId);
  }

  /** Exact equality: same id and same directory id, an unknown directory id equal only to an unknown one. */
  equals(other: ReplicaKey): boolean {
    if (this.id !== other.id) return false;
    if (this.directoryId === undefined) return other.directoryId === undefined;
    return this.directoryId.equals(other.directoryId);
  }

  /** `id` or `id:directoryId`, for logs and error messages. */
  toString(): string {
    return this.directoryId === undefined ? `${this.id}` : `${this.id}:${this.directoryId.toString()}`;
  }
}
