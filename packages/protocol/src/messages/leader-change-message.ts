import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

const Voter = struct('Voter', {
  voterId: field.int32({ versions: '0+' }),
  voterDirectoryId: field.uuid({ versions: '1+' }),
});

/**
 * Control record type 2, the first record of every leader epoch. KRaft writes it at version 0,
 * so `voterDirectoryId` never reaches the log.
 */
export const LeaderChangeMessage = defineMessage({
  name: 'LeaderChangeMessage',
  validVersions: '0-1',
  flexibleVersions: '0+',
  fields: {
    version: field.int16({ versions: '0+' }),
    leaderId: field.int32({ versions: '0+', entityType: 'brokerId' }),
    voters: field.array(Voter, { versions: '0+' }),
    grantingVoters: field.array(Voter, { versions: '0+' }),
  },
});

/**
 * A LeaderChange control record's value (Kafka's `LeaderChangeMessage`): the new leader, the
 * voters at election time and those that granted their vote.
 */
export type LeaderChangeMessageData = MessageData<typeof LeaderChangeMessage>;
