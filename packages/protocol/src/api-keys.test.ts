import { describe, expect, it } from 'vitest';
import { ApiKeys, allApiKeys, apiKeyFor } from './api-keys.js';
import { Errors, errorForCode, isKnownErrorCode } from './errors.js';

describe('ApiKeys', () => {
  it('lists the KRaft APIs with Kafka keys, version ranges and first flexible versions', () => {
    const table = allApiKeys().map((api) => [
      api.key,
      api.name,
      api.lowestVersion,
      api.highestVersion,
      api.flexibleFrom,
    ]);
    expect(table).toEqual([
      [1, 'Fetch', 4, 18, 12],
      [18, 'ApiVersions', 0, 5, 3],
      [52, 'Vote', 0, 2, 0],
      [53, 'BeginQuorumEpoch', 0, 1, 1],
      [54, 'EndQuorumEpoch', 0, 1, 1],
      [55, 'DescribeQuorum', 0, 2, 0],
      [59, 'FetchSnapshot', 0, 1, 0],
      [80, 'AddRaftVoter', 0, 1, 0],
      [81, 'RemoveRaftVoter', 0, 0, 0],
      [82, 'UpdateRaftVoter', 0, 0, 0],
    ]);
  });

  it('derives header versions from flexibility, with the ApiVersions response exception', () => {
    expect(ApiKeys.BEGIN_QUORUM_EPOCH.requestHeaderVersion(0)).toBe(1);
    expect(ApiKeys.BEGIN_QUORUM_EPOCH.responseHeaderVersion(0)).toBe(0);
    expect(ApiKeys.BEGIN_QUORUM_EPOCH.requestHeaderVersion(1)).toBe(2);
    expect(ApiKeys.BEGIN_QUORUM_EPOCH.responseHeaderVersion(1)).toBe(1);
    expect(ApiKeys.FETCH.requestHeaderVersion(11)).toBe(1);
    expect(ApiKeys.FETCH.requestHeaderVersion(17)).toBe(2);
    expect(ApiKeys.API_VERSIONS.requestHeaderVersion(4)).toBe(2);
    expect(ApiKeys.API_VERSIONS.responseHeaderVersion(4)).toBe(0);
    expect(ApiKeys.API_VERSIONS.requestHeaderVersion(2)).toBe(1);
  });

  it('finds APIs by key and reports supported versions', () => {
    expect(apiKeyFor(52)).toBe(ApiKeys.VOTE);
    expect(apiKeyFor(0)).toBeUndefined();
    expect(ApiKeys.FETCH.isVersionSupported(3)).toBe(false);
    expect(ApiKeys.FETCH.isVersionSupported(18)).toBe(true);
    expect(ApiKeys.VOTE.request.name).toBe('VoteRequest');
    expect(ApiKeys.VOTE.response.name).toBe('VoteResponse');
  });
});

describe('Errors', () => {
  it('carries Kafka codes, names and retriability', () => {
    expect(Errors.NONE).toMatchObject({ code: 0, retriable: false, defaultMessage: null });
    expect(Errors.FENCED_LEADER_EPOCH).toMatchObject({ code: 74, retriable: true });
    expect(Errors.UNKNOWN_LEADER_EPOCH.code).toBe(75);
    expect(Errors.NOT_LEADER_OR_FOLLOWER).toMatchObject({ code: 6, retriable: true });
    expect(Errors.INCONSISTENT_CLUSTER_ID.code).toBe(104);
    expect(Errors.INVALID_VOTER_KEY.code).toBe(125);
    expect(Errors.VOTER_NOT_FOUND.code).toBe(127);
    expect(Errors.UNSUPPORTED_VERSION.defaultMessage).toBe('The version of API is not supported.');
  });

  it('maps codes back, unknown ones to UNKNOWN_SERVER_ERROR as Kafka does', () => {
    expect(errorForCode(98)).toBe(Errors.SNAPSHOT_NOT_FOUND);
    expect(errorForCode(9999)).toBe(Errors.UNKNOWN_SERVER_ERROR);
    expect(isKnownErrorCode(9999)).toBe(false);
    const codes = Object.values(Errors).map((error) => error.code);
    expect(new Set(codes).size).toBe(codes.length);
  });
});
