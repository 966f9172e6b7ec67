import { Map as PersistentMap } from 'immutable';
import type { ConfigRecordData } from '../records/config-record.js';
import {
  ConfigurationImage,
  ConfigurationsImage,
  configResourceKey,
  TOPIC_RESOURCE_TYPE,
} from './configurations-image.js';
import { PersistentMapDelta } from './persistent-map-delta.js';

/**
 * Config changes on top of a `ConfigurationsImage` (Kafka's `ConfigurationsDelta`); a null value
 * removes a config, and a resource left with none is removed.
 */
export class ConfigurationsDelta {
  readonly image: ConfigurationsImage;
  private readonly resources: PersistentMapDelta<string, ConfigurationImage>;

  constructor(image: ConfigurationsImage) {
    this.image = image;
    this.resources = new PersistentMapDelta(image.resources);
  }

  /** A null value removes the config; a resource left with no config is removed. */
  replayConfig(record: ConfigRecordData): void {
    const key = configResourceKey(record.resourceType, record.resourceName);
    const data = this.resources.get(key)?.data ?? PersistentMap<string, string>();
    const next = record.value === null ? data.delete(record.name) : data.set(record.name, record.value);
    if (next.size === 0) this.resources.delete(key);
    else this.resources.set(key, new ConfigurationImage(record.resourceType, record.resourceName, next));
  }

  /** A removed topic takes its configs with it (Kafka's `MetadataDelta.replay(RemoveTopicRecord)`). */
  deleteTopicConfigs(topicName: string): void {
    this.resources.delete(configResourceKey(TOPIC_RESOURCE_TYPE, topicName));
  }

  /** The keys (`configResourceKey`) of the resources changed so far. */
  changedResources(): ReadonlySet<string> {
    return this.resources.changedKeys();
  }

  /** The next image; the same image when nothing changed. */
  apply(): ConfigurationsImage {
    return this.resources.hasChanges() ? new ConfigurationsImage(this.resources.seal()) : this.image;
  }
}
