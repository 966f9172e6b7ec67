import type { ApiKey, Logger, RequestHeaderData } from '@kraft/protocol';
import { encodeResponse } from './response-encoder.js';
import type { ResponseSlot, ServerConnection } from './server-connection.js';

/**
 * One decoded request waiting for its answer. `respond` may be called from any later turn of the
 * event loop; the connection still writes responses in request order.
 */
export class InboundCall {
  readonly header: RequestHeaderData;
  readonly data: unknown;
  readonly receivedTimeMs: number;
  readonly listenerName: string;
  private readonly api: ApiKey;
  private readonly connection: ServerConnection;
  private readonly slot: ResponseSlot;
  private readonly logger: Logger;
  private responded = false;

  constructor(
    api: ApiKey,
    header: RequestHeaderData,
    data: unknown,
    receivedTimeMs: number,
    connection: ServerConnection,
    slot: ResponseSlot,
    logger: Logger,
  ) {
    this.api = api;
    this.header = header;
    this.data = data;
    this.receivedTimeMs = receivedTimeMs;
    this.connection = connection;
    this.listenerName = connection.listenerName;
    this.slot = slot;
    this.logger = logger;
  }

  /** Kafka reads a null ClientId as "". */
  get clientId(): string {
    return this.header.clientId ?? '';
  }

  get connectionId(): number {
    return this.connection.connectionId;
  }

  /** False once the connection has closed: an answer would be dropped. */
  isConnectionOpen(): boolean {
    return !this.connection.isClosed();
  }

  /**
   * Encodes and queues the response at the request's version. A second answer to the same call
   * is ignored with a warning; data that cannot be encoded at the version closes the connection,
   * since the client would otherwise wait for an answer that never comes.
   */
  respond(data: unknown): void {
    const { requestApiKey: apiKey, requestApiVersion: apiVersion, correlationId } = this.header;
    if (this.responded) {
      this.logger.warn({ apiKey, correlationId }, 'ignoring a second response to one request');
      return;
    }
    this.responded = true;
    if (this.connection.isClosed()) return;
    try {
      this.connection.complete(this.slot, encodeResponse(this.api, apiVersion, correlationId, data));
    } catch (err) {
      this.logger.error({ apiKey, correlationId, err }, 'failed to encode response');
      this.connection.close('response could not be encoded', err);
    }
  }
}
