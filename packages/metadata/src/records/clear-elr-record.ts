import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 28: clears the ELRs of one topic, or of every topic when the name is empty. */
export const ClearElrRecord = defineMessage({
  name: 'ClearElrRecord',
  apiKey: 28,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    topicName: field.string({ versions: '0+', entityType: 'topicName' }),
  },
});

export type ClearElrRecordData = MessageData<typeof ClearElrRecord>;
