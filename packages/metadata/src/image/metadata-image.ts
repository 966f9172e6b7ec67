import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import { AclsImage } from './acls-image.js';
import { ClientQuotasImage } from './client-quotas-image.js';
import { ClusterImage } from './cluster-image.js';
import { ConfigurationsImage } from './configurations-image.js';
import { DelegationTokenImage } from './delegation-token-image.js';
import { FeaturesImage } from './features-image.js';
import { ImageWriterOptions } from './image-writer-options.js';
import { MetadataProvenance } from './metadata-provenance.js';
import { ProducerIdsImage } from './producer-ids-image.js';
import { ScramImage } from './scram-image.js';
import { TopicsImage } from './topics-image.js';

/**
 * The cluster metadata at one log offset (Kafka's `MetadataImage`). Immutable: a
 * `MetadataDelta` makes the next image and shares every part, and every entry, it did not change.
 */
export class MetadataImage {
  static readonly EMPTY = new MetadataImage({
    provenance: MetadataProvenance.EMPTY,
    features: FeaturesImage.EMPTY,
    cluster: ClusterImage.EMPTY,
    topics: TopicsImage.EMPTY,
    configs: ConfigurationsImage.EMPTY,
    clientQuotas: ClientQuotasImage.EMPTY,
    producerIds: ProducerIdsImage.EMPTY,
    acls: AclsImage.EMPTY,
    scram: ScramImage.EMPTY,
    delegationTokens: DelegationTokenImage.EMPTY,
  });

  readonly provenance: MetadataProvenance;
  readonly features: FeaturesImage;
  readonly cluster: ClusterImage;
  readonly topics: TopicsImage;
  readonly configs: ConfigurationsImage;
  readonly clientQuotas: ClientQuotasImage;
  readonly producerIds: ProducerIdsImage;
  readonly acls: AclsImage;
  readonly scram: ScramImage;
  readonly delegationTokens: DelegationTokenImage;

  constructor(parts: MetadataImageParts) {
    this.provenance = parts.provenance;
    this.features = parts.features;
    this.cluster = parts.cluster;
    this.topics = parts.topics;
    this.configs = parts.configs;
    this.clientQuotas = parts.clientQuotas;
    this.producerIds = parts.producerIds;
    this.acls = parts.acls;
    this.scram = parts.scram;
    this.delegationTokens = parts.delegationTokens;
  }

  /** The offset of the last record the image holds; -1 for the empty image. */
  offset(): number {
    return this.provenance.lastContainedOffset;
  }

  /** Whether every part is empty (the provenance is not looked at). */
  isEmpty(): boolean {
    return (
      this.features.isEmpty() &&
      this.cluster.isEmpty() &&
      this.topics.isEmpty() &&
      this.configs.isEmpty() &&
      this.clientQuotas.isEmpty() &&
      this.producerIds.isEmpty() &&
      this.acls.isEmpty() &&
      this.scram.isEmpty() &&
      this.delegationTokens.isEmpty()
    );
  }

  /**
   * The records that rebuild this image when replayed on the empty image: what a snapshot holds.
   * Features come first (metadata.version leads), then the parts in Kafka's order; within a part
   * entries are in key order, so equal images write equal records. Record versions follow the
   * image's metadata.version unless `options` says otherwise (Kafka's `ImageWriterOptions`).
   */
  *records(
    options = new ImageWriterOptions(this.features.metadataVersion()),
  ): Generator<ApiMessageAndVersion> {
    yield* this.features.records();
    yield* this.cluster.records(options);
    yield* this.topics.records(options);
    yield* this.configs.records();
    yield* this.clientQuotas.records();
    yield* this.producerIds.records();
    yield* this.acls.records();
    yield* this.scram.records();
    yield* this.delegationTokens.records();
  }
}

/** What an image is made of: its ten fields, named so a method added to the image is not one. */
export type MetadataImageParts = Pick<
  MetadataImage,
  | 'provenance'
  | 'features'
  | 'cluster'
  | 'topics'
  | 'configs'
  | 'clientQuotas'
  | 'producerIds'
  | 'acls'
  | 'scram'
  | 'delegationTokens'
>;
