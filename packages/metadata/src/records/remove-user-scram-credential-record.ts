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

/**
 * The decoded fields of a {@link RemoveUserScramCredentialRecord} (Kafka's generated `RemoveUserScramCredentialRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type RemoveUserScramCredentialRecordData = MessageData<typeof RemoveUserScramCredentialRecord>;
