// Request bodies for the voter change RPCs, shared by the kraft.version 0 and 1 handler tests.
import { ApiKeys, Uuid } from '@kraft/protocol';

export const VOTER_DIRECTORY_ID = Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A');
export const CONTROLLER = { name: 'CONTROLLER', host: 'localhost', port: 9093 };

/** AddRaftVoter for voter 3 (with a directory id) on the default listener, 30 s to commit. */
export function addVoterRequest(overrides: Record<string, unknown> = {}) {
  return ApiKeys.ADD_RAFT_VOTER.request.defaults({
    clusterId: null,
    timeoutMs: 30_000,
    voterId: 3,
    voterDirectoryId: VOTER_DIRECTORY_ID,
    listeners: [CONTROLLER],
    ...overrides,
  });
}

/** RemoveRaftVoter for voter 2 (with a directory id). */
export function removeVoterRequest(overrides: Record<string, unknown> = {}) {
  return ApiKeys.REMOVE_RAFT_VOTER.request.defaults({
    clusterId: null,
    voterId: 2,
    voterDirectoryId: VOTER_DIRECTORY_ID,
    ...overrides,
  });
}

/** UpdateRaftVoter for voter 2 on the default listener, supporting kraft.version 0 to 1. */
export function updateVoterRequest(currentLeaderEpoch: number, overrides: Record<string, unknown> = {}) {
  return ApiKeys.UPDATE_RAFT_VOTER.request.defaults({
    clusterId: null,
    currentLeaderEpoch,
    voterId: 2,
    voterDirectoryId: VOTER_DIRECTORY_ID,
    listeners: [CONTROLLER],
    kRaftVersionFeature: { minSupportedVersion: 0, maxSupportedVersion: 1 },
    ...overrides,
  });
}
