import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

const CurrentLeader = struct('CurrentLeader', {
  leaderId: field.int32({ versions: '0+', default: -1, entityType: 'brokerId' }),
  leaderEpoch: field.int32({ versions: '0+', default: -1 }),
  host: field.string({ versions: '0+' }),
  port: field.int32({ versions: '0+' }),
});

export const UpdateRaftVoterResponse = defineMessage({
  name: 'UpdateRaftVoterResponse',
  apiKey: 82,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    throttleTimeMs: field.int32({ versions: '0+' }),
    errorCode: field.int16({ versions: '0+' }),
    currentLeader: field.struct(CurrentLeader, { versions: '0+', taggedVersions: '0+', tag: 0 }),
  },
});

export type UpdateRaftVoterResponseData = MessageData<typeof UpdateRaftVoterResponse>;
