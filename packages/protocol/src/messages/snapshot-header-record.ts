import { field } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

/** Control record type 3: the first record of every snapshot. */
export const SnapshotHeaderRecord = defineMessage({
  name: 'SnapshotHeaderRecord',
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    version: field.int16({ versions: '0+' }),
    lastContainedLogTimestamp: field.int64({ versions: '0+' }),
  },
});

/**
 * A SnapshotHeader control record's value (Kafka's `SnapshotHeaderRecord`): the version and the
 * timestamp in ms of the last record the snapshot covers (what time-based retention reads).
 */
export type SnapshotHeaderRecordData = MessageData<typeof SnapshotHeaderRecord>;
