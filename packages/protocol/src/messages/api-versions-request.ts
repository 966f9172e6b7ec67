import { field } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

/** ApiVersions (api key 18), the handshake every new connection starts with. */
export const ApiVersionsRequest = defineMessage({
  name: 'ApiVersionsRequest',
  apiKey: 18,
  validVersions: '0-5',
  flexibleVersions: '3+',
  fields: {
    clientSoftwareName: field.string({ versions: '3+', ignorable: true }),
    clientSoftwareVersion: field.string({ versions: '3+', ignorable: true }),
    clusterId: field.string({ versions: '5+', nullableVersions: '5+', default: null, ignorable: true }),
    nodeId: field.int32({ versions: '5+', default: -1, ignorable: true }),
  },
});

/**
 * An ApiVersions request's body (Kafka's `ApiVersionsRequestData`): from v3 the client's
 * software name and version, from v5 its cluster id and node id.
 */
export type ApiVersionsRequestData = MessageData<typeof ApiVersionsRequest>;
