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

/**
 * A SnapshotFooter control record's value (Kafka's `SnapshotFooterRecord`): only its version;
 * its presence marks a complete snapshot.
 */
export type SnapshotFooterRecordData = MessageData<typeof SnapshotFooterRecord>;
