import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 22: a user's SCRAM credential for one mechanism deleted. */
export const RemoveUserScramCredentialRecord = defineMessage({
  name: 'RemoveUserScramCredentialRecord',
  apiKey: 22,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    name: field.string({ versions: '0+' }),
    mechanism: field.int8({ versions: '0+' }),
  },
});

export type RemoveUserScramCredentialRecordData = MessageData<typeof RemoveUserScramCredentialRecord>;
