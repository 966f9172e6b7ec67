// The image, the loader and the snapshot generator.
export { MetadataFaultError } from './errors/metadata-fault-error.js';
export { MetadataParseError, type MetadataParseFailure } from './errors/metadata-parse-error.js';
export { MetadataReplayError } from './errors/metadata-replay-error.js';
export { RecordAboveHighWatermarkError } from './errors/record-above-high-watermark-error.js';
export { UnwritableMetadataError } from './errors/unwritable-metadata-error.js';
export {
  type FaultHandler,
  LoggingFaultHandler,
  ProcessTerminatingFaultHandler,
} from './fault/fault-handler.js';
export {
  MetadataFaultCounts,
  type MetadataFaultHandlerOptions,
  metadataLoadingFaultHandler,
  metadataPublishingFaultHandler,
} from './fault/metadata-fault-handlers.js';
export { SnapshotsDisabled } from './fault/snapshots-disabled.js';
export { AclsImage, type StandardAclWithId } from './image/acls-image.js';
export { ClientQuotasDelta } from './image/client-quotas-delta.js';
export {
  type ClientQuotaEntityPart,
  ClientQuotaImage,
  ClientQuotasImage,
} from './image/client-quotas-image.js';
export { ClusterDelta } from './image/cluster-delta.js';
export { type BrokerRegistration, ClusterImage, type ControllerRegistration } from './image/cluster-image.js';
export { ConfigurationsDelta } from './image/configurations-delta.js';
export {
  ConfigurationImage,
  ConfigurationsImage,
  configResourceKey,
  TOPIC_RESOURCE_TYPE,
} from './image/configurations-image.js';
export { type DelegationTokenData, DelegationTokenImage } from './image/delegation-token-image.js';
export { FeaturesDelta } from './image/features-delta.js';
export { FeaturesImage, METADATA_VERSION_FEATURE } from './image/features-image.js';
export { type ImageDigest, imageDigest } from './image/image-digest.js';
export { ImageWriterOptions } from './image/image-writer-options.js';
export { MetadataDelta } from './image/metadata-delta.js';
export { MetadataImage, type MetadataImageParts } from './image/metadata-image.js';
export { MetadataProvenance } from './image/metadata-provenance.js';
export { ProducerIdsImage } from './image/producer-ids-image.js';
export { type ScramCredential, ScramImage, scramCredentialKey } from './image/scram-image.js';
export { MAX_PARTITION_ID, TopicPartitions } from './image/topic-partitions.js';
export { TopicsDelta } from './image/topics-delta.js';
export {
  DIRECTORY_MIGRATING,
  DIRECTORY_UNASSIGNED,
  type PartitionRegistration,
  TopicImage,
  TopicsImage,
} from './image/topics-image.js';
export type { LoaderManifest, LogDeltaManifest, SnapshotManifest } from './loader/loader-manifest.js';
export { MetadataBatchLoader, type MetadataBatchLoaderOptions } from './loader/metadata-batch-loader.js';
export { EventLoopEventQueue, type MetadataEventQueue } from './loader/metadata-event-queue.js';
export {
  deltaFromEmpty,
  INITIALIZE_NEW_PUBLISHERS_RETRY_MS,
  MetadataLoader,
  type MetadataLoaderOptions,
} from './loader/metadata-loader.js';
export { DurationSummary, MetadataLoaderMetrics } from './loader/metadata-loader-metrics.js';
export type { MetadataPublisher } from './loader/metadata-publisher.js';
export { type MetadataTime, SYSTEM_METADATA_TIME } from './loader/metadata-time.js';
export {
  AbortTransactionRecord,
  type AbortTransactionRecordData,
} from './records/abort-transaction-record.js';
export {
  AccessControlEntryRecord,
  type AccessControlEntryRecordData,
} from './records/access-control-entry-record.js';
export {
  BeginTransactionRecord,
  type BeginTransactionRecordData,
} from './records/begin-transaction-record.js';
export {
  BrokerRegistrationChangeRecord,
  type BrokerRegistrationChangeRecordData,
} from './records/broker-registration-change-record.js';
export { ClearElrRecord, type ClearElrRecordData } from './records/clear-elr-record.js';
export { ClientQuotaRecord, type ClientQuotaRecordData } from './records/client-quota-record.js';
export { ConfigRecord, type ConfigRecordData } from './records/config-record.js';
export { DelegationTokenRecord, type DelegationTokenRecordData } from './records/delegation-token-record.js';
export { EndTransactionRecord, type EndTransactionRecordData } from './records/end-transaction-record.js';
export { FeatureLevelRecord, type FeatureLevelRecordData } from './records/feature-level-record.js';
export { FenceBrokerRecord, type FenceBrokerRecordData } from './records/fence-broker-record.js';
export {
  ALL_METADATA_RECORD_TYPES,
  METADATA_RECORD_CODECS,
  type MetadataRecordCodecs,
  MetadataRecordType,
  type MetadataRecordTypeId,
  type MetadataRecordTypeName,
  metadataRecordCodec,
  metadataRecordTypeName,
} from './records/metadata-record-type.js';
export { NoOpRecord, type NoOpRecordData } from './records/no-op-record.js';
export { PartitionChangeRecord, type PartitionChangeRecordData } from './records/partition-change-record.js';
export { PartitionRecord, type PartitionRecordData } from './records/partition-record.js';
export { ProducerIdsRecord, type ProducerIdsRecordData } from './records/producer-ids-record.js';
export { RegisterBrokerRecord, type RegisterBrokerRecordData } from './records/register-broker-record.js';
export {
  RegisterControllerRecord,
  type RegisterControllerRecordData,
} from './records/register-controller-record.js';
export {
  RemoveAccessControlEntryRecord,
  type RemoveAccessControlEntryRecordData,
} from './records/remove-access-control-entry-record.js';
export {
  RemoveDelegationTokenRecord,
  type RemoveDelegationTokenRecordData,
} from './records/remove-delegation-token-record.js';
export { RemoveTopicRecord, type RemoveTopicRecordData } from './records/remove-topic-record.js';
export {
  RemoveUserScramCredentialRecord,
  type RemoveUserScramCredentialRecordData,
} from './records/remove-user-scram-credential-record.js';
export { TopicRecord, type TopicRecordData } from './records/topic-record.js';
export { UnfenceBrokerRecord, type UnfenceBrokerRecordData } from './records/unfence-broker-record.js';
export {
  UnregisterBrokerRecord,
  type UnregisterBrokerRecordData,
} from './records/unregister-broker-record.js';
export {
  UnregisterControllerRecord,
  type UnregisterControllerRecordData,
} from './records/unregister-controller-record.js';
export {
  UserScramCredentialRecord,
  type UserScramCredentialRecordData,
} from './records/user-scram-credential-record.js';
export {
  ZkMigrationStateRecord,
  type ZkMigrationStateRecordData,
} from './records/zk-migration-state-record.js';
export {
  type ApiMessageAndVersion,
  type ApiMessageAndVersionOf,
  apiMessageAndVersion,
} from './serde/api-message-and-version.js';
export {
  METADATA_FRAME_VERSION,
  type MetadataRecordHeader,
  MetadataRecordSerde,
} from './serde/metadata-record-serde.js';
export {
  DEFAULT_MAX_STEP_MS,
  DEFAULT_SNAPSHOT_BATCH_RECORDS,
  type SnapshotEmitResult,
  SnapshotEmitter,
  SnapshotEmitterMetrics,
  type SnapshotEmitterOptions,
} from './snapshot/snapshot-emitter.js';
export {
  DEFAULT_MAX_BYTES_SINCE_LAST_SNAPSHOT,
  DEFAULT_MAX_TIME_SINCE_LAST_SNAPSHOT_MS,
  SnapshotGenerator,
  type SnapshotGeneratorOptions,
} from './snapshot/snapshot-generator.js';
