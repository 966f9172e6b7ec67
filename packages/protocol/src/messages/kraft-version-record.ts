import { field } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

/** Control record type 5: the finalized `kraft.version` feature level. */
export const KRaftVersionRecord = defineMessage({
  name: 'KRaftVersionRecord',
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    version: field.int16({ versions: '0+' }),
    kRaftVersion: field.int16({ versions: '0+' }),
  },
});

/**
 * A KRaftVersion control record's value (Kafka's `KRaftVersionRecord`): `kRaftVersion` 0 for a
 * static quorum, 1 once voters are kept in the log.
 */
export type KRaftVersionRecordData = MessageData<typeof KRaftVersionRecord>;
