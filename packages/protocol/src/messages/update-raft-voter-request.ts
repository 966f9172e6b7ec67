import { field } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';
import { kraftVersionFeatureStruct, listenerEndpointStruct } from './common-structs.js';

/** UpdateRaftVoter (api key 82): a voter tells the leader its endpoints and kraft.version range. */
export const UpdateRaftVoterRequest = defineMessage({
  name: 'UpdateRaftVoterRequest',
  apiKey: 82,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    clusterId: field.string({ versions: '0+', nullableVersions: '0+' }),
    currentLeaderEpoch: field.int32({ versions: '0+' }),
    voterId: field.int32({ versions: '0+' }),
    voterDirectoryId: field.uuid({ versions: '0+' }),
    listeners: field.array(listenerEndpointStruct('Listener', '0+'), { versions: '0+' }),
    kRaftVersionFeature: field.struct(kraftVersionFeatureStruct('0+'), { versions: '0+' }),
  },
});

/**
 * An UpdateRaftVoter request's body (Kafka's `UpdateRaftVoterRequestData`): the voter's key, its
 * listeners and the kraft.version range it supports.
 */
export type UpdateRaftVoterRequestData = MessageData<typeof UpdateRaftVoterRequest>;
