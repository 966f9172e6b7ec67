import { type ApiKey, ApiKeys, allApiKeys, invariant } from '@kraft/protocol';

/** An API as a listener advertises it in ApiVersions: Kafka's `ApiVersion` entry. */
export interface ApiVersionRange {
  readonly apiKey: number;
  readonly minVersion: number;
  readonly maxVersion: number;
}

/** One API an endpoint serves: `@kraft/protocol`'s `ApiKey` at the version range it serves. */
export interface ServedApi {
  readonly api: ApiKey;
  readonly range: ApiVersionRange;
}

/**
 * The APIs an endpoint serves and may call, by key, and at which versions: what its ApiVersions
 * answer advertises. Codecs and header versions come from `@kraft/protocol`'s `ApiKey`; a served
 * range may be narrower than the protocol's (an older peer, in tests).
 */
export class ApiRegistry {
  private readonly byKey = new Map<number, ServedApi>();
  /** In ascending key order, as ApiVersions lists them. */
  private readonly ranges: readonly ApiVersionRange[];

  /** `highestVersions` caps the served range of some APIs below what the protocol supports. */
  constructor(apis: readonly ApiKey[], highestVersions: ReadonlyMap<number, number> = new Map()) {
    for (const api of apis) {
      invariant(!this.byKey.has(api.key), () => `api key ${api.key} registered twice`);
      const maxVersion = Math.min(api.highestVersion, highestVersions.get(api.key) ?? api.highestVersion);
      invariant(
        maxVersion >= api.lowestVersion,
        () => `${api.name} capped at ${maxVersion}, below its lowest version ${api.lowestVersion}`,
      );
      this.byKey.set(api.key, {
        api,
        range: Object.freeze({ apiKey: api.key, minVersion: api.lowestVersion, maxVersion }),
      });
    }
    invariant(this.byKey.has(ApiKeys.API_VERSIONS.key), () => 'every listener must serve ApiVersions');
    this.ranges = Object.freeze(
      [...this.byKey.values()]
        .map((served) => served.range)
        .sort((left, right) => left.apiKey - right.apiKey),
    );
  }

  /**
   * The served API and version range for `apiKey`, or undefined when this endpoint does not serve
   * it (the server then answers with UNSUPPORTED_VERSION).
   */
  get(apiKey: number): ServedApi | undefined {
    return this.byKey.get(apiKey);
  }

  /** Served version ranges in ascending key order. */
  versionRanges(): readonly ApiVersionRange[] {
    return this.ranges;
  }
}

/** True when `range` holds `version`. */
export function isInRange(range: ApiVersionRange, version: number): boolean {
  return version >= range.minVersion && version <= range.maxVersion;
}

/** What a KRaft controller listener serves: every API of `@kraft/protocol`'s table at its full range. */
export function kraftApiRegistry(): ApiRegistry {
  return new ApiRegistry(allApiKeys());
}
