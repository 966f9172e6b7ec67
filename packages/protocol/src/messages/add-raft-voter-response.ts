import { field } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

/**
 * AddRaftVoter's response (api key 80, versions 0-1): the leader answers once the new voter set
 * is committed (with v1's AckWhenCommitted false, once it is written).
 */
export const AddRaftVoterResponse = defineMessage({
  name: 'AddRaftVoterResponse',
  apiKey: 80,
  validVersions: '0-1',
  flexibleVersions: '0+',
  fields: {
    throttleTimeMs: field.int32({ versions: '0+' }),
    errorCode: field.int16({ versions: '0+' }),
    errorMessage: field.string({ versions: '0+', nullableVersions: '0+', ignorable: true }),
  },
});

/**
 * An AddRaftVoter response's body (Kafka's `AddRaftVoterResponseData`): an error code, with an
 * optional message, and the throttle time in ms.
 */
export type AddRaftVoterResponseData = MessageData<typeof AddRaftVoterResponse>;
