import { MetadataReplayError } from '../errors/metadata-replay-error.js';
import type { FeatureLevelRecordData } from '../records/feature-level-record.js';
import { FeaturesImage, METADATA_VERSION_FEATURE } from './features-image.js';
import { PersistentMapDelta } from './persistent-map-delta.js';

/**
 * Finalized feature level changes on top of a `FeaturesImage` (Kafka's `FeaturesDelta`); level 0
 * removes a feature, except metadata.version, which cannot be removed.
 */
export class FeaturesDelta {
  readonly image: FeaturesImage;
  private readonly levels: PersistentMapDelta<string, number>;
  private metadataVersionLevel: number | undefined;

  constructor(image: FeaturesImage) {
    this.image = image;
    this.levels = new PersistentMapDelta(image.finalizedLevels);
  }

  /**
   * FeatureLevelRecord: sets a feature's finalized level, or removes it at level 0.
   *
   * @throws {@link MetadataReplayError} for metadata.version below level 1.
   */
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

  /** The names of the features set or removed so far. */
  changedFeatures(): ReadonlySet<string> {
    return this.levels.changedKeys();
  }

  /** The features removed so far, with the level each had in the base image. */
  removedFeatures(): ReadonlyMap<string, number> {
    return this.levels.removed();
  }

  /** The next image; the same image when nothing changed. */
  apply(): FeaturesImage {
    return this.levels.hasChanges() ? new FeaturesImage(this.levels.seal()) : this.image;
  }
}
