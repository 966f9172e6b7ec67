import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

const ApiVersion = struct('ApiVersion', {
  apiKey: field.int16({ versions: '0+', mapKey: true }),
  minVersion: field.int16({ versions: '0+' }),
  maxVersion: field.int16({ versions: '0+' }),
});

const SupportedFeatureKey = struct('SupportedFeatureKey', {
  name: field.string({ versions: '3+', mapKey: true }),
  minVersion: field.int16({ versions: '3+' }),
  maxVersion: field.int16({ versions: '3+' }),
});

const FinalizedFeatureKey = struct('FinalizedFeatureKey', {
  name: field.string({ versions: '3+', mapKey: true }),
  maxVersionLevel: field.int16({ versions: '3+' }),
  minVersionLevel: field.int16({ versions: '3+' }),
});

/** Its response header is always v0, even in flexible versions (KIP-511). */
export const ApiVersionsResponse = defineMessage({
  name: 'ApiVersionsResponse',
  apiKey: 18,
  validVersions: '0-5',
  flexibleVersions: '3+',
  fields: {
    errorCode: field.int16({ versions: '0+' }),
    apiKeys: field.array(ApiVersion, { versions: '0+' }),
    throttleTimeMs: field.int32({ versions: '1+', ignorable: true }),
    supportedFeatures: field.array(SupportedFeatureKey, {
      versions: '3+',
      taggedVersions: '3+',
      tag: 0,
      ignorable: true,
    }),
    finalizedFeaturesEpoch: field.int64({
      versions: '3+',
      taggedVersions: '3+',
      tag: 1,
      default: -1n,
      ignorable: true,
    }),
    finalizedFeatures: field.array(FinalizedFeatureKey, {
      versions: '3+',
      taggedVersions: '3+',
      tag: 2,
      ignorable: true,
    }),
    zkMigrationReady: field.bool({
      versions: '3+',
      taggedVersions: '3+',
      tag: 3,
      ignorable: true,
      default: false,
    }),
  },
});

/**
 * An ApiVersions response's body (Kafka's `ApiVersionsResponseData`): the version range the
 * server supports for each api key, and from v3 its supported and finalized features.
 */
export type ApiVersionsResponseData = MessageData<typeof ApiVersionsResponse>;
