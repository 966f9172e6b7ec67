import { Map as PersistentMap } from 'immutable';
import type { ClientQuotaRecordData } from '../records/client-quota-record.js';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import { latestRecord, sortedKeys } from './image-records.js';

/** One part of a quota entity: its type (`user`, `client-id`, `ip`) and name, null for the default. */
export type ClientQuotaEntityPart = Readonly<ClientQuotaRecordData['entity'][number]>;

/** The quotas of one entity (Kafka's `ClientQuotaImage`); never empty in an image. */
export class ClientQuotaImage {
  /** Sorted by entity type. */
  readonly entity: readonly ClientQuotaEntityPart[];
  readonly quotas: PersistentMap<string, number>;

  constructor(entity: readonly ClientQuotaEntityPart[], quotas: PersistentMap<string, number>) {
    this.entity = entity;
    this.quotas = quotas;
  }

  /** One ClientQuotaRecord per quota key of this entity, in key order. */
  *records(): Generator<ApiMessageAndVersion> {
    for (const key of sortedKeys(this.quotas.keys())) {
      const value = this.quotas.get(key) as number;
      yield latestRecord(MetadataRecordType.CLIENT_QUOTA_RECORD, {
        entity: this.entity.map((part) => ({ ...part })),
        key,
        value,
        remove: false,
      });
    }
  }
}

/** An entity's parts in canonical order, and the key naming it in `ClientQuotasImage`. */
export function canonicalEntity(entity: readonly ClientQuotaEntityPart[]): {
  readonly parts: readonly ClientQuotaEntityPart[];
  readonly key: string;
} {
  const parts = [...entity].sort((left, right) => (left.entityType < right.entityType ? -1 : 1));
  return { parts, key: JSON.stringify(parts.map((part) => [part.entityType, part.entityName])) };
}

/** Client quotas by entity (Kafka's `ClientQuotasImage`). */
export class ClientQuotasImage {
  static readonly EMPTY = new ClientQuotasImage(PersistentMap());

  readonly entities: PersistentMap<string, ClientQuotaImage>;

  constructor(entities: PersistentMap<string, ClientQuotaImage>) {
    this.entities = entities;
  }

  /**
   * The quotas of `entity` (its parts in any order), by quota key (`producer_byte_rate`, ...);
   * undefined if it has none.
   */
  quotas(entity: readonly ClientQuotaEntityPart[]): PersistentMap<string, number> | undefined {
    return this.entities.get(canonicalEntity(entity).key)?.quotas;
  }

  /** Whether no entity has a quota. */
  isEmpty(): boolean {
    return this.entities.size === 0;
  }

  /**
   * The ClientQuotaRecords that rebuild this part on the empty image, entity by entity in key
   * order.
   */
  *records(): Generator<ApiMessageAndVersion> {
    for (const key of sortedKeys(this.entities.keys()))
      yield* (this.entities.get(key) as ClientQuotaImage).records();
  }
}
