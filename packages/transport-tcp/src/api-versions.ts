import { ApiKeys, type ApiVersionsResponseData, Errors } from '@kraft/protocol';
import type { ApiRegistry } from './api-registry.js';

/** ClientSoftwareName/Version must match this at ApiVersions v3+ (Kafka's ApiVersionsRequest.isValid). */
const CLIENT_SOFTWARE_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/** First ApiVersions version carrying ClientSoftwareName and ClientSoftwareVersion. */
const CLIENT_SOFTWARE_SINCE_VERSION = 3;

interface ApiVersionsRequestFields {
  readonly clientSoftwareName?: unknown;
  readonly clientSoftwareVersion?: unknown;
}

/** True when the request's client software fields are acceptable at its version. */
export function hasValidClientSoftware(data: unknown, apiVersion: number): boolean {
  if (apiVersion < CLIENT_SOFTWARE_SINCE_VERSION) return true;
  const fields = data as ApiVersionsRequestFields;
  return (
    typeof fields.clientSoftwareName === 'string' &&
    typeof fields.clientSoftwareVersion === 'string' &&
    CLIENT_SOFTWARE_PATTERN.test(fields.clientSoftwareName) &&
    CLIENT_SOFTWARE_PATTERN.test(fields.clientSoftwareVersion)
  );
}

/**
 * ApiVersionsResponse data as a KRaft controller listener answers: every API it serves at the
 * versions it serves. For UNSUPPORTED_VERSION Kafka lists only ApiVersions' own range, which is
 * what the client needs to retry, and no API for any other error (ApiVersionsRequest.getErrorResponse).
 */
export function apiVersionsResponseData(registry: ApiRegistry, errorCode: number): ApiVersionsResponseData {
  const served = registry.versionRanges();
  const listed =
    errorCode === Errors.NONE.code
      ? served
      : errorCode === Errors.UNSUPPORTED_VERSION.code
        ? served.filter((range) => range.apiKey === ApiKeys.API_VERSIONS.key)
        : [];
  return ApiKeys.API_VERSIONS.response.defaults({
    errorCode,
    apiKeys: listed.map((range) => ({ ...range })),
  });
}
