import { Map as PersistentMap } from 'immutable';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import { latestRecord, sortedKeys } from './image-records.js';

/** Kafka's feature name for the metadata version. */
export const METADATA_VERSION_FEATURE = 'metadata.version';

/**
 * Finalized feature levels (Kafka's `FeaturesImage`), metadata.version among them. A level of 0
 * means the feature is not finalized, so it is never stored.
 */
export class FeaturesImage {
  static readonly EMPTY = new FeaturesImage(PersistentMap());

  readonly finalizedLevels: PersistentMap<string, number>;

  constructor(finalizedLevels: PersistentMap<string, number>) {
    this.finalizedLevels = finalizedLevels;
  }

  /** The finalized metadata.version feature level, undefined before the bootstrap record. */
  metadataVersion(): number | undefined {
    return this.finalizedLevels.get(METADATA_VERSION_FEATURE);
  }

  /** Whether no feature, metadata.version included, is finalized. */
  isEmpty(): boolean {
    return this.finalizedLevels.size === 0;
  }

  /** metadata.version first: readers need it to interpret everything after it. */
  *records(): Generator<ApiMessageAndVersion> {
    const metadataVersion = this.metadataVersion();
    if (metadataVersion !== undefined) {
      yield latestRecord(MetadataRecordType.FEATURE_LEVEL_RECORD, {
        name: METADATA_VERSION_FEATURE,
        featureLevel: metadataVersion,
      });
    }
    for (const name of sortedKeys(this.finalizedLevels.keys())) {
      if (name === METADATA_VERSION_FEATURE) continue;
      const featureLevel = this.finalizedLevels.get(name) as number;
      yield latestRecord(MetadataRecordType.FEATURE_LEVEL_RECORD, { name, featureLevel });
    }
  }
}
