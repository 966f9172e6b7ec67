import { MetadataReplayError } from '../errors/metadata-replay-error.js';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import type { ApiMessageAndVersion } from '../serde/api-message-and-version.js';
import { AclsImage, type StandardAclWithId } from './acls-image.js';
import { ClientQuotasDelta } from './client-quotas-delta.js';
import { ClusterDelta } from './cluster-delta.js';
import { ConfigurationsDelta } from './configurations-delta.js';
import { type DelegationTokenData, DelegationTokenImage } from './delegation-token-image.js';
import { FeaturesDelta } from './features-delta.js';
import { KeyedEntitiesDelta } from './keyed-entities-delta.js';
import { MetadataImage } from './metadata-image.js';
import type { MetadataProvenance } from './metadata-provenance.js';
import { ProducerIdsImage } from './producer-ids-image.js';
import { type ScramCredential, ScramImage, scramCredentialKey } from './scram-image.js';
import { TopicsDelta } from './topics-delta.js';

/**
 * Records replayed on top of an image (Kafka's `MetadataDelta`). Each part's delta is made on the
 * first record that touches it; `apply` makes the next image from the changed parts and the
 * image's own objects for the rest. A delta is applied once.
 */
export class MetadataDelta {
  readonly image: MetadataImage;
  private features: FeaturesDelta | undefined;
  private cluster: ClusterDelta | undefined;
  private topics: TopicsDelta | undefined;
  private configs: ConfigurationsDelta | undefined;
  private clientQuotas: ClientQuotasDelta | undefined;
  private nextProducerId: bigint | undefined;
  private acls: KeyedEntitiesDelta<StandardAclWithId, AclsImage> | undefined;
  private scram: KeyedEntitiesDelta<ScramCredential, ScramImage> | undefined;
  private delegationTokens: KeyedEntitiesDelta<DelegationTokenData, DelegationTokenImage> | undefined;

  constructor(image: MetadataImage) {
    this.image = image;
  }

  /** The feature changes so far; undefined until a FeatureLevelRecord is replayed. */
  featuresDelta(): FeaturesDelta | undefined {
    return this.features;
  }

  /** The broker and controller changes so far; undefined until one is replayed. */
  clusterDelta(): ClusterDelta | undefined {
    return this.cluster;
  }

  /** The topic and partition changes so far; undefined until one is replayed. */
  topicsDelta(): TopicsDelta | undefined {
    return this.topics;
  }

  /** The config changes so far; undefined until a ConfigRecord is replayed. */
  configsDelta(): ConfigurationsDelta | undefined {
    return this.configs;
  }

  /** The client quota changes so far; undefined until a ClientQuotaRecord is replayed. */
  clientQuotasDelta(): ClientQuotasDelta | undefined {
    return this.clientQuotas;
  }

  /** The metadata.version this delta changes to, if it changes it. */
  metadataVersionChange(): number | undefined {
    return this.features?.metadataVersionChange();
  }

