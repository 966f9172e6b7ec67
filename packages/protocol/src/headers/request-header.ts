import { field } from '../schema/field.js';
import { defineMessage, type MessageData } from '../schema/message-codec.js';

/**
 * Request header v0-2. v0 only serves ControlledShutdown v0; v1 adds ClientId; v2 adds the
 * tagged section, but ClientId keeps its int16 length even there so that any broker can read
 * the header of an ApiVersionsRequest newer than it knows.
 */
export const RequestHeader = defineMessage({
  name: 'RequestHeader',
  validVersions: '0-2',
  flexibleVersions: '2+',
  fields: {
    requestApiKey: field.int16({ versions: '0+' }),
    requestApiVersion: field.int16({ versions: '0+' }),
    correlationId: field.int32({ versions: '0+' }),
    clientId: field.string({ versions: '1+', nullableVersions: '1+', flexibleVersions: 'none' }),
  },
});

/** A request header (Kafka's `RequestHeaderData`): api key, api version, correlation id, client id. */
export type RequestHeaderData = MessageData<typeof RequestHeader>;
