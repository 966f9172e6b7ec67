import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 25: the open metadata transaction is dropped. */
export const AbortTransactionRecord = defineMessage({
  name: 'AbortTransactionRecord',
  apiKey: 25,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    reason: field.string({
      versions: '0+',
      nullableVersions: '0+',
      default: null,
      taggedVersions: '0+',
      tag: 0,
    }),
  },
});

export type AbortTransactionRecordData = MessageData<typeof AbortTransactionRecord>;
