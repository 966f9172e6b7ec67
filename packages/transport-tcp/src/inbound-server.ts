import { createServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer, type TLSSocket } from 'node:tls';
import {
  type ApiKey,
  ApiKeys,
  type ApiVersionsResponseData,
  type DecodedRequest,
  type DecodedRequestHeader,
  Errors,
  KRaftError,
  type Logger,
  ProtocolError,
  type RequestHeaderData,
  readRequestHeader,
  silentLogger,
} from '@kraft/protocol';
import { type ApiRegistry, isInRange, type ServedApi } from './api-registry.js';
import { apiVersionsResponseData, hasValidClientSoftware } from './api-versions.js';
import { InvalidListenerConfigError } from './errors/invalid-listener-config-error.js';
import { failureFields } from './failure-fields.js';
import { InboundCall } from './inbound-call.js';
import type { ListenerSpec } from './listener-config.js';
import { LogSampler } from './log-sampler.js';
import { encodeResponse } from './response-encoder.js';
import { ServerConnection } from './server-connection.js';
import type { TlsContext } from './tls-context.js';
import { resolveTransportConfig, type TransportConfig } from './transport-config.js';

/** Receives every decoded request except ApiVersions, which the server answers itself. */
export interface InboundRequestHandler {
  /**
   * Takes one decoded request, called on the socket's event-loop turn: queue it (a raft
   * channel does) rather than work inline, and answer later with `call.respond(data)`. Must not
   * throw; a request never answered leaves its client to time out.
   */
  handleRequest(call: InboundCall): void;
}

/** What an {@link InboundServer} binds and serves. */
export interface InboundServerOptions {
  /** The listeners to bind, in order: PLAINTEXT or SSL (the SASL protocols are refused at `start`). */
  readonly listeners: readonly ListenerSpec[];
  /** The APIs and versions served; ApiVersions answers are built from it. */
  readonly apis: ApiRegistry;
  /** Where every request except ApiVersions goes. */
  readonly handler: InboundRequestHandler;
  /** Overrides of {@link DEFAULT_TRANSPORT_CONFIG} (connection cap, idle and frame timeouts, sizes). */
  readonly config?: Partial<TransportConfig>;
  /** Where binds, refused connections and protocol errors are reported; default silent. */
  readonly logger?: Logger;
  /** Milliseconds on a monotonic clock; injected so tests can drive timeouts. */
  readonly clock?: () => number;
  /** The keystore, truststore and `ssl.client.auth` of the SSL listeners; required when one is SSL. */
  readonly tls?: TlsContext;
}

/** A listener after binding: `port` is the real one when 0 was asked for. */
export interface BoundListener {
  readonly name: string;
  readonly host: string;
  readonly port: number;
}

/** Connections closed with an error are logged at most this often per window (the rest are counted). */
const CLOSE_LOGS_PER_WINDOW = 20;
const CLOSE_LOG_WINDOW_MS = 10_000;

/** Timeouts are checked at a quarter of the smallest one, at most once per second and at least every 10 ms. */
function sweepIntervalMs(config: TransportConfig): number {
  const smallest = Math.min(config.connectionsMaxIdleMs, config.frameCompletionTimeoutMs);
  return Math.max(10, Math.min(1000, Math.floor(smallest / 4)));
}

/**
 * The server side of the transport: one `net.Server` (or `tls.Server` for SSL) per listener, the connection cap, request
 * header parsing and dispatch by API key and version (kraft-formats.md §2). Malformed frames,
 * unknown API keys and unparsable requests close the connection, as Kafka's SocketServer does;
 * an unsupported ApiVersions version gets the v0 UNSUPPORTED_VERSION answer.
 */
export class InboundServer {
  private readonly listeners: readonly ListenerSpec[];
  private readonly apis: ApiRegistry;
  private readonly handler: InboundRequestHandler;
  private readonly config: TransportConfig;
  private readonly logger: Logger;
  private readonly clock: () => number;
  private readonly tls: TlsContext | undefined;
  private readonly servers: Server[] = [];
  private readonly connections = new Set<ServerConnection>();
  private nextConnectionId = 0;
  private sweepTimer: NodeJS.Timeout | undefined;
  private readonly closeLogSampler = new LogSampler(CLOSE_LOGS_PER_WINDOW, CLOSE_LOG_WINDOW_MS);
  /** ApiVersions answers depend only on the registry: built once, not per request. */
  private readonly apiVersionsServed: ApiVersionsResponseData;
  private readonly apiVersionsUnsupported: ApiVersionsResponseData;
  private readonly apiVersionsInvalid: ApiVersionsResponseData;

