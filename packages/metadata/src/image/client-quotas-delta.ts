import { Map as PersistentMap } from 'immutable';
import type { ClientQuotaRecordData } from '../records/client-quota-record.js';
import { ClientQuotaImage, ClientQuotasImage, canonicalEntity } from './client-quotas-image.js';
import { PersistentMapDelta } from './persistent-map-delta.js';

/**
 * Client quota changes on top of a `ClientQuotasImage` (Kafka's `ClientQuotasDelta`); `apply()`
 * gives the next image and shares every entity it did not change.
 */
export class ClientQuotasDelta {
  readonly image: ClientQuotasImage;
  private readonly entities: PersistentMapDelta<string, ClientQuotaImage>;

  constructor(image: ClientQuotasImage) {
    this.image = image;
    this.entities = new PersistentMapDelta(image.entities);
  }

  /** Sets or removes one quota key; an entity left with no quota is removed. */
  replayClientQuota(record: ClientQuotaRecordData): void {
    const { parts, key } = canonicalEntity(record.entity);
    const quotas = this.entities.get(key)?.quotas ?? PersistentMap<string, number>();
    const next = record.remove ? quotas.delete(record.key) : quotas.set(record.key, record.value);
    if (next.size === 0) this.entities.delete(key);
    else this.entities.set(key, new ClientQuotaImage(parts, next));
  }

  /** The keys (canonical entity JSON) of the entities set or removed so far. */
  changedEntities(): ReadonlySet<string> {
    return this.entities.changedKeys();
  }

  /** The next image; the same image when nothing changed. */
  apply(): ClientQuotasImage {
    return this.entities.hasChanges() ? new ClientQuotasImage(this.entities.seal()) : this.image;
  }
}
