import { AddRaftVoterRequest } from './messages/add-raft-voter-request.js';
import { AddRaftVoterResponse } from './messages/add-raft-voter-response.js';
import { ApiVersionsRequest } from './messages/api-versions-request.js';
import { ApiVersionsResponse } from './messages/api-versions-response.js';
import { BeginQuorumEpochRequest } from './messages/begin-quorum-epoch-request.js';
import { BeginQuorumEpochResponse } from './messages/begin-quorum-epoch-response.js';
import { DescribeQuorumRequest } from './messages/describe-quorum-request.js';
import { DescribeQuorumResponse } from './messages/describe-quorum-response.js';
import { EndQuorumEpochRequest } from './messages/end-quorum-epoch-request.js';
import { EndQuorumEpochResponse } from './messages/end-quorum-epoch-response.js';
import { FetchRequest } from './messages/fetch-request.js';
import { FetchResponse } from './messages/fetch-response.js';
import { FetchSnapshotRequest } from './messages/fetch-snapshot-request.js';
import { FetchSnapshotResponse } from './messages/fetch-snapshot-response.js';
import { RemoveRaftVoterRequest } from './messages/remove-raft-voter-request.js';
import { RemoveRaftVoterResponse } from './messages/remove-raft-voter-response.js';
import { UpdateRaftVoterRequest } from './messages/update-raft-voter-request.js';
import { UpdateRaftVoterResponse } from './messages/update-raft-voter-response.js';
import { VoteRequest } from './messages/vote-request.js';
import { VoteResponse } from './messages/vote-response.js';
import type { MessageCodec } from './schema/message-codec.js';

/** One Kafka API: its key, name, version range, first flexible version and codecs. */
export class ApiKey<Request = unknown, Response = unknown> {
  readonly lowestVersion: number;
  readonly highestVersion: number;
  /** First flexible (compact, tagged) version, or null when no version is flexible. */
  readonly flexibleFrom: number | null;

  constructor(
    readonly key: number,
    readonly name: string,
    readonly request: MessageCodec<Request>,
    readonly response: MessageCodec<Response>,
  ) {
    this.lowestVersion = request.lowestVersion;
    this.highestVersion = request.highestVersion;
    this.flexibleFrom = request.flexibleVersions.isEmpty() ? null : request.flexibleVersions.lowest;
  }

  /**
   * Whether we can read and write `version` of this API: an integer in
   * [`lowestVersion`, `highestVersion`], the range our ApiVersions response advertises.
   */
  isVersionSupported(version: number): boolean {
    return Number.isInteger(version) && version >= this.lowestVersion && version <= this.highestVersion;
  }

  /** Flexible versions; a version above our range counts as flexible if the API has any. */
  isFlexible(version: number): boolean {
    return this.flexibleFrom !== null && version >= this.flexibleFrom;
  }

  /** Request header v2 for flexible versions, v1 otherwise. */
  requestHeaderVersion(version: number): number {
    return this.isFlexible(version) ? 2 : 1;
  }

  /** Response header v1 for flexible versions, v0 otherwise; ApiVersions always answers with v0. */
  responseHeaderVersion(version: number): number {
    if (this.key === API_VERSIONS_KEY) return 0;
    return this.isFlexible(version) ? 1 : 0;
  }
}

const API_VERSIONS_KEY = 18;

/** The Kafka APIs a KRaft quorum speaks, by Kafka's enum names. */
export const ApiKeys = {
  FETCH: new ApiKey(1, 'Fetch', FetchRequest, FetchResponse),
  API_VERSIONS: new ApiKey(API_VERSIONS_KEY, 'ApiVersions', ApiVersionsRequest, ApiVersionsResponse),
  VOTE: new ApiKey(52, 'Vote', VoteRequest, VoteResponse),
  BEGIN_QUORUM_EPOCH: new ApiKey(53, 'BeginQuorumEpoch', BeginQuorumEpochRequest, BeginQuorumEpochResponse),
  END_QUORUM_EPOCH: new ApiKey(54, 'EndQuorumEpoch', EndQuorumEpochRequest, EndQuorumEpochResponse),
  DESCRIBE_QUORUM: new ApiKey(55, 'DescribeQuorum', DescribeQuorumRequest, DescribeQuorumResponse),
  FETCH_SNAPSHOT: new ApiKey(59, 'FetchSnapshot', FetchSnapshotRequest, FetchSnapshotResponse),
  ADD_RAFT_VOTER: new ApiKey(80, 'AddRaftVoter', AddRaftVoterRequest, AddRaftVoterResponse),
  REMOVE_RAFT_VOTER: new ApiKey(81, 'RemoveRaftVoter', RemoveRaftVoterRequest, RemoveRaftVoterResponse),
  UPDATE_RAFT_VOTER: new ApiKey(82, 'UpdateRaftVoter', UpdateRaftVoterRequest, UpdateRaftVoterResponse),
} as const;

const BY_KEY = new Map<number, ApiKey>(Object.values(ApiKeys).map((api) => [api.key, api as ApiKey]));

/** The API with `key`, or undefined when this implementation does not speak it. */
export function apiKeyFor(key: number): ApiKey | undefined {
  return BY_KEY.get(key);
}

/** Every API, in key order (what an ApiVersionsResponse advertises). */
export function allApiKeys(): readonly ApiKey[] {
  return [...BY_KEY.values()].sort((a, b) => a.key - b.key);
}
