import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

const Voter = struct('Voter', {
  voterId: field.int32({ versions: '0' }),
});

/**
 * The `quorum-state` file's content. Kafka stores it as JSON (camelCase fields, then
 * `data_version`); version 0 is the static-quorum form, version 1 (kraft.version 1) drops the
 * cluster id, applied offset and voters, and adds the voted directory id.
 */
export const QuorumStateData = defineMessage({
  name: 'QuorumStateData',
  validVersions: '0-1',
  flexibleVersions: '0+',
  fields: {
    clusterId: field.string({ versions: '0' }),
    leaderId: field.int32({ versions: '0+', default: -1 }),
    leaderEpoch: field.int32({ versions: '0+', default: -1 }),
    votedId: field.int32({ versions: '0+', default: -1 }),
    votedDirectoryId: field.uuid({ versions: '1+' }),
    appliedOffset: field.int64({ versions: '0' }),
    currentVoters: field.array(Voter, { versions: '0', nullableVersions: '0' }),
  },
});

/**
 * The election state a replica persists in `quorum-state` (Kafka's `QuorumStateData`): the
 * current epoch, its leader (-1 when unknown) and the vote cast in it (-1 when none).
 */
export type QuorumStateFileData = MessageData<typeof QuorumStateData>;
