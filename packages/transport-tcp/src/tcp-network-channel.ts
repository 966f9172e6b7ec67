import {
  type InboundRequest,
  type InboundResponse,
  invariant,
  type Logger,
  type NetworkChannel,
  type NodeAddress,
  type OutboundRequest,
  type Random,
  silentLogger,
  type Time,
} from '@kraft/protocol';
import { type ApiRegistry, kraftApiRegistry } from './api-registry.js';
import { InboundQueueFullError } from './errors/inbound-queue-full-error.js';
import { InvalidListenerConfigError } from './errors/invalid-listener-config-error.js';
import type { InboundCall } from './inbound-call.js';
import { InboundQueue } from './inbound-queue.js';
import { type BoundListener, InboundServer } from './inbound-server.js';
import type { HostAndPort, ListenerSpec, QuorumVoter, SecurityProtocol } from './listener-config.js';
import { OutboundClient } from './outbound-client.js';
import type { TlsContext } from './tls-context.js';
import { resolveTransportConfig, type TransportConfig } from './transport-config.js';

/** What the driver drains from the channel and feeds to `client.handleRequest` / `handleResponse`. */
export type ChannelMessage =
  | { readonly kind: 'request'; readonly request: InboundRequest }
  | { readonly kind: 'response'; readonly response: InboundResponse };

/**
 * A push-style consumer of inbound traffic (raft's `RaftDriver` has this shape): `false` means
 * its bounded queue is full. Once attached it replaces the channel's own queue.
 */
export interface InboundSink {
  /**
   * Takes a request from a peer; false when full, and the channel then closes that request's
   * connection so the peer retries rather than waiting for an answer that will not come.
   */
  deliverRequest(request: InboundRequest): boolean;
  /**
   * Takes a response (or a synthetic `{ errorCode }` failure) to a request this node sent; false
   * when full, and the response is dropped: raft's request manager times the request out.
   */
  deliverResponse(response: InboundResponse): boolean;
}

/** How a {@link TcpNetworkChannel} serves and connects; only `nodeId` and `listeners` are required. */
export interface TcpNetworkChannelOptions {
  /** This node's id: the client id is `raft-client-<nodeId>`, as Kafka's. */
  readonly nodeId: number;
  /** Listeners to serve (`controller.listener.names` of `listeners`); empty for a client-only node. */
  readonly listeners: readonly ListenerSpec[];
  /** `controller.quorum.voters`: the endpoints known before any VotersRecord. */
  readonly voters?: readonly QuorumVoter[];
  /** `controller.quorum.bootstrap.servers`: registered as nodes -2, -3, ... as Kafka's raft client does. */
  readonly bootstrapServers?: readonly HostAndPort[];
  /** The APIs served and called; default every KRaft API at its full range (`kraftApiRegistry()`). */
  readonly apis?: ApiRegistry;
  /** Overrides of {@link DEFAULT_TRANSPORT_CONFIG}. */
  readonly config?: Partial<TransportConfig>;
  /** Default silent. */
  readonly logger?: Logger;
  /** The clock for deadlines and timestamps, in ms; default `performance.now()`. */
  readonly time?: Time;
  /** Draws the reconnect backoff jitter; default `Math.random`, seeded in simulation. */
  readonly random?: Random;
  /** Sent in ApiVersions as `clientSoftwareVersion` (the name is `kraft-ts`); default `0.0.0`. */
  readonly clientSoftwareVersion?: string;
  /**
   * Messages queued for the driver at most. Requests are also bounded per connection, so this
   * is a backstop: past it a request's connection is closed (the peer retries) and a response is
   * dropped (the raft request manager times it out).
   */
  readonly maxQueuedMessages?: number;
  /** The `ssl.*` material of the SSL listeners and of outbound SSL connections. */
  readonly tls?: TlsContext;
  /**
   * What outbound connections speak. Kafka's controllers connect to each other with the protocol
   * of the first `controller.listener.names` entry, so the default is the first listener's (or
   * PLAINTEXT for a client-only node).
   */
  readonly outboundSecurityProtocol?: SecurityProtocol;
}

/** The id Kafka's raft client gives the i-th bootstrap server (KafkaRaftClient: -2, -3, ...). */
export function bootstrapServerNodeId(index: number): number {
  return -2 - index;
}

/**
 * The bound of the channel's own queue, which holds inbound messages only while no sink is
 * attached (a caller that `drain()`s the channel itself). Once a RaftDriver is attached, the raft
 * client's inbound queue is the one bound of the path (ADR 0031); hence a name apart from raft's
 * DEFAULT_MAX_QUEUED_MESSAGES, which bounds that queue.
 */
