import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { ConfigError } from '../config/config-error.js';
import type { MetricsEndpointConfig } from './metrics-config.js';

/** What the endpoint serves: the exposition text and its Content-Type (RaftMetricsExporter). */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/** Prometheus scrapes one connection at a time; a few more leave room for a curl beside it. */
const MAX_CONNECTIONS = 16;
/** A scrape renders in milliseconds; a client that sends its request slower than this is dropped. */
const REQUEST_TIMEOUT_MS = 5000;
/** Errors of `listen()` that the operator fixes in the config (or by stopping what holds the port). */
const LISTEN_CONFIG_ERROR_CODES: ReadonlySet<string> = new Set(['EADDRINUSE', 'EACCES', 'EADDRNOTAVAIL']);

/**
 * The opt-in Prometheus endpoint: `GET /metrics` on one address (node:http), 404 for any other
 * path, 405 for another method. It binds before the node opens its log (a port in use stops the
 * server before it touches the disk) and answers 503 until `serve` hands it the metrics.
 */
export class MetricsServer {
  private source: MetricsSource | undefined;
  private closed = false;

  private constructor(
    private readonly server: Server,
    /** The bound port (the system's choice when the config said 0). */
    readonly port: number,
    readonly host: string,
    private readonly logger: Logger,
  ) {}

  /** Binds `endpoint.host:endpoint.port`; a bind the operator must fix fails with a ConfigError. */
  static async listen(endpoint: MetricsEndpointConfig, logger: Logger): Promise<MetricsServer> {
    const server = createServer();
    server.maxConnections = MAX_CONNECTIONS;
    server.requestTimeout = REQUEST_TIMEOUT_MS;
    server.headersTimeout = REQUEST_TIMEOUT_MS;
    try {
      server.listen({ host: endpoint.host, port: endpoint.port, exclusive: true });
      await once(server, 'listening');
    } catch (error) {
      server.close();
      const code = (error as NodeJS.ErrnoException | undefined)?.code;
      if (code === undefined || !LISTEN_CONFIG_ERROR_CODES.has(code)) throw error;
      const host = endpoint.host.includes(':') ? `[${endpoint.host}]` : endpoint.host;
      throw new ConfigError(
        endpoint.portSetting,
        String(endpoint.port),
        `cannot serve metrics on ${host}:${endpoint.port} (${code}: ${(error as Error).message})`,
      );
    }
    const port = (server.address() as AddressInfo).port;
    const metricsServer = new MetricsServer(
      server,
      port,
      endpoint.host,
      logger.child({ component: 'metrics' }),
    );
    server.on('request', (request, response) => metricsServer.handle(request, response));
    metricsServer.logger.info({ host: endpoint.host, port }, 'metrics endpoint listening');
    return metricsServer;
  }

  /** From now on `GET /metrics` renders `source`. */
  serve(source: MetricsSource): void {
    this.source = source;
  }

  /** Stops listening and drops open connections (idle keep-alives included) at once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const closing = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closing;
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const path = (request.url ?? '').split('?', 1)[0];
    if (path !== '/metrics') {
      reply(response, 404, 'Not Found: metrics are at /metrics\n');
      return;
    }
    if (request.method !== 'GET') {
      response.setHeader('Allow', 'GET');
      reply(response, 405, 'Method Not Allowed: use GET\n');
      return;
    }
    const source = this.source;
    if (source === undefined) {
      reply(response, 503, 'Service Unavailable: the node is starting\n');
      return;
    }
    source.metrics().then(
      (text) => reply(response, 200, text, source.contentType),
      (error: unknown) => {
        this.logger.error({ err: error }, 'rendering metrics failed');
        reply(response, 500, 'Internal Server Error: rendering metrics failed\n');
      },
    );
  }
}

function reply(
  response: ServerResponse,
  status: number,
  body: string,
  contentType = 'text/plain; charset=utf-8',
): void {
  response.writeHead(status, { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) });
  response.end(body);
}
