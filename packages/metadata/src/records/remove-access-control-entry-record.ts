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

/**
 * The decoded fields of a {@link RemoveAccessControlEntryRecord} (Kafka's generated `RemoveAccessControlEntryRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type RemoveAccessControlEntryRecordData = MessageData<typeof RemoveAccessControlEntryRecord>;
