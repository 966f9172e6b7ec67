import { ApiKeys } from '@kraft/protocol';

/** The versions the core asks for; the transport may lower them after ApiVersions. */
export interface RpcVersions {
  readonly fetch: number;
  readonly vote: number;
  readonly beginQuorumEpoch: number;
  readonly endQuorumEpoch: number;
  readonly fetchSnapshot: number;
}

/**
 * The newest version of each RPC @kraft/protocol speaks (Fetch 18 carries the follower's high
 * watermark, KIP-1166). Each is a cap: the transport lowers it per peer after ApiVersions.
 */
export const DEFAULT_RPC_VERSIONS: RpcVersions = Object.freeze({
  fetch: ApiKeys.FETCH.highestVersion,
  vote: ApiKeys.VOTE.highestVersion,
  beginQuorumEpoch: ApiKeys.BEGIN_QUORUM_EPOCH.highestVersion,
  endQuorumEpoch: ApiKeys.END_QUORUM_EPOCH.highestVersion,
  fetchSnapshot: ApiKeys.FETCH_SNAPSHOT.highestVersion,
});
