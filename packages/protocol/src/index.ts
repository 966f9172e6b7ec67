export { ApiKey, ApiKeys, allApiKeys, apiKeyFor } from './api-keys.js';
export { IllegalStateError, invariant } from './errors/illegal-state-error.js';
export { InvalidConfigurationError } from './errors/invalid-configuration-error.js';
export { KRaftError } from './errors/kraft-error.js';
export { ProtocolError } from './errors/protocol-error.js';
export { UnsupportedVersionError } from './errors/unsupported-version-error.js';
export { type ApiError, Errors, errorForCode, isKnownErrorCode } from './errors.js';
export {
  DEFAULT_MAX_FRAME_BYTES,
  type DecodedRequest,
  type DecodedRequestHeader,
  type DecodedResponse,
  peekResponseCorrelationId,
  type RequestFrameHeader,
  readFrameSize,
  readRequestFrame,
  readRequestHeader,
  readResponseFrame,
  writeRequestFrame,
  writeResponseFrame,
  writeResponseFrameChunks,
} from './frames.js';
export { RequestHeader, type RequestHeaderData } from './headers/request-header.js';
export { ResponseHeader, type ResponseHeaderData } from './headers/response-header.js';
export { type Logger, silentLogger } from './logger.js';
export { AddRaftVoterRequest, type AddRaftVoterRequestData } from './messages/add-raft-voter-request.js';
export { AddRaftVoterResponse, type AddRaftVoterResponseData } from './messages/add-raft-voter-response.js';
export { ApiVersionsRequest, type ApiVersionsRequestData } from './messages/api-versions-request.js';
export { ApiVersionsResponse, type ApiVersionsResponseData } from './messages/api-versions-response.js';
export {
  BeginQuorumEpochRequest,
  type BeginQuorumEpochRequestData,
} from './messages/begin-quorum-epoch-request.js';
export {
  BeginQuorumEpochResponse,
  type BeginQuorumEpochResponseData,
} from './messages/begin-quorum-epoch-response.js';
export { DescribeQuorumRequest, type DescribeQuorumRequestData } from './messages/describe-quorum-request.js';
export {
  DescribeQuorumResponse,
  type DescribeQuorumResponseData,
} from './messages/describe-quorum-response.js';
export {
  EndQuorumEpochRequest,
  type EndQuorumEpochRequestData,
} from './messages/end-quorum-epoch-request.js';
export {
  EndQuorumEpochResponse,
  type EndQuorumEpochResponseData,
} from './messages/end-quorum-epoch-response.js';
export {
  FetchRequest,
  type FetchRequestData,
  type FetchRequestPartition,
  type FetchRequestTopic,
} from './messages/fetch-request.js';
export {
  FetchResponse,
  type FetchResponseData,
  type FetchResponsePartition,
  type FetchResponseTopic,
} from './messages/fetch-response.js';
export { FetchSnapshotRequest, type FetchSnapshotRequestData } from './messages/fetch-snapshot-request.js';
export { FetchSnapshotResponse, type FetchSnapshotResponseData } from './messages/fetch-snapshot-response.js';
export { KRaftVersionRecord, type KRaftVersionRecordData } from './messages/kraft-version-record.js';
export { LeaderChangeMessage, type LeaderChangeMessageData } from './messages/leader-change-message.js';
export { QuorumStateData, type QuorumStateFileData } from './messages/quorum-state-data.js';
export {
  type QuorumStateFile,
  readQuorumStateJson,
  writeQuorumStateJson,
} from './messages/quorum-state-file.js';
export {
  RemoveRaftVoterRequest,
  type RemoveRaftVoterRequestData,
} from './messages/remove-raft-voter-request.js';
export {
  RemoveRaftVoterResponse,
  type RemoveRaftVoterResponseData,
} from './messages/remove-raft-voter-response.js';
export { SnapshotFooterRecord, type SnapshotFooterRecordData } from './messages/snapshot-footer-record.js';
export { SnapshotHeaderRecord, type SnapshotHeaderRecordData } from './messages/snapshot-header-record.js';
export {
  UpdateRaftVoterRequest,
  type UpdateRaftVoterRequestData,
} from './messages/update-raft-voter-request.js';
export {
  UpdateRaftVoterResponse,
  type UpdateRaftVoterResponseData,
} from './messages/update-raft-voter-response.js';
export { VoteRequest, type VoteRequestData, type VoteRequestPartition } from './messages/vote-request.js';
export { VoteResponse, type VoteResponseData } from './messages/vote-response.js';
export { VotersRecord, type VotersRecordData, type VotersRecordVoter } from './messages/voters-record.js';
export {
  checkBoolean,
  checkFunction,
  checkInstance,
  checkInteger,
  checkKnownKeys,
  checkMethods,
  checkNonEmptyString,
  checkOptionsObject,
  describeValue,
  type IntegerBounds,
  LOGGER_METHODS,
} from './options/option-checks.js';
// The ports the raft core and the TCP transport share (ADR 0023): declared here, below both.
export type {
  InboundRequest,
  InboundResponse,
  NetworkChannel,
  NodeAddress,
  OutboundRequest,
  RaftRequest,
} from './ports/network-channel.js';
export { type Random, SeededRandom } from './ports/random.js';
export type { Time } from './ports/time.js';
export { ByteReader } from './primitives/byte-reader.js';
export { ByteWriter, sizeOfUnsignedVarint, sizeOfVarint } from './primitives/byte-writer.js';
export { toSafeNumber } from './primitives/to-safe-number.js';
export { Uuid } from './primitives/uuid.js';
export { field, struct } from './schema/field.js';
export type {
  EntityType,
  FieldDeclaration,
  FieldMap,
  FieldOptions,
  RawTaggedField,
  StructData,
  StructDeclaration,
  TaggedFieldsCarrier,
} from './schema/field-declaration.js';
export { messageFromJson, messageToJson, messageToJsonText } from './schema/json-converter.js';
export {
  DEFAULT_ZERO_COPY_THRESHOLD_BYTES,
  defineMessage,
  MessageCodec,
  type MessageData,
  type MessageDeclaration,
  structDefaults,
} from './schema/message-codec.js';
export { VersionRange } from './schema/version-range.js';
