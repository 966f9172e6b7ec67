import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

const CurrentLeader = struct('CurrentLeader', {
  leaderId: field.int32({ versions: '0+', default: -1, entityType: 'brokerId' }),
  leaderEpoch: field.int32({ versions: '0+', default: -1 }),
  host: field.string({ versions: '0+' }),
  port: field.int32({ versions: '0+' }),
});

/**
 * UpdateRaftVoter's response (api key 82, version 0): the tagged `currentLeader` names the
 * leader and its endpoint, so a voter that asked the wrong node knows where to ask again.
 */
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

/**
 * An UpdateRaftVoter response's body (Kafka's `UpdateRaftVoterResponseData`): an error code and,
 * tagged, the current leader with its endpoint.
 */
export type UpdateRaftVoterResponseData = MessageData<typeof UpdateRaftVoterResponse>;
