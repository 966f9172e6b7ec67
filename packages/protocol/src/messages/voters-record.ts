import { field, struct } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

const Endpoint = struct('Endpoint', {
  name: field.string({ versions: '0+', mapKey: true }),
  host: field.string({ versions: '0+' }),
  port: field.uint16({ versions: '0+' }),
});

const KRaftVersionFeature = struct('KRaftVersionFeature', {
  minSupportedVersion: field.int16({ versions: '0+' }),
  maxSupportedVersion: field.int16({ versions: '0+' }),
});

const Voter = struct('Voter', {
  voterId: field.int32({ versions: '0+', entityType: 'brokerId' }),
  voterDirectoryId: field.uuid({ versions: '0+' }),
  endpoints: field.array(Endpoint, { versions: '0+' }),
  kRaftVersionFeature: field.struct(KRaftVersionFeature, { versions: '0+' }),
});

/** Control record type 6: the voter set (KIP-853), with each voter's endpoints. */
export const VotersRecord = defineMessage({
  name: 'VotersRecord',
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    version: field.int16({ versions: '0+' }),
    voters: field.array(Voter, { versions: '0+' }),
  },
});

/**
 * A Voters control record's value (Kafka's `VotersRecord`): every voter with its directory id,
 * endpoints and supported kraft.version range.
 */
export type VotersRecordData = MessageData<typeof VotersRecord>;
/** One voter of a Voters record: id, directory id, endpoints and its kraft.version range. */
export type VotersRecordVoter = VotersRecordData['voters'][number];
