import { field } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

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

export type AddRaftVoterResponseData = MessageData<typeof AddRaftVoterResponse>;
