import { ApiKeys, allApiKeys, IllegalStateError } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { ApiRegistry, isInRange, kraftApiRegistry } from './api-registry.js';

describe('ApiRegistry', () => {
  it('serves every @kraft/protocol API at its full range, in key order', () => {
    expect(kraftApiRegistry().versionRanges()).toEqual(
      allApiKeys().map((api) => ({
        apiKey: api.key,
        minVersion: api.lowestVersion,
        maxVersion: api.highestVersion,
      })),
    );
    expect(kraftApiRegistry().get(ApiKeys.VOTE.key)?.api).toBe(ApiKeys.VOTE);
  });

  it('caps a served range below the protocol one, never above it', () => {
    const registry = new ApiRegistry(
      allApiKeys(),
      new Map([
        [ApiKeys.VOTE.key, 1],
        [ApiKeys.FETCH.key, 99],
      ]),
    );
    const vote = registry.get(ApiKeys.VOTE.key)!.range;
    expect(vote).toEqual({ apiKey: 52, minVersion: 0, maxVersion: 1 });
    expect(isInRange(vote, 1)).toBe(true);
    expect(isInRange(vote, 2)).toBe(false);
    expect(registry.get(ApiKeys.FETCH.key)!.range.maxVersion).toBe(ApiKeys.FETCH.highestVersion);
  });

  it('rejects a registry without ApiVersions, a key twice, or a cap below the lowest version', () => {
    expect(() => new ApiRegistry([ApiKeys.VOTE])).toThrow(IllegalStateError);
    expect(() => new ApiRegistry([ApiKeys.API_VERSIONS, ApiKeys.API_VERSIONS])).toThrow(IllegalStateError);
    expect(() => new ApiRegistry(allApiKeys(), new Map([[ApiKeys.FETCH.key, 3]]))).toThrow(IllegalStateError);
  });
});
