import { Errors, type Logger, silentLogger } from '@kraft/protocol';
import type { ApiRegistry } from './api-registry.js';
import { type ClientRequest, DestinationConnection } from './destination-connection.js';
import type { HostAndPort } from './listener-config.js';
import type { TlsContext } from './tls-context.js';
import { resolveTransportConfig, type TransportConfig } from './transport-config.js';

/** What an {@link OutboundClient} sends with; `apis` and `clientId` are required. */
export interface OutboundClientOptions {
  /** The APIs it may call, and the highest versions it offers in negotiation. */
  readonly apis: ApiRegistry;
  /** `clientId` of every request header: Kafka's raft client uses `raft-client-<nodeId>`. */
  readonly clientId: string;
  /** ApiVersions' `clientSoftwareName` (v3+); default `kraft-ts`. */
  readonly clientSoftwareName?: string;
  /** ApiVersions' `clientSoftwareVersion` (v3+); default `0.0.0`. */
  readonly clientSoftwareVersion?: string;
  /** Overrides of {@link DEFAULT_TRANSPORT_CONFIG} (timeouts, backoff, pending-request bound). */
  readonly config?: Partial<TransportConfig>;
  /** Default silent. */
  readonly logger?: Logger;
  /** Milliseconds on a monotonic clock. */
  readonly clock?: () => number;
  /** Uniform in [0, 1): backoff jitter. Injected so a seed replays a run. */
  readonly random?: () => number;
  /** Connect over TLS (Kafka's SSL security protocol) with this context; plaintext when absent. */
  readonly tls?: TlsContext;
}

/** Request deadlines are checked at a twentieth of the timeout: 100 ms for Kafka's 2 s default. */
function timeoutSweepIntervalMs(config: TransportConfig): number {
  return Math.max(5, Math.min(100, Math.floor(config.requestTimeoutMs / 20)));
}

/**
 * The client side of the transport: one connection per destination node, opened on first use.
 * Requests to a node with no known endpoint fail at once with BROKER_NOT_AVAILABLE.
 */
export class OutboundClient {
  private readonly options: OutboundClientOptions;
  private readonly config: TransportConfig;
  private readonly logger: Logger;
  private readonly clock: () => number;
  private readonly destinations = new Map<number, DestinationConnection>();
  private readonly sweepTimer: NodeJS.Timeout;
  private closed = false;
  private shuttingDown = false;

  constructor(options: OutboundClientOptions) {
    this.options = options;
    this.config = resolveTransportConfig(options.config);
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? (() => performance.now());
    this.sweepTimer = setInterval(() => this.checkTimeouts(), timeoutSweepIntervalMs(this.config));
    this.sweepTimer.unref();
  }

  /**
   * Sets where `nodeId` is reached, creating its destination on first use; a changed address
   * closes the live connection (its requests fail with BROKER_NOT_AVAILABLE) and the next request
   * connects to the new one at once. Ignored after `close()`.
   */
  updateEndpoint(nodeId: number, endpoint: HostAndPort): void {
    if (this.closed) return;
    this.destination(nodeId).updateEndpoint(endpoint);
  }

  /** Sends `request` to `destinationId`; its `complete` callback receives the response or `{ errorCode }`. */
  send(destinationId: number, request: ClientRequest): void {
    const destination = this.closed ? undefined : this.destinations.get(destinationId);
    if (destination === undefined) {
      this.logger.debug(
        { remoteNodeId: destinationId, apiKey: request.apiKey },
        'no endpoint for destination',
      );
      request.complete({ errorCode: Errors.BROKER_NOT_AVAILABLE.code });
      return;
    }
    destination.send(request);
  }

  /** The request timeout every request gets unless the caller sets its own deadline. */
  requestTimeoutMs(): number {
    return this.config.requestTimeoutMs;
  }

  /** From now on a lost connection is expected: logged at info, not warn. */
  beginShutdown(): void {
    this.shuttingDown = true;
  }

  /** Closes every connection; waiting requests complete with BROKER_NOT_AVAILABLE. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweepTimer);
    for (const destination of this.destinations.values()) destination.close();
  }

  private destination(nodeId: number): DestinationConnection {
    let destination = this.destinations.get(nodeId);
    if (destination === undefined) {
      destination = new DestinationConnection({
        destinationId: nodeId,
        apis: this.options.apis,
        config: this.config,
        logger: this.logger,
        clock: this.clock,
        random: this.options.random ?? Math.random,
        clientId: this.options.clientId,
        clientSoftwareName: this.options.clientSoftwareName ?? 'kraft-ts',
        clientSoftwareVersion: this.options.clientSoftwareVersion ?? '0.0.0',
        tls: this.options.tls,
        isShuttingDown: () => this.shuttingDown,
      });
      this.destinations.set(nodeId, destination);
    }
    return destination;
  }

  private checkTimeouts(): void {
    const nowMs = this.clock();
    for (const destination of this.destinations.values()) destination.checkTimeouts(nowMs);
  }
}
