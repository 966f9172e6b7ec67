export type { VotersRecordAppendResult, VotersRecordRejection } from './client/voter-set-changes.js';
export { Endpoints } from './endpoints.js';
export { BatchAccumulatorFullError } from './errors/batch-accumulator-full-error.js';
export { IndeterminateError, type IndeterminateReason } from './errors/indeterminate-error.js';
export { InvalidConfigurationError } from './errors/invalid-configuration-error.js';
export { InvalidSnapshotError } from './errors/invalid-snapshot-error.js';
export {
  LeadershipTransferError,
  type LeadershipTransferFailure,
} from './errors/leadership-transfer-error.js';
export { LogDirectoryError } from './errors/log-directory-error.js';
export { NoLeaderError } from './errors/no-leader-error.js';
export { NonOverlappingVoterSetError } from './errors/non-overlapping-voter-set-error.js';
export type { KnownLeader } from './errors/not-leader-error.js';
export { NotLeaderError } from './errors/not-leader-error.js';
export { PendingReadsFullError } from './errors/pending-reads-full-error.js';
export { ProposalRejectedError } from './errors/proposal-rejected-error.js';
export { RaftLogStateError } from './errors/raft-log-state-error.js';
export { RaftNodeClosedError } from './errors/raft-node-closed-error.js';
export { RaftTimeoutError, type TimedRaftOperation } from './errors/raft-timeout-error.js';
export { RecordBatchTooLargeError } from './errors/record-batch-too-large-error.js';
export { MAX_BATCH_SIZE_BYTES } from './internals/batch-accumulator.js';
// The IO edge (src/io: the only async code; written with the simulator).
export { CorruptQuorumStateError } from './io/corrupt-quorum-state-error.js';
export {
  FileQuorumStateStore,
  type FileQuorumStateStoreOptions,
} from './io/file-quorum-state-store.js';
export { type KafkaRaftLogOptions, openKafkaRaftLog } from './io/kafka-raft-log.js';
export {
  DEFAULT_LEADERSHIP_TRANSFER_TIMEOUT_MS,
  DEFAULT_READ_INDEX_TIMEOUT_MS,
  type DrivenNetworkChannel,
  type DrivenQuorumStateStore,
  type DrivenRaftClient,
  type DrivenRaftLog,
  RaftDriver,
  RaftDriverError,
  type RaftDriverOptions,
  type RaftDriverState,
  type RaftRole,
} from './io/raft-driver.js';
export { createSystemRandom } from './io/system-random.js';
export { SystemTime } from './io/system-time.js';
export {
  DEFAULT_MAX_QUEUED_MESSAGES,
  DEFAULT_RPC_VERSIONS,
  KafkaRaftClient,
  type KafkaRaftClientOptions,
  RaftApiKey,
  type RaftClientObservableState,
  type RaftMetrics,
  type RpcVersions,
} from './kafka-raft-client.js';
// RaftNode (src/node): the one object an application embeds.
export {
  ensureLogDirectoryFormatted,
  type LogDirectoryFormat,
  type LogDirectoryOwner,
} from './node/log-directory-format.js';
export { lostFlushedDataPolicyFor, quorumStateStorePath } from './node/log-directory-layout.js';
export type { CommittedPosition } from './node/proposal-tracker.js';
export { type ProposeOptions, RaftNode, type RaftNodeEndpoint } from './node/raft-node.js';
export type {
  DecodedBatch,
  DecodedBatchReader,
  DecodedSnapshotReader,
  RaftNodeListener,
} from './node/raft-node-listener.js';
export {
  DEFAULT_RAFT_NODE_SETTINGS,
  type LogPosition,
  type RaftNodeBindOptions,
  type RaftNodeConfig,
  type RaftNodeLogConfig,
  type RaftNodeOptions,
  type RaftNodeSettings,
  type StateMachine,
  type StateMachineSnapshotReader,
  type StateMachineSnapshotWriter,
} from './node/raft-node-options.js';
export type { RaftNodeStatus, RaftNodeVoterStatus } from './node/raft-node-status.js';
export { bufferSerde, jsonSerde, type RecordSerde, stringSerde } from './node/record-serde.js';
export type {
  InboundRequest,
  InboundResponse,
  NetworkChannel,
  NodeAddress,
  OutboundRequest,
  RaftRequest,
} from './ports/network-channel.js';
export type {
  QuorumStateData,
  QuorumStateDataVersion,
  QuorumStateStore,
} from './ports/quorum-state-store.js';
export {
  compareOffsetAndEpoch,
  type FollowerAppendRejection,
  type FollowerAppendRejectionReason,
  type FollowerAppendResult,
  type Isolation,
  type LogAppendInfo,
  type LogFetchInfo,
  type LogOffsetMetadata,
  type OffsetAndEpoch,
  type RaftLog,
  type RawSnapshotReader,
  type RawSnapshotWriter,
  type ValidOffsetAndEpoch,
} from './ports/raft-log.js';
export { type Random, SeededRandom } from './ports/random.js';
export type { Time } from './ports/time.js';
export { DEFAULT_QUORUM_CONFIG, type QuorumConfig, resolveQuorumConfig } from './quorum-config.js';
export {
  type BatchReader,
  type LeaderAndEpoch,
  type Listener,
  type RaftClient,
  type SnapshotReader,
  type SnapshotWriter,
  UNKNOWN_LEADER_AND_EPOCH,
} from './raft-client.js';
export type {
  ElectionStateWrite,
  OperationCompletion,
  OutboundMessage,
  RaftReady,
} from './raft-outbox.js';
export { ReplicaKey } from './replica-key.js';
export {
  METADATA_PARTITION_INDEX,
  METADATA_TOPIC,
  METADATA_TOPIC_ID,
  METADATA_TOPIC_NAME,
  type ReplicatedTopic,
} from './rpc/raft-messages.js';
export {
  DEFAULT_CONTROLLER_LISTENER_NAME,
  type SupportedVersionRange,
  type VoterNode,
  VoterSet,
} from './voter-set.js';
