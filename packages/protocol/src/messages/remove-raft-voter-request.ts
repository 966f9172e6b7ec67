import { field } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

/** RemoveRaftVoter (api key 81, KIP-853). */
export const RemoveRaftVoterRequest = defineMessage({
  name: 'RemoveRaftVoterRequest',
  apiKey: 81,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    clusterId: field.string({ versions: '0+', nullableVersions: '0+' }),
    voterId: field.int32({ versions: '0+' }),
    voterDirectoryId: field.uuid({ versions: '0+' }),
  },
});

/**
 * A RemoveRaftVoter request's body (Kafka's `RemoveRaftVoterRequestData`): the voter to remove,
 * by id and directory id.
 */
export type RemoveRaftVoterRequestData = MessageData<typeof RemoveRaftVoterRequest>;
