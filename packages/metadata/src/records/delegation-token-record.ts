import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 10: a delegation token created or renewed. */
export const DelegationTokenRecord = defineMessage({
  name: 'DelegationTokenRecord',
  apiKey: 10,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    owner: field.string({ versions: '0+' }),
    requester: field.string({ versions: '0+' }),
    renewers: field.array('string', { versions: '0+' }),
    issueTimestamp: field.int64({ versions: '0+' }),
    maxTimestamp: field.int64({ versions: '0+' }),
    expirationTimestamp: field.int64({ versions: '0+' }),
    tokenId: field.string({ versions: '0+' }),
  },
});

export type DelegationTokenRecordData = MessageData<typeof DelegationTokenRecord>;
