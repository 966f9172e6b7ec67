import { RequestHeader } from '../headers/request-header.js';
import { ResponseHeader } from '../headers/response-header.js';
import { AddRaftVoterRequest } from '../messages/add-raft-voter-request.js';
import { AddRaftVoterResponse } from '../messages/add-raft-voter-response.js';
import { ApiVersionsRequest } from '../messages/api-versions-request.js';
import { ApiVersionsResponse } from '../messages/api-versions-response.js';
import { BeginQuorumEpochRequest } from '../messages/begin-quorum-epoch-request.js';
import { BeginQuorumEpochResponse } from '../messages/begin-quorum-epoch-response.js';
import { DescribeQuorumRequest } from '../messages/describe-quorum-request.js';
import { DescribeQuorumResponse } from '../messages/describe-quorum-response.js';
import { EndQuorumEpochRequest } from '../messages/end-quorum-epoch-request.js';
import { EndQuorumEpochResponse } from '../messages/end-quorum-epoch-response.js';
import { FetchRequest } from '../messages/fetch-request.js';
import { FetchResponse } from '../messages/fetch-response.js';
import { FetchSnapshotRequest } from '../messages/fetch-snapshot-request.js';
import { FetchSnapshotResponse } from '../messages/fetch-snapshot-response.js';
import { KRaftVersionRecord } from '../messages/kraft-version-record.js';
import { LeaderChangeMessage } from '../messages/leader-change-message.js';
import { QuorumStateData } from '../messages/quorum-state-data.js';
import { RemoveRaftVoterRequest } from '../messages/remove-raft-voter-request.js';
import { RemoveRaftVoterResponse } from '../messages/remove-raft-voter-response.js';
import { SnapshotFooterRecord } from '../messages/snapshot-footer-record.js';
import { SnapshotHeaderRecord } from '../messages/snapshot-header-record.js';
import { UpdateRaftVoterRequest } from '../messages/update-raft-voter-request.js';
import { UpdateRaftVoterResponse } from '../messages/update-raft-voter-response.js';
import { VoteRequest } from '../messages/vote-request.js';
import { VoteResponse } from '../messages/vote-response.js';
import { VotersRecord } from '../messages/voters-record.js';
import type { MessageCodec } from '../schema/message-codec.js';

/** Every message this package declares, for the generic property and fuzz tests. */
export const ALL_MESSAGES: readonly MessageCodec<unknown>[] = [
  RequestHeader,
  ResponseHeader,
  ApiVersionsRequest,
  ApiVersionsResponse,
  VoteRequest,
  VoteResponse,
  BeginQuorumEpochRequest,
  BeginQuorumEpochResponse,
  EndQuorumEpochRequest,
  EndQuorumEpochResponse,
  FetchRequest,
  FetchResponse,
  FetchSnapshotRequest,
  FetchSnapshotResponse,
  DescribeQuorumRequest,
  DescribeQuorumResponse,
  AddRaftVoterRequest,
  AddRaftVoterResponse,
  RemoveRaftVoterRequest,
  RemoveRaftVoterResponse,
  UpdateRaftVoterRequest,
  UpdateRaftVoterResponse,
  LeaderChangeMessage,
  SnapshotHeaderRecord,
  SnapshotFooterRecord,
  KRaftVersionRecord,
  VotersRecord,
  QuorumStateData,
] as MessageCodec<unknown>[];
