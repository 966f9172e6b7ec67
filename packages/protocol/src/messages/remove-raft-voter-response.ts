import { field } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

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

export type RemoveRaftVoterResponseData = MessageData<typeof RemoveRaftVoterResponse>;
