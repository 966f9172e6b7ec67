import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 29: a controller's registration removed. */
export const UnregisterControllerRecord = defineMessage({
  name: 'UnregisterControllerRecord',
  apiKey: 29,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    controllerId: field.int32({ versions: '0+' }),
  },
});

export type UnregisterControllerRecordData = MessageData<typeof UnregisterControllerRecord>;
