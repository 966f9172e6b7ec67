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

/**
 * The decoded fields of a {@link DelegationTokenRecord} (Kafka's generated `DelegationTokenRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type DelegationTokenRecordData = MessageData<typeof DelegationTokenRecord>;