const DEFAULT_UNDRIVEN_QUEUE_SIZE = 65_536;

/** The TLS context outbound connections use, or undefined for PLAINTEXT. */
function outboundTlsContext(options: TcpNetworkChannelOptions): TlsContext | undefined {
  const protocol = options.outboundSecurityProtocol ?? options.listeners[0]?.securityProtocol ?? 'PLAINTEXT';
  if (protocol === 'PLAINTEXT') return undefined;
  if (protocol !== 'SSL') {
    throw new InvalidListenerConfigError(`outbound connections: ${protocol} is not supported yet`);
  }
  if (options.tls === undefined) {
    throw new InvalidListenerConfigError('outbound connections: SSL needs TLS settings (a truststore)');
  }
  return options.tls;
}

const systemTime: Time = { milliseconds: () => performance.now() };

/** An inbound request that remembers the call it answers. */
class TcpInboundRequest implements InboundRequest {
  readonly correlationId: number;
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly data: unknown;
  readonly createdTimeMs: number;
  readonly sourceId = -1;
  readonly listenerName: string;
  readonly call: InboundCall;

  constructor(call: InboundCall, createdTimeMs: number) {
    this.correlationId = call.header.correlationId;
    this.apiKey = call.header.requestApiKey;
    this.apiVersion = call.header.requestApiVersion;
    this.data = call.data;
    this.createdTimeMs = createdTimeMs;
    this.listenerName = call.listenerName;
    this.call = call;
  }
}

/**
 * Raft's NetworkChannel over TCP. Outbound requests go through the `OutboundClient`; inbound
 * requests come from the `InboundServer`; both directions land in one bounded queue the driver
 * drains. Transport failures arrive as synthetic `{ errorCode }` responses.
 *
 * The constructor throws `InvalidListenerConfigError` when outbound connections would need a
 * protocol other than PLAINTEXT or SSL, or SSL without `tls`.
 *
 * @example
 * ```ts
 * const channel = new TcpNetworkChannel({
 *   nodeId: 1,
 *   listeners: parseListeners('CONTROLLER://127.0.0.1:0'),
 *   voters: [{ nodeId: 2, host: '127.0.0.1', port: 9094 }],
 * });
 * const [bound] = await channel.start(); // bound.port is the port the system chose
 * channel.send({ destinationId: 2, correlationId: channel.newCorrelationId(), apiKey, apiVersion, data });
 * await channel.waitForMessages();
 * for (const message of channel.drain()) handle(message);
 * await channel.close();
 * ```
 */
export class TcpNetworkChannel implements NetworkChannel {
  private readonly server: InboundServer | undefined;
  private readonly client: OutboundClient;
  private readonly queue: InboundQueue<ChannelMessage>;
  private readonly time: Time;
  private readonly logger: Logger;
  private readonly config: TransportConfig;
  private readonly maxQueuedMessages: number;
  private nextCorrelationId = 0;
  private closed = false;
  private sink: InboundSink | undefined;

  constructor(options: TcpNetworkChannelOptions) {
    const apis = options.apis ?? kraftApiRegistry();
    this.config = resolveTransportConfig(options.config);
    this.time = options.time ?? systemTime;
    this.logger = options.logger ?? silentLogger;
    this.maxQueuedMessages = options.maxQueuedMessages ?? DEFAULT_UNDRIVEN_QUEUE_SIZE;
    this.queue = new InboundQueue(this.maxQueuedMessages);
    const clock = (): number => this.time.milliseconds();
    const random = options.random;
    const outboundTls = outboundTlsContext(options);
    this.client = new OutboundClient({
      apis,
      clientId: `raft-client-${options.nodeId}`,
      clientSoftwareName: 'kraft-ts',
      clientSoftwareVersion: options.clientSoftwareVersion ?? '0.0.0',
      config: this.config,
      logger: this.logger,
      clock,
      ...(random === undefined ? {} : { random: () => random.nextInt(1_000_000) / 1_000_000 }),
      ...(outboundTls === undefined ? {} : { tls: outboundTls }),
    });
    this.server =
      options.listeners.length === 0
        ? undefined
        : new InboundServer({
            listeners: options.listeners,
            apis,
            handler: { handleRequest: (call) => this.onInboundCall(call) },
            config: this.config,
            logger: this.logger,
            clock,
            ...(options.tls === undefined ? {} : { tls: options.tls }),
          });
    for (const voter of options.voters ?? []) this.updateEndpoint(voter.nodeId, voter);
    const bootstrapServers = options.bootstrapServers ?? [];
    for (let index = 0; index < bootstrapServers.length; index += 1) {
      this.updateEndpoint(bootstrapServerNodeId(index), bootstrapServers[index]!);
    }
  }