  constructor(options: InboundServerOptions) {
    this.listeners = options.listeners;
    this.apis = options.apis;
    this.apiVersionsServed = apiVersionsResponseData(options.apis, Errors.NONE.code);
    this.apiVersionsUnsupported = apiVersionsResponseData(options.apis, Errors.UNSUPPORTED_VERSION.code);
    this.apiVersionsInvalid = apiVersionsResponseData(options.apis, Errors.INVALID_REQUEST.code);
    this.handler = options.handler;
    this.config = resolveTransportConfig(options.config);
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? (() => performance.now());
    this.tls = options.tls;
  }

  /** Binds every listener; resolves once all accept connections. */
  async start(): Promise<BoundListener[]> {
    const bound: BoundListener[] = [];
    for (const listener of this.listeners) bound.push(await this.bind(listener));
    this.sweepTimer = setInterval(() => this.sweep(), sweepIntervalMs(this.config));
    this.sweepTimer.unref();
    return bound;
  }

  /** Stops accepting, closes every connection and waits for the listeners to close. */
  async close(): Promise<void> {
    if (this.sweepTimer !== undefined) clearInterval(this.sweepTimer);
    for (const connection of [...this.connections]) connection.close('server shutting down');
    await Promise.all(
      this.servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
    );
    this.servers.length = 0;
  }

  /** Connections open right now, across every listener (bounded by `maxConnections`). */
  connectionCount(): number {
    return this.connections.size;
  }

