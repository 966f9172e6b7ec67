import { MetadataReplayError } from '../errors/metadata-replay-error.js';
import type { FeatureLevelRecordData } from '../records/feature-level-record.js';
import { FeaturesImage, METADATA_VERSION_FEATURE } from './features-image.js';
import { PersistentMapDelta } from './persistent-map-delta.js';

export class FeaturesDelta {
  readonly image: FeaturesImage;
  private readonly levels: PersistentMapDelta<string, number>;
  private metadataVersionLevel: number | undefined;

  constructor(image: FeaturesImage) {
    this.image = image;
    this.levels = new PersistentMapDelta(image.finalizedLevels);
  }

  replayFeatureLevel(record: FeatureLevelRecordData): void {
    if (record.name === METADATA_VERSION_FEATURE) {
      // metadata.version cannot be un-finalized: Kafka has no MetadataVersion for level 0.
      if (record.featureLevel < 1) {
        throw new MetadataReplayError(`metadata.version feature level ${record.featureLevel} is invalid`);
      }
      this.metadataVersionLevel = record.featureLevel;
    }
    if (record.featureLevel === 0) this.levels.delete(record.name);
    else this.levels.set(record.name, record.featureLevel);
  }

  /** The metadata.version this delta sets, if it sets one (a snapshot trigger). */
  metadataVersionChange(): number | undefined {
    const level = this.metadataVersionLevel;
    return level !== undefined && level !== this.image.metadataVersion() ? level : undefined;
  }

  changedFeatures(): ReadonlySet<string> {
    return this.levels.changedKeys();
  }

  removedFeatures(): ReadonlyMap<string, number> {
    return this.levels.removed();
  }

  apply(): FeaturesImage {
    return this.levels.hasChanges() ? new FeaturesImage(this.levels.seal()) : this.image;
  }
}
