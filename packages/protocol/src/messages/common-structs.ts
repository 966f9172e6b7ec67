import { field, struct } from '../schema/field.js';

/** The tagged NodeEndpoints element of the quorum RPC responses (uint16 port). */
export function nodeEndpointStruct(versions: string) {
  return struct('NodeEndpoint', {
    nodeId: field.int32({ versions, entityType: 'brokerId', mapKey: true }),
    host: field.string({ versions }),
    port: field.uint16({ versions }),
  });
}

/** Named listener endpoints (LeaderEndpoints, Listeners) of the quorum RPCs. */
export function listenerEndpointStruct(name: string, versions: string) {
  return struct(name, {
    name: field.string({ versions, mapKey: true }),
    host: field.string({ versions }),
    port: field.uint16({ versions }),
  });
}

/** `{ minSupportedVersion, maxSupportedVersion }` of the kraft.version feature. */
export function kraftVersionFeatureStruct(versions: string) {
  return struct('KRaftVersionFeature', {
    minSupportedVersion: field.int16({ versions }),
    maxSupportedVersion: field.int16({ versions }),
  });
}
