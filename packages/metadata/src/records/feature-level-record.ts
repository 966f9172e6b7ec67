import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 12: a finalized feature level (`metadata.version`, `kraft.version`...). */
export const FeatureLevelRecord = defineMessage({
  name: 'FeatureLevelRecord',
  apiKey: 12,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    name: field.string({ versions: '0+' }),
    featureLevel: field.int16({ versions: '0+' }),
  },
});

export type FeatureLevelRecordData = MessageData<typeof FeatureLevelRecord>;
