import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 26: a delegation token expired or deleted. */
export const RemoveDelegationTokenRecord = defineMessage({
  name: 'RemoveDelegationTokenRecord',
  apiKey: 26,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    tokenId: field.string({ versions: '0+' }),
  },
});

export type RemoveDelegationTokenRecordData = MessageData<typeof RemoveDelegationTokenRecord>;
