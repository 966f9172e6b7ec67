import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 11: a user's SCRAM credential for one mechanism. */
export const UserScramCredentialRecord = defineMessage({
  name: 'UserScramCredentialRecord',
  apiKey: 11,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    name: field.string({ versions: '0+' }),
    mechanism: field.int8({ versions: '0+' }),
    salt: field.bytes({ versions: '0+' }),
    storedKey: field.bytes({ versions: '0+' }),
    serverKey: field.bytes({ versions: '0+' }),
    iterations: field.int32({ versions: '0+' }),
  },
});

/**
 * The decoded fields of a {@link UserScramCredentialRecord} (Kafka's generated `UserScramCredentialRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type UserScramCredentialRecordData = MessageData<typeof UserScramCredentialRecord>;
