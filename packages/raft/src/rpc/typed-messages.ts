/**
 * The KRaft RPCs as a discriminated union keyed by api key. The `NetworkChannel` port carries
 * `data: unknown` because the transport decodes each frame with the codec its api key names; the
 * core states that contract once, in {@link typedRequest} and {@link typedResponse}, and every
 * handler then receives its message with `data` of the right type, narrowed by `apiKey`.
 */
import type {
  AddRaftVoterRequestData,
  AddRaftVoterResponseData,
  BeginQuorumEpochRequestData,
  BeginQuorumEpochResponseData,
  DescribeQuorumRequestData,
  DescribeQuorumResponseData,
  EndQuorumEpochRequestData,
  EndQuorumEpochResponseData,
  FetchRequestData,
  FetchResponseData,
  FetchSnapshotRequestData,
  FetchSnapshotResponseData,
  RemoveRaftVoterRequestData,
  RemoveRaftVoterResponseData,
  UpdateRaftVoterRequestData,
  UpdateRaftVoterResponseData,
  VoteRequestData,
  VoteResponseData,
} from '@kraft/protocol';
import { Errors } from '@kraft/protocol';
import type { InboundRequest, InboundResponse } from '../ports/network-channel.js';
import { RaftApiKey } from './raft-api-key.js';
import { topLevelErrorCode } from './raft-messages.js';

type Keys = typeof RaftApiKey;

/** The request data of each RPC the core answers, by api key. */
export interface RequestDataByApiKey {
  readonly 1: FetchRequestData;
  readonly 52: VoteRequestData;
  readonly 53: BeginQuorumEpochRequestData;
  readonly 54: EndQuorumEpochRequestData;
  readonly 55: DescribeQuorumRequestData;
  readonly 59: FetchSnapshotRequestData;
  readonly 80: AddRaftVoterRequestData;
  readonly 81: RemoveRaftVoterRequestData;
  readonly 82: UpdateRaftVoterRequestData;
}

/** The response data of each RPC, by api key. */
export interface ResponseDataByApiKey {
  readonly 1: FetchResponseData;
  readonly 52: VoteResponseData;
  readonly 53: BeginQuorumEpochResponseData;
  readonly 54: EndQuorumEpochResponseData;
  readonly 55: DescribeQuorumResponseData;
  readonly 59: FetchSnapshotResponseData;
  readonly 80: AddRaftVoterResponseData;
  readonly 81: RemoveRaftVoterResponseData;
  readonly 82: UpdateRaftVoterResponseData;
}

/** The api keys the core speaks. */
export type RaftApiKeyValue = Keys[keyof Keys];
/** The api keys of the requests the core itself sends (and so of the responses it reads). */
export type OutboundApiKey = (typeof OUTBOUND_API_KEY_LIST)[number];
const OUTBOUND_API_KEY_LIST = [
  RaftApiKey.FETCH,
  RaftApiKey.VOTE,
  RaftApiKey.BEGIN_QUORUM_EPOCH,
  RaftApiKey.END_QUORUM_EPOCH,
  RaftApiKey.FETCH_SNAPSHOT,
  RaftApiKey.UPDATE_RAFT_VOTER,
  // An observer's own AddRaftVoter / RemoveRaftVoter with controller.quorum.auto.join.enable.
  RaftApiKey.ADD_RAFT_VOTER,
  RaftApiKey.REMOVE_RAFT_VOTER,
] as const;

/**
 * What a transport failure delivers instead of a response (see the `NetworkChannel` port):
 * BROKER_NOT_AVAILABLE, UNSUPPORTED_VERSION or REQUEST_TIMED_OUT, never NONE.
 */
export interface TransportFailureData {
  readonly errorCode: number;
}

/** An inbound request of the RPC `K`, its data typed. */
export type RaftRequestOf<K extends RaftApiKeyValue> = InboundRequest & {
  readonly apiKey: K;
  readonly data: RequestDataByApiKey[K];
};

/** The answer to one of the core's `K` requests: the response, or a transport failure. */
export type RaftResponseOf<K extends OutboundApiKey> = InboundResponse & {
  readonly apiKey: K;
  readonly data: ResponseDataByApiKey[K] | TransportFailureData;
};

/**
 * The arguments of `MessageSink.sendResponse`: a request and the response data of its own api.
 * A union of pairs, one per api key, so a request whose api is not known to the compiler (the
 * whole union) cannot be answered with some other api's data.
 */
export type RequestAndResponseData = {
  [K in RaftApiKeyValue]: readonly [request: RaftRequestOf<K>, data: ResponseDataByApiKey[K]];
}[RaftApiKeyValue];

/** An inbound request of an RPC the core has a handler for. */
export type TypedInboundRequest = { [K in RaftApiKeyValue]: RaftRequestOf<K> }[RaftApiKeyValue];

/** A response to a request the core sent. */
export type TypedInboundResponse = { [K in OutboundApiKey]: RaftResponseOf<K> }[OutboundApiKey];

const HANDLED_API_KEYS: ReadonlySet<number> = new Set(Object.values(RaftApiKey));
const OUTBOUND_API_KEYS: ReadonlySet<number> = new Set(OUTBOUND_API_KEY_LIST);

/**
 * The port's contract, stated once: the transport decoded `data` with the codec `apiKey` names.
 * Undefined for an api the core has no handler for.
 */
export function typedRequest(request: InboundRequest): TypedInboundRequest | undefined {
  return HANDLED_API_KEYS.has(request.apiKey) ? (request as TypedInboundRequest) : undefined;
}

/** As {@link typedRequest}, for responses; undefined for an api the core never sends. */
export function typedResponse(response: InboundResponse): TypedInboundResponse | undefined {
  return OUTBOUND_API_KEYS.has(response.apiKey) ? (response as TypedInboundResponse) : undefined;
}

/**
 * Whether `data` is a response without a top-level error. A transport failure always carries
 * one, so a true answer also tells the compiler it is the full response.
 */
export function isErrorFree<D>(data: D | TransportFailureData): data is D {
  return topLevelErrorCode(data) === Errors.NONE.code;
}
