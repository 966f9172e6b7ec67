import { defineMessage, type MessageData } from '@kraft/protocol';

/** Metadata record type 24: the open metadata transaction commits. */
export const EndTransactionRecord = defineMessage({
  name: 'EndTransactionRecord',
  apiKey: 24,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {},
});

export type EndTransactionRecordData = MessageData<typeof EndTransactionRecord>;