  private bind(listener: ListenerSpec): Promise<BoundListener> {
    const server = this.createSocketServer(listener);
    this.servers.push(server);
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: listener.host === '' ? undefined : listener.host, port: listener.port }, () => {
        server.off('error', reject);
        server.on('error', (err) =>
          this.logger.error({ listenerName: listener.name, err }, 'listener error'),
        );
        const address = server.address();
        const port = typeof address === 'object' && address !== null ? address.port : listener.port;
        this.logger.info({ listenerName: listener.name, host: listener.host, port }, 'listening');
        resolve({ name: listener.name, host: listener.host, port });
      });
    });
  }

  /** The per-protocol seam: a `net.Server` for PLAINTEXT, a `tls.Server` for SSL. */
  private createSocketServer(listener: ListenerSpec): Server {
    if (listener.securityProtocol === 'PLAINTEXT') {
      return createServer({ noDelay: true }, (socket) => this.accept(socket, listener.name));
    }
    if (listener.securityProtocol !== 'SSL') {
      throw new InvalidListenerConfigError(
        `listener ${listener.name}: ${listener.securityProtocol} is not supported yet`,
      );
    }
    if (this.tls === undefined) {
      throw new InvalidListenerConfigError(`listener ${listener.name}: SSL needs TLS settings (a keystore)`);
    }
    const server = createTlsServer(
      {
        ...this.tls.serverOptions(),
        noDelay: true,
        // A peer that connects and never finishes the handshake holds a socket: bounded like a connect.
        handshakeTimeout: this.config.connectionSetupTimeoutMs,
      },
      (socket) => this.acceptTls(socket, listener.name),
    );
    // Handshakes in progress are not yet connections: the OS-level cap bounds them too.
    server.maxConnections = this.config.maxConnections;
    server.on('tlsClientError', (err, socket) => this.onHandshakeFailure(listener.name, socket, err));
    return server;
  }

  /** A failed handshake (plaintext client, untrusted or missing client certificate): sampled, never fatal. */
  private onHandshakeFailure(listenerName: string, socket: Socket, err: Error): void {
    socket.destroy();
    const suppressedCloseLogs = this.logger.isLevelEnabled('warn')
      ? this.closeLogSampler.admit(this.clock())
      : -1;
    if (suppressedCloseLogs >= 0) {
      this.logger.warn(
        { listenerName, remoteAddress: socket.remoteAddress, ...failureFields(err), suppressedCloseLogs },
        'TLS handshake failed, closing connection',
      );
    }
  }

  /**
   * Under `ssl.client.auth=requested` Node completes the handshake whatever certificate the client
   * sent; Java's "wanted" client auth accepts a client without one but fails the handshake on one
   * its truststore rejects. The same here: a presented, unverified certificate closes the connection.
   */
  private acceptTls(socket: TLSSocket, listenerName: string): void {
    const presented = Object.keys(socket.getPeerCertificate()).length > 0;
    if (presented && !socket.authorized) {
      const reason = socket.authorizationError ?? 'unverified client certificate';
      this.onHandshakeFailure(
        listenerName,
        socket,
        new KRaftError('CLIENT_CERTIFICATE_REFUSED', `client certificate refused: ${String(reason)}`),
      );
      return;
    }
    this.accept(socket, listenerName);
  }

  private accept(socket: Socket, listenerName: string): void {
    if (this.connections.size >= this.config.maxConnections) {
      const suppressedCloseLogs = this.logger.isLevelEnabled('warn')
        ? this.closeLogSampler.admit(this.clock())
        : -1;
      if (suppressedCloseLogs >= 0) {
        this.logger.warn(
          {
            listenerName,
            remoteAddress: socket.remoteAddress,
            maxConnections: this.config.maxConnections,
            suppressedCloseLogs,
          },
          'connection cap reached, closing new connection',
        );
      }
      socket.destroy();
      return;
    }
    const connection = new ServerConnection({
      socket,
      connectionId: this.nextConnectionId++,
      listenerName,
      config: this.config,
      logger: this.logger,
      closeLogSampler: this.closeLogSampler,
      clock: this.clock,
      onFrame: (source, frame) => this.onFrame(source, frame),
      onClose: (closed) => this.connections.delete(closed),
    });
    this.connections.add(connection);
  }

  private sweep(): void {
    const nowMs = this.clock();
    for (const connection of this.connections) connection.checkTimeouts(nowMs);
  }

  /** `frame` is a whole size-prefixed request frame. */
  private onFrame(connection: ServerConnection, frame: Buffer): void {
    // Errors from untrusted bytes carry their field path; capturing a stack trace for each
    // rejected frame would cost about four times the rest of the error and say nothing more.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    let request: DecodedRequest | undefined;
    try {
      request = this.decodeRequest(connection, frame);
    } finally {
      Error.stackTraceLimit = stackTraceLimit;
    }
    if (request === undefined) return;
    const { api, header, data } = request;
    if (api.key === ApiKeys.API_VERSIONS.key) this.answerApiVersions(connection, header, data);
    else this.dispatch(connection, api, header, data);
  }

  /**
   * The decoded request when this listener serves its API at its version; otherwise undefined,
   * after closing the connection or answering ApiVersions' UNSUPPORTED_VERSION.
   */
  private decodeRequest(connection: ServerConnection, frame: Buffer): DecodedRequest | undefined {
    let decoded: DecodedRequestHeader;
    try {
      decoded = readRequestHeader(frame);
    } catch (err) {
      connection.close('malformed request header', err);
      return undefined;
    }
    const { api, header } = decoded;
    const served = this.apis.get(api.key);
    if (served === undefined) {
      connection.close(
        'api not served',
        new ProtocolError(`api key ${api.key} is not served on this listener`, 'RequestHeader'),
      );
      return undefined;
    }
    if (!isInRange(served.range, header.requestApiVersion)) {
      this.onUnsupportedVersion(connection, served, header);
      return undefined;
    }
    try {
      return {
        ...decoded,
        data: api.request.read(frame.subarray(decoded.bodyOffset), header.requestApiVersion),
      };
    } catch (err) {
      connection.close('malformed request body', err);
      return undefined;
    }
  }

  /** Kafka answers an unknown ApiVersions version at v0 so the client can retry; any other API closes. */
  private onUnsupportedVersion(
    connection: ServerConnection,
    served: ServedApi,
    header: RequestHeaderData,
  ): void {
    const { requestApiKey, requestApiVersion, correlationId } = header;
    if (requestApiKey !== ApiKeys.API_VERSIONS.key) {
      const { minVersion, maxVersion } = served.range;
      connection.close(
        'unsupported api version',
        new ProtocolError(
          `${served.api.name} version ${requestApiVersion} outside ${minVersion}-${maxVersion}`,
          'RequestHeader',
        ),
      );
      return;
    }
    this.logger.debug(
      { apiKey: requestApiKey, correlationId, apiVersion: requestApiVersion },
      'unsupported ApiVersions version, answering v0',
    );
    connection.complete(
      connection.reserveResponseSlot(),
      encodeResponse(ApiKeys.API_VERSIONS, 0, correlationId, this.apiVersionsUnsupported),
    );
  }

  private answerApiVersions(connection: ServerConnection, header: RequestHeaderData, request: unknown): void {
    const data = hasValidClientSoftware(request, header.requestApiVersion)
      ? this.apiVersionsServed
      : this.apiVersionsInvalid;
    connection.complete(
      connection.reserveResponseSlot(),
      encodeResponse(ApiKeys.API_VERSIONS, header.requestApiVersion, header.correlationId, data),
    );
  }

  private dispatch(
    connection: ServerConnection,
    api: ApiKey,
    header: RequestHeaderData,
    data: unknown,
  ): void {
    const call = new InboundCall(
      api,
      header,
      data,
      this.clock(),
      connection,
      connection.reserveResponseSlot(),
      this.logger,
    );
    try {
      this.handler.handleRequest(call);
    } catch (err) {
      this.logger.error(
        { apiKey: header.requestApiKey, correlationId: header.correlationId, err },
        'request handler failed',
      );
      connection.close('request handler failed', err);
    }
  }
}