  /**
   * Replays one record. A record that does not fit the image throws `MetadataReplayError`;
   * transaction markers, NoOp and the ZK migration state change nothing here (the loader handles
   * transactions).
   */
  replay(record: ApiMessageAndVersion): void {
    switch (record.recordType) {
      case MetadataRecordType.REGISTER_BROKER_RECORD:
        this.clusterDeltaOrCreate().replayRegisterBroker(record.data);
        break;
      case MetadataRecordType.UNREGISTER_BROKER_RECORD:
        this.clusterDeltaOrCreate().replayUnregisterBroker(record.data);
        break;
      case MetadataRecordType.FENCE_BROKER_RECORD:
        this.clusterDeltaOrCreate().replayFenceBroker(record.data);
        break;
      case MetadataRecordType.UNFENCE_BROKER_RECORD:
        this.clusterDeltaOrCreate().replayUnfenceBroker(record.data);
        break;
      case MetadataRecordType.BROKER_REGISTRATION_CHANGE_RECORD:
        this.clusterDeltaOrCreate().replayBrokerRegistrationChange(record.data);
        break;
      case MetadataRecordType.REGISTER_CONTROLLER_RECORD:
        this.clusterDeltaOrCreate().replayRegisterController(record.data);
        break;
      case MetadataRecordType.UNREGISTER_CONTROLLER_RECORD:
        this.clusterDeltaOrCreate().replayUnregisterController(record.data);
        break;
      case MetadataRecordType.TOPIC_RECORD:
        this.topicsDeltaOrCreate().replayTopic(record.data);
        break;
      case MetadataRecordType.PARTITION_RECORD:
        this.topicsDeltaOrCreate().replayPartition(record.data);
        break;
      case MetadataRecordType.PARTITION_CHANGE_RECORD:
        this.topicsDeltaOrCreate().replayPartitionChange(record.data);
        break;
      case MetadataRecordType.CLEAR_ELR_RECORD:
        this.topicsDeltaOrCreate().replayClearElr(record.data);
        break;
      case MetadataRecordType.REMOVE_TOPIC_RECORD: {
        const topicName = this.topicsDeltaOrCreate().replayRemoveTopic(record.data);
        this.configsDeltaOrCreate().deleteTopicConfigs(topicName);
        break;
      }
      case MetadataRecordType.CONFIG_RECORD:
        this.configsDeltaOrCreate().replayConfig(record.data);
        break;
      case MetadataRecordType.FEATURE_LEVEL_RECORD:
        this.features ??= new FeaturesDelta(this.image.features);
        this.features.replayFeatureLevel(record.data);
        break;
      case MetadataRecordType.CLIENT_QUOTA_RECORD:
        this.clientQuotas ??= new ClientQuotasDelta(this.image.clientQuotas);
        this.clientQuotas.replayClientQuota(record.data);
        break;
      case MetadataRecordType.PRODUCER_IDS_RECORD:
        this.nextProducerId = record.data.nextProducerId;
        break;
      case MetadataRecordType.ACCESS_CONTROL_ENTRY_RECORD:
        this.aclsDeltaOrCreate().set(record.data.id.toString(), record.data);
        break;
      case MetadataRecordType.REMOVE_ACCESS_CONTROL_ENTRY_RECORD: {
        const removed = this.aclsDeltaOrCreate().delete(record.data.id.toString());
        if (removed === undefined)
          throw new MetadataReplayError(`no ACL with id ${record.data.id} to remove`);
        break;
      }
      case MetadataRecordType.USER_SCRAM_CREDENTIAL_RECORD:
        this.scramDeltaOrCreate().set(
          scramCredentialKey(record.data.mechanism, record.data.name),
          record.data,
        );
        break;
      case MetadataRecordType.REMOVE_USER_SCRAM_CREDENTIAL_RECORD:
        this.scramDeltaOrCreate().delete(scramCredentialKey(record.data.mechanism, record.data.name));
        break;
      case MetadataRecordType.DELEGATION_TOKEN_RECORD:
        this.delegationTokensDeltaOrCreate().set(record.data.tokenId, record.data);
        break;
      case MetadataRecordType.REMOVE_DELEGATION_TOKEN_RECORD:
        this.delegationTokensDeltaOrCreate().delete(record.data.tokenId);
        break;
      case MetadataRecordType.NO_OP_RECORD:
      case MetadataRecordType.ZK_MIGRATION_STATE_RECORD:
      case MetadataRecordType.BEGIN_TRANSACTION_RECORD:
      case MetadataRecordType.END_TRANSACTION_RECORD:
      case MetadataRecordType.ABORT_TRANSACTION_RECORD:
        break;
    }
  }

  /** The next image, at `provenance`. */
  apply(provenance: MetadataProvenance): MetadataImage {
    const image = this.image;
    return new MetadataImage({
      provenance,
      features: this.features?.apply() ?? image.features,
      cluster: this.cluster?.apply() ?? image.cluster,
      topics: this.topics?.apply() ?? image.topics,
      configs: this.configs?.apply() ?? image.configs,
      clientQuotas: this.clientQuotas?.apply() ?? image.clientQuotas,
      producerIds:
        this.nextProducerId === undefined ? image.producerIds : new ProducerIdsImage(this.nextProducerId),
      acls: this.acls?.apply() ?? image.acls,
      scram: this.scram?.apply() ?? image.scram,
      delegationTokens: this.delegationTokens?.apply() ?? image.delegationTokens,
    });
  }

  private clusterDeltaOrCreate(): ClusterDelta {
    this.cluster ??= new ClusterDelta(this.image.cluster);
    return this.cluster;
  }

  private topicsDeltaOrCreate(): TopicsDelta {
    this.topics ??= new TopicsDelta(this.image.topics);
    return this.topics;
  }

  private configsDeltaOrCreate(): ConfigurationsDelta {
    this.configs ??= new ConfigurationsDelta(this.image.configs);
    return this.configs;
  }

  private aclsDeltaOrCreate(): KeyedEntitiesDelta<StandardAclWithId, AclsImage> {
    this.acls ??= new KeyedEntitiesDelta(
      this.image.acls,
      this.image.acls.acls,
      (acls) => new AclsImage(acls),
    );
    return this.acls;
  }

  private scramDeltaOrCreate(): KeyedEntitiesDelta<ScramCredential, ScramImage> {
    const image = this.image.scram;
    this.scram ??= new KeyedEntitiesDelta(
      image,
      image.credentials,
      (credentials) => new ScramImage(credentials),
    );
    return this.scram;
  }

  private delegationTokensDeltaOrCreate(): KeyedEntitiesDelta<DelegationTokenData, DelegationTokenImage> {
    const image = this.image.delegationTokens;
    this.delegationTokens ??= new KeyedEntitiesDelta(
      image,
      image.tokens,
      (tokens) => new DelegationTokenImage(tokens),
    );
    return this.delegationTokens;
  }
}
