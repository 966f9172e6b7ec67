import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 8: a broker unfenced; superseded by BrokerRegistrationChange. */
export const UnfenceBrokerRecord = defineMessage({
  name: 'UnfenceBrokerRecord',
  apiKey: 8,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    id: field.int32({ versions: '0+', entityType: 'brokerId' }),
    epoch: field.int64({ versions: '0+' }),
  },
});

export type UnfenceBrokerRecordData = MessageData<typeof UnfenceBrokerRecord>;
