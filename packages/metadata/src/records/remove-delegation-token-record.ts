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

/**
 * The decoded fields of a {@link RemoveDelegationTokenRecord} (Kafka's generated `RemoveDelegationTokenRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type RemoveDelegationTokenRecordData = MessageData<typeof RemoveDelegationTokenRecord>;
