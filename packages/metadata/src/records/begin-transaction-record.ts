import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 23: the records up to the matching End/Abort apply atomically. */
export const BeginTransactionRecord = defineMessage({
  name: 'BeginTransactionRecord',
  apiKey: 23,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    name: field.string({
      versions: '0+',
      nullableVersions: '0+',
      default: null,
      taggedVersions: '0+',
      tag: 0,
    }),
  },
});

export type BeginTransactionRecordData = MessageData<typeof BeginTransactionRecord>;
