import { field } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';
import { listenerEndpointStruct } from './common-structs.js';

/** AddRaftVoter (api key 80, KIP-853); v1 adds AckWhenCommitted. */
export const AddRaftVoterRequest = defineMessage({
  name: 'AddRaftVoterRequest',
  apiKey: 80,
  validVersions: '0-1',
  flexibleVersions: '0+',
  fields: {
    clusterId: field.string({ versions: '0+', nullableVersions: '0+' }),
    timeoutMs: field.int32({ versions: '0+' }),
    voterId: field.int32({ versions: '0+' }),
    voterDirectoryId: field.uuid({ versions: '0+' }),
    listeners: field.array(listenerEndpointStruct('Listener', '0+'), { versions: '0+' }),
    ackWhenCommitted: field.bool({ versions: '1+', default: true }),
  },
});

/**
 * An AddRaftVoter request's body (Kafka's `AddRaftVoterRequestData`): the observer to promote
 * (id, directory id, listeners), a timeout in ms and, from v1, whether to answer only once the
 * new voter set is committed.
 */
export type AddRaftVoterRequestData = MessageData<typeof AddRaftVoterRequest>;
