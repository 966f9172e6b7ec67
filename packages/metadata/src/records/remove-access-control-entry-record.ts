import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 19: an ACL deleted, by id. */
export const RemoveAccessControlEntryRecord = defineMessage({
  name: 'RemoveAccessControlEntryRecord',
  apiKey: 19,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    id: field.uuid({ versions: '0+' }),
  },
});

export type RemoveAccessControlEntryRecordData = MessageData<typeof RemoveAccessControlEntryRecord>;
