import { field } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

/** Response header v0-1; v1 adds the tagged section. ApiVersionsResponse always uses v0. */
export const ResponseHeader = defineMessage({
  name: 'ResponseHeader',
  validVersions: '0-1',
  flexibleVersions: '1+',
  fields: {
    correlationId: field.int32({ versions: '0+' }),
  },
});

/** A response header (Kafka's `ResponseHeaderData`): the correlation id of the request it answers. */
export type ResponseHeaderData = MessageData<typeof ResponseHeader>;
