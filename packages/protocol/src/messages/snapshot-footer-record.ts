import { field } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

/** Control record type 4: the last record of every snapshot. */
export const SnapshotFooterRecord = defineMessage({
  name: 'SnapshotFooterRecord',
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    version: field.int16({ versions: '0+' }),
  },
});

export type SnapshotFooterRecordData = MessageData<typeof SnapshotFooterRecord>;
