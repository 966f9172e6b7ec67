import { apiKeyFor } from '@kraft/protocol';
import type { MessageCodec } from './message-router.js';

/**
 * Sends every simulated message through @kraft/protocol's encoder and decoder at the version the
 * core chose, as the TCP transport would: proves that everything the core emits is encodable and
 * that the core copes with decoded data (zero-copy record views, defaults filled in).
 */
export const protocolCodec: MessageCodec = {
  roundTripRequest(apiKey, apiVersion, data) {
    const api = apiKeyFor(apiKey);
    if (api === undefined) throw new Error(`the core sent a request with unknown api key ${apiKey}`);
    return api.request.read(api.request.write(data, apiVersion), apiVersion);
  },
  roundTripResponse(apiKey, apiVersion, data) {
    const api = apiKeyFor(apiKey);
    if (api === undefined) throw new Error(`the core sent a response with unknown api key ${apiKey}`);
    return api.response.read(api.response.write(data, apiVersion), apiVersion);
  },
};
