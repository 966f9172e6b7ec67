import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 18: an ACL created. */
export const AccessControlEntryRecord = defineMessage({
  name: 'AccessControlEntryRecord',
  apiKey: 18,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    id: field.uuid({ versions: '0+' }),
    resourceType: field.int8({ versions: '0+' }),
    resourceName: field.string({ versions: '0+' }),
    patternType: field.int8({ versions: '0+' }),
    principal: field.string({ versions: '0+' }),
    host: field.string({ versions: '0+' }),
    operation: field.int8({ versions: '0+' }),
    permissionType: field.int8({ versions: '0+' }),
  },
});

/**
 * The decoded fields of a {@link AccessControlEntryRecord} (Kafka's generated `AccessControlEntryRecord` message class): what
 * `MetadataRecordSerde.read` returns as `data` for this record type, and what `serialize` and
 * `write` take. Fields absent at the record's version hold their schema defaults.
 */
export type AccessControlEntryRecordData = MessageData<typeof AccessControlEntryRecord>;