  /** Binds the listeners; resolves with their real ports. */
  async start(): Promise<BoundListener[]> {
    return this.server === undefined ? [] : this.server.start();
  }

  /**
   * The node is stopping: peers leaving from now on are expected (a whole quorum stopped at once
   * sees each other go), so connection losses are logged at info, not warn.
   */
  beginShutdown(): void {
    this.client.beginShutdown();
  }

  /** Cancels outbound requests (they complete with BROKER_NOT_AVAILABLE), closes the listeners and wakes the driver. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.client.close();
    await this.server?.close();
    this.queue.wakeUp();
  }

  /** Sends all further inbound traffic to `sink` (e.g. the RaftDriver) instead of the channel's queue. */
  attach(sink: InboundSink): void {
    this.sink = sink;
    for (const message of this.queue.drain()) {
      if (message.kind === 'response') this.offerResponse(message.response);
      else if (!this.offerRequest(message.request)) {
        const { apiKey, correlationId } = message.request;
        this.logger.warn({ apiKey, correlationId }, 'sink refused a queued request, dropping it');
      }
    }
  }

  /** The next correlation id for `send`: 0, 1, 2, ..., wrapping within int32. */
  newCorrelationId(): number {
    const id = this.nextCorrelationId;
    this.nextCorrelationId = (this.nextCorrelationId + 1) | 0;
    return id;
  }

  /**
   * Sends at the highest version both sides support, capped at `request.apiVersion`; the answer
   * is queued as an InboundResponse carrying the request's correlation id.
   */
  send(request: OutboundRequest): void {
    const { correlationId, apiKey, destinationId } = request;
    this.client.send(destinationId, {
      apiKey,
      maxVersion: request.apiVersion,
      data: request.data,
      deadlineMs: this.time.milliseconds() + this.config.requestTimeoutMs,
      complete: (data) => {
        const response: InboundResponse = {
          correlationId,
          apiKey,
          sourceId: destinationId,
          data,
          receivedTimeMs: this.time.milliseconds(),
        };
        this.offerResponse(response);
      },
    });
  }

  sendResponse(request: InboundRequest, data: unknown): void {
    invariant(
      request instanceof TcpInboundRequest,
      () => `sendResponse given a request this channel did not receive (apiKey ${request.apiKey})`,
    );
    request.call.respond(data);
  }

  /**
   * Where to reach `nodeId` from now on (a voter from a VotersRecord, a leader's endpoint from a
   * response). A changed address closes the connection to the old one; its requests fail with
   * BROKER_NOT_AVAILABLE.
   */
  updateEndpoint(nodeId: number, endpoint: NodeAddress): void {
    this.client.updateEndpoint(nodeId, { host: endpoint.host, port: endpoint.port });
  }

  /** Everything received since the last drain, oldest first. */
  drain(): ChannelMessage[] {
    return this.queue.drain();
  }

  /** Resolves when a message is waiting (or the channel closes); race it with the next deadline. */
  waitForMessages(): Promise<void> {
    return this.closed ? Promise.resolve() : this.queue.waitForItems();
  }

  /** Messages waiting in the channel's own queue for `drain()` (0 once a sink is attached). */
  queuedMessageCount(): number {
    return this.queue.size();
  }

  private offerResponse(response: InboundResponse): void {
    const accepted =
      this.sink === undefined
        ? this.queue.offer({ kind: 'response', response })
        : this.sink.deliverResponse(response);
    if (!accepted) {
      const { sourceId, correlationId, apiKey } = response;
      if (this.closed) {
        // close() cancels what is still in flight after the driver has stopped: every clean
        // shutdown with a fetch outstanding does this, so it is neither an error nor a full queue.
        this.logger.debug(
          { remoteNodeId: sourceId, correlationId, apiKey },
          'channel closed, dropping response',
        );
        return;
      }
      this.logger.error(
        { remoteNodeId: sourceId, correlationId, apiKey },
        'inbound queue full, dropping response',
      );
    }
  }

  /** False when the consumer's queue is full. */
  private offerRequest(request: InboundRequest): boolean {
    return this.sink === undefined
      ? this.queue.offer({ kind: 'request', request })
      : this.sink.deliverRequest(request);
  }

  private onInboundCall(call: InboundCall): void {
    const request = new TcpInboundRequest(call, call.receivedTimeMs);
    if (!this.offerRequest(request)) {
      this.logger.warn(
        { apiKey: request.apiKey, correlationId: request.correlationId },
        'inbound queue full, refusing request',
      );
      throw new InboundQueueFullError(this.maxQueuedMessages);
    }
  }
}
