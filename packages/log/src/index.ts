export {
  LogConfig,
  LogConfigKeys,
  type LogConfigOptions,
  type LogConfigProperties,
  MIN_SEGMENT_BYTES,
} from './config/log-config.js';
export { LeaderEpochCache } from './epoch/leader-epoch-cache.js';
export {
  type EpochEntry,
  formatLeaderEpochCheckpoint,
  LEADER_EPOCH_CHECKPOINT_FILE,
  LeaderEpochCheckpointFile,
  parseLeaderEpochCheckpoint,
} from './epoch/leader-epoch-checkpoint-file.js';
export {
  type FlushedDataLoss,
  FlushedDataLossError,
  InconsistentLogStateError,
  InvalidConfigurationError,
  InvalidLogOperationError,
  InvalidRecordError,
  LogCorruptionError,
  LogDirectoryLockedError,
  OffsetOutOfRangeError,
} from './errors/log-errors.js';
export {
  readSmallFile,
  temporaryPath,
  writeFileAtomically,
  writeFileAtomicallyAsync,
} from './files/atomic-file.js';
export { LOCK_FILE, LogDirectoryLock } from './files/log-directory-lock.js';
export {
  LOG_START_OFFSET_CHECKPOINT_FILE,
  LogStartOffsetCheckpointFile,
} from './files/log-start-offset-checkpoint-file.js';
export {
  formatJavaProperties,
  META_PROPERTIES_FILE,
  type MetaProperties,
  type MetaPropertiesOwner,
  metaPropertiesFromMap,
  metaPropertiesMismatches,
  parseJavaProperties,
  readMetaProperties,
  verifyMetaProperties,
  writeMetaProperties,
} from './files/meta-properties.js';
export {
  formatPartitionMetadata,
  PARTITION_METADATA_FILE,
  PartitionMetadataFile,
  parsePartitionMetadata,
} from './files/partition-metadata-file.js';
export {
  RECOVERY_POINT_OFFSET_CHECKPOINT_FILE,
  RecoveryPointCheckpointFile,
} from './files/recovery-point-checkpoint-file.js';
export { OffsetIndex } from './index/offset-index.js';
export { TimeIndex } from './index/time-index.js';
export { KafkaRaftLog, METADATA_TOPIC_PARTITION, RaftLog, type RaftLogOpenOptions } from './raft-log.js';
export {
  compareOffsetAndEpoch,
  type FollowerAppendRejection,
  type FollowerAppendRejectionReason,
  type FollowerAppendResult,
  type Isolation,
  type LogAppendInfo,
  type LogFetchInfo,
  type LogOffsetMetadata,
  type LostFlushedDataPolicy,
  type OffsetAndEpoch,
  type RawSnapshotReader,
  type RawSnapshotWriter,
  type ValidOffsetAndEpoch,
} from './raft-log-types.js';
export { parseSegmentFileName, segmentFileStem } from './segment/log-segment.js';
export { CLEAN_SHUTDOWN_FILE } from './segment/segmented-log.js';
export { FileRawSnapshotReader } from './snapshot/file-raw-snapshot-reader.js';
export { FileRawSnapshotWriter } from './snapshot/file-raw-snapshot-writer.js';
export {
  BOOTSTRAP_SNAPSHOT_ID,
  parseSnapshotFileName,
  type SnapshotPath,
  snapshotFileName,
  snapshotFilePath,
} from './snapshot/snapshot-path.js';
