import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 9: a topic's deletion. */
export const RemoveTopicRecord = defineMessage({
  name: 'RemoveTopicRecord',
  apiKey: 9,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    topicId: field.uuid({ versions: '0+' }),
  },
});

export type RemoveTopicRecordData = MessageData<typeof RemoveTopicRecord>;
