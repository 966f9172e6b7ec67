import { defineMessage, type MessageData } from '@kraft/protocol';

/** Metadata record type 20: written by an idle controller so followers see the log advance. */
export const NoOpRecord = defineMessage({
  name: 'NoOpRecord',
  apiKey: 20,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {},
});

export type NoOpRecordData = MessageData<typeof NoOpRecord>;
