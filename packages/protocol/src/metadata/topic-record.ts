import { field } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

/** Metadata record type 2: a topic's creation. */
export const TopicRecord = defineMessage({
  name: 'TopicRecord',
  apiKey: 2,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    name: field.string({ versions: '0+' }),
    topicId: field.uuid({ versions: '0+' }),
  },
});

export type TopicRecordData = MessageData<typeof TopicRecord>;
