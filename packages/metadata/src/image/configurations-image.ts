import { Map as PersistentMap } from 'immutable';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import { latestRecord, sortedKeys } from './image-records.js';

/** Kafka's `ConfigResource.Type` id of a topic. */
export const TOPIC_RESOURCE_TYPE = 2;

/** The dynamic configs of one resource (Kafka's `ConfigurationImage`); never empty in an image. */
export class ConfigurationImage {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly data: PersistentMap<string, string>;

  constructor(resourceType: number, resourceName: string, data: PersistentMap<string, string>) {
    this.resourceType = resourceType;
    this.resourceName = resourceName;
    this.data = data;
  }

  /** One ConfigRecord per config of this resource, in name order. */
  *records(): Generator<ApiMessageAndVersion> {
    for (const name of sortedKeys(this.data.keys())) {
      const value = this.data.get(name) as string;
      yield latestRecord(MetadataRecordType.CONFIG_RECORD, {
        resourceType: this.resourceType,
        resourceName: this.resourceName,
        name,
        value,
      });
    }
  }
}

/** The key of a resource in `ConfigurationsImage`: its type id, a colon, its name. */
export function configResourceKey(resourceType: number, resourceName: string): string {
  return `${resourceType}:${resourceName}`;
}

/** Dynamic configs by resource (Kafka's `ConfigurationsImage`). */
export class ConfigurationsImage {
  static readonly EMPTY = new ConfigurationsImage(PersistentMap());

  readonly resources: PersistentMap<string, ConfigurationImage>;

  constructor(resources: PersistentMap<string, ConfigurationImage>) {
    this.resources = resources;
  }

  /**
   * The configs of one resource (type as in ConfigRecord: 2 is a topic, 4 a broker), by name;
   * undefined if it has none.
   */
  configs(resourceType: number, resourceName: string): PersistentMap<string, string> | undefined {
    return this.resources.get(configResourceKey(resourceType, resourceName))?.data;
  }

  /** Whether no resource has a config. */
  isEmpty(): boolean {
    return this.resources.size === 0;
  }

  /**
   * The ConfigRecords that rebuild this part on the empty image, resource by resource in key order.
   */
  *records(): Generator<ApiMessageAndVersion> {
    for (const key of sortedKeys(this.resources.keys())) {
      yield* (this.resources.get(key) as ConfigurationImage).records();
    }
  }
}
