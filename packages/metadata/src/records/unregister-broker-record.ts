import { defineMessage, field, type MessageData } from '@kraft/protocol';

/** Metadata record type 1: a broker's registration removed (for the epoch it was registered with). */
export const UnregisterBrokerRecord = defineMessage({
  name: 'UnregisterBrokerRecord',
  apiKey: 1,
  validVersions: '0',
  flexibleVersions: '0+',
  fields: {
    brokerId: field.int32({ versions: '0+', entityType: 'brokerId' }),
    brokerEpoch: field.int64({ versions: '0+' }),
  },
});

export type UnregisterBrokerRecordData = MessageData<typeof UnregisterBrokerRecord>;
