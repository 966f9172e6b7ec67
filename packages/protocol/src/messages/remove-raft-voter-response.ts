import { field } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

/**
 * RemoveRaftVoter's response (api key 81, version 0, KIP-853).
 */
export const RemoveRaftVoterResponse = defineMessage({
  name: 'RemoveRaftVoterResponse',
  apiKey: 81,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    throttleTimeMs: field.int32({ versions: '0+' }),
    errorCode: field.int16({ versions: '0+' }),
    errorMessage: field.string({ versions: '0+', nullableVersions: '0+', ignorable: true }),
  },
});

/**
 * A RemoveRaftVoter response's body (Kafka's `RemoveRaftVoterResponseData`): an error code, with
 * an optional message, and the throttle time in ms.
 */
export type RemoveRaftVoterResponseData = MessageData<typeof RemoveRaftVoterResponse>;
