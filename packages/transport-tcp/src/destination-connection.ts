import { connect, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { Logger } from '@kraft/protocol';
import {
  type ApiKey,
  ApiKeys,
  type ApiVersionsResponseData,
  Errors,
  KRaftError,
  peekResponseCorrelationId,
  readResponseFrame,
  writeRequestFrame,
} from '@kraft/protocol';
import { type ApiRegistry, type ApiVersionRange, isInRange } from './api-registry.js';
import { ReconnectBackoff } from './backoff.js';
import { CoalescingWriter } from './coalescing-writer.js';
import { failureFields } from './failure-fields.js';
import { FrameDecoder } from './frame-codec.js';
import type { HostAndPort } from './listener-config.js';
import type { TlsContext } from './tls-context.js';
import type { TransportConfig } from './transport-config.js';

/** One request handed to the client; `complete` is called exactly once. */
export interface ClientRequest {
  readonly apiKey: number;
  /** Highest version the caller accepts; the negotiated version is at most this. */
  readonly maxVersion: number;
  readonly data: unknown;
  readonly deadlineMs: number;
  /** The decoded response, or `{ errorCode }` when the transport failed it. */
  readonly complete: (data: unknown) => void;
}

interface InFlightRequest {
  readonly request: ClientRequest | undefined;
  readonly api: ApiKey;
  readonly apiVersion: number;
}

export interface DestinationConnectionOptions {
  readonly destinationId: number;
  readonly apis: ApiRegistry;
  readonly config: TransportConfig;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly random: () => number;
  readonly clientId: string;
  readonly clientSoftwareName: string;
  readonly clientSoftwareVersion: string;
  /** Set when the destination's listener speaks SSL: connections are TLS, verified by this context. */
  readonly tls?: TlsContext | undefined;
  /** True once this node is stopping: a connection lost then is expected, so not a warning. */
  readonly isShuttingDown?: () => boolean;
}

type State = 'disconnected' | 'connecting' | 'negotiating' | 'ready' | 'closed';

/**
 * What the log last said about the destination. Only a change is worth a line at info or warn: a
 * dead peer is retried every backoff interval, and each failed retry is a debug line.
 */
type Reachability = 'unknown' | 'reachable' | 'unreachable';

/**
 * Largest response frame read: the int32 size prefix's limit, as Kafka's controller client reads
 * responses with `NetworkReceive.UNLIMITED`. A response is as large as its request asked for (a
 * Fetch or FetchSnapshot `maxBytes`); `socket.request.max.bytes` bounds only the requests a server
 * reads, and applying it here refused every chunk above it and retried the same one forever. The
 * decoder allocates a frame only once all its bytes have arrived, so this bounds no allocation.
 */
const MAX_RESPONSE_FRAME_BYTES = 0x7fffffff;

/**
 * The client side of one destination: a lazily opened connection, ApiVersions negotiation on each
 * new connection, pipelined requests matched to responses by correlation id in send order, and
 * reconnect backoff. Failures complete requests with synthetic error data, as Kafka's
 * KafkaNetworkChannel does.
 */
export class DestinationConnection {
  readonly destinationId: number;
  private readonly options: DestinationConnectionOptions;
  private readonly backoff: ReconnectBackoff;
  private endpoint: HostAndPort | undefined;
  private state: State = 'disconnected';
  private socket: Socket | undefined;
  private decoder: FrameDecoder | undefined;
  private writer: CoalescingWriter | undefined;
  private readonly pending: ClientRequest[] = [];
  private readonly inFlight = new Map<number, InFlightRequest>();
  private serverVersions = new Map<number, ApiVersionRange>();
  private nextCorrelationId = 0;
  /** Until when a failed destination refuses requests (Kafka's connectionFailed during backoff). */
  private backoffUntilMs = 0;
  private connectTimer: NodeJS.Timeout | undefined;
  /** A peer that accepts but never answers ApiVersions is dropped after one request timeout. */
  private negotiationDeadlineMs = Number.POSITIVE_INFINITY;
  /** The TCP connection is up but the TLS handshake has not finished: a failure now is the handshake's. */
  private handshaking = false;
  private reachability: Reachability = 'unknown';
  /** Connection attempts that failed since the destination was last reachable. */
  private failedAttempts = 0;
  private unreachableSinceMs = 0;

  constructor(options: DestinationConnectionOptions) {
    this.options = options;
    this.destinationId = options.destinationId;
    this.backoff = new ReconnectBackoff(
      options.config.reconnectBackoffMs,
      options.config.reconnectBackoffMaxMs,
      options.random,
    );
  }

  /** A new address takes effect on the next connection; a live connection to the old one is closed. */
  updateEndpoint(endpoint: HostAndPort): void {
    const previous = this.endpoint;
    this.endpoint = endpoint;
    if (previous !== undefined && (previous.host !== endpoint.host || previous.port !== endpoint.port)) {
      this.disconnect('endpoint changed', Errors.BROKER_NOT_AVAILABLE.code);
      this.backoffUntilMs = 0;
    }
  }

  /**
   * Queues `request`, connecting first when there is no connection; it is sent once ApiVersions
   * has been negotiated, at the highest version both sides and `maxVersion` allow. Never throws:
   * while the destination is closed, has no endpoint, is in reconnect backoff or has
   * `maxPendingRequestsPerDestination` requests waiting, it completes at once with
   * BROKER_NOT_AVAILABLE.
   */
  send(request: ClientRequest): void {
    if (this.state === 'closed' || this.endpoint === undefined) {
      request.complete({ errorCode: Errors.BROKER_NOT_AVAILABLE.code });
      return;
    }
    if (this.state === 'disconnected' && this.options.clock() < this.backoffUntilMs) {
      request.complete({ errorCode: Errors.BROKER_NOT_AVAILABLE.code });
      return;
    }
    if (this.pending.length >= this.options.config.maxPendingRequestsPerDestination) {
      this.options.logger.warn(
        { remoteNodeId: this.destinationId, apiKey: request.apiKey },
        'too many pending requests',
      );
      request.complete({ errorCode: Errors.BROKER_NOT_AVAILABLE.code });
      return;
    }
    this.pending.push(request);
    if (this.state === 'disconnected') this.connect();
    else if (this.state === 'ready') this.sendPending();
  }

  /** Fails requests past their deadline; a timed-out request also drops its connection, as Kafka's NetworkClient does. */
  checkTimeouts(nowMs: number): void {
    for (let index = 0; index < this.pending.length; ) {
      const request = this.pending[index]!;
      if (request.deadlineMs <= nowMs) {
        this.pending.splice(index, 1);
        request.complete({ errorCode: Errors.REQUEST_TIMED_OUT.code });
      } else index += 1;
    }
    if (this.state === 'negotiating' && nowMs >= this.negotiationDeadlineMs && this.socket !== undefined) {
      this.onConnectionFailure('ApiVersions not answered in time', undefined);
    }
    for (const inFlight of this.inFlight.values()) {
      if (inFlight.request !== undefined && inFlight.request.deadlineMs <= nowMs) {
        this.failInFlight(Errors.BROKER_NOT_AVAILABLE.code, nowMs);
        this.disconnect('request timed out', Errors.BROKER_NOT_AVAILABLE.code);
        return;
      }
    }
  }

  /** Cancels everything: each waiting request completes with BROKER_NOT_AVAILABLE. */
  close(): void {
    this.disconnect('client closed', Errors.BROKER_NOT_AVAILABLE.code);
    this.state = 'closed';
    this.failPending(Errors.BROKER_NOT_AVAILABLE.code);
  }

  private connect(): void {
    const endpoint = this.endpoint!;
    const tls = this.options.tls;
    this.state = 'connecting';
    this.handshaking = false;
    const socket =
      tls === undefined
        ? connect({ host: endpoint.host, port: endpoint.port, noDelay: true })
        : connectTls({ host: endpoint.host, port: endpoint.port, ...tls.clientOptions(endpoint.host) });
    this.socket = socket;
    this.decoder = new FrameDecoder(MAX_RESPONSE_FRAME_BYTES);
    this.writer = new CoalescingWriter(socket);
    // The setup timeout covers the TCP connect and, over TLS, the handshake.
    this.connectTimer = setTimeout(() => {
      if (this.socket === socket) this.onConnectionFailure('connection setup timed out', undefined);
    }, this.options.config.connectionSetupTimeoutMs);
    if (tls !== undefined) {
      socket.once('connect', () => {
        socket.setNoDelay(true);
        if (this.socket === socket) this.handshaking = true;
      });
    }
    socket.once(tls === undefined ? 'connect' : 'secureConnect', () => {
      clearTimeout(this.connectTimer);
      this.handshaking = false;
      if (this.socket === socket) this.negotiate(this.apiVersionsRange().maxVersion);
    });
    socket.on('data', (chunk: Buffer) => {
      if (this.socket === socket) this.onData(chunk);
    });
    socket.on('error', (err) => {
      if (this.socket === socket)
        this.onConnectionFailure(this.handshaking ? 'TLS handshake failed' : 'socket error', err);
    });
    socket.on('close', () => {
      if (this.socket === socket)
        this.onConnectionFailure(
          this.handshaking ? 'TLS handshake failed: connection closed' : 'connection closed',
          undefined,
        );
    });
  }

  /** The ApiVersions versions this client speaks. */
  private apiVersionsRange(): ApiVersionRange {
    return this.options.apis.get(ApiKeys.API_VERSIONS.key)!.range;
  }

  /** Sends ApiVersions at `version`; the response decides what every later request may use. */
  private negotiate(version: number): void {
    this.state = 'negotiating';
    this.negotiationDeadlineMs = this.options.clock() + this.options.config.requestTimeoutMs;
    const data = ApiKeys.API_VERSIONS.request.defaults({
      clientSoftwareName: this.options.clientSoftwareName,
      clientSoftwareVersion: this.options.clientSoftwareVersion,
    });
    this.writeRequest(ApiKeys.API_VERSIONS, version, data, undefined);
  }

  private writeRequest(
    api: ApiKey,
    apiVersion: number,
    data: unknown,
    request: ClientRequest | undefined,
  ): void {
    const correlationId = this.nextCorrelationId;
    const frame = writeRequestFrame(
      { apiKey: api.key, apiVersion, correlationId, clientId: this.options.clientId },
      data,
    );
    this.nextCorrelationId = (this.nextCorrelationId + 1) | 0;
    this.inFlight.set(correlationId, { request, api, apiVersion });
    this.writer!.write(frame);
  }

  private sendPending(): void {
    const maxInFlight = this.options.config.maxInFlightRequestsPerConnection;
    while (this.state === 'ready' && this.pending.length > 0 && this.inFlight.size < maxInFlight) {
      const request = this.pending.shift()!;
      const version = this.chooseVersion(request);
      if (version === undefined) {
        request.complete({ errorCode: Errors.UNSUPPORTED_VERSION.code });
        continue;
      }
      try {
        this.writeRequest(this.options.apis.get(request.apiKey)!.api, version, request.data, request);
      } catch (err) {
        if (!KRaftError.isInstance(err)) throw err;
        this.options.logger.debug(
          { remoteNodeId: this.destinationId, apiKey: request.apiKey, err },
          'request not encodable',
        );
        request.complete({ errorCode: Errors.UNSUPPORTED_VERSION.code });
      }
    }
  }

  /** The highest version both sides support, capped by the caller's, or undefined when none is common. */
  private chooseVersion(request: ClientRequest): number | undefined {
    const ours = this.options.apis.get(request.apiKey)?.range;
    const theirs = this.serverVersions.get(request.apiKey);
    if (ours === undefined || theirs === undefined) return undefined;
    const version = Math.min(ours.maxVersion, theirs.maxVersion, request.maxVersion);
    return version >= Math.max(ours.minVersion, theirs.minVersion) ? version : undefined;
  }

  private onData(chunk: Buffer): void {
    this.decoder!.push(chunk);
    try {
      for (;;) {
        const result = this.decoder!.next();
        if (result.kind === 'incomplete') return;
        this.onResponseFrame(result.frame);
        if (this.socket === undefined) return;
      }
    } catch (err) {
      this.onConnectionFailure('invalid response', err);
    }
  }

  /** Responses come in request order: the first in-flight entry must match. */
  private onResponseFrame(frame: Buffer): void {
    const [expectedId, inFlight] = this.inFlight.entries().next().value ?? [undefined, undefined];
    if (inFlight === undefined)
      throw new KRaftError('UNEXPECTED_RESPONSE', 'response with no request in flight');
    const correlationId = peekResponseCorrelationId(frame);
    if (correlationId !== expectedId) {
      throw new KRaftError(
        'CORRELATION_MISMATCH',
        `expected correlation id ${expectedId}, received ${correlationId}`,
      );
    }
    this.inFlight.delete(correlationId);
    if (inFlight.request === undefined) {
      this.onApiVersionsResponse(frame, inFlight.apiVersion);
      return;
    }
    inFlight.request.complete(readResponseFrame(frame, inFlight.api.key, inFlight.apiVersion).data);
    this.sendPending();
  }

  private onApiVersionsResponse(frame: Buffer, sentVersion: number): void {
    const response = readApiVersionsResponse(frame, sentVersion);
    if (response.errorCode === Errors.UNSUPPORTED_VERSION.code) {
      const theirs = response.apiKeys.find((range) => range.apiKey === ApiKeys.API_VERSIONS.key);
      const retryVersion = theirs === undefined ? -1 : Math.min(theirs.maxVersion, sentVersion - 1);
      if (isInRange(this.apiVersionsRange(), retryVersion)) {
        this.negotiate(retryVersion);
        return;
      }
    }
    if (response.errorCode !== Errors.NONE.code) {
      this.options.logger.warn(
        { remoteNodeId: this.destinationId, errorCode: response.errorCode },
        'ApiVersions failed',
      );
      this.failPending(Errors.UNSUPPORTED_VERSION.code);
      this.disconnect('ApiVersions failed', Errors.UNSUPPORTED_VERSION.code);
      return;
    }
    this.serverVersions = new Map(
      response.apiKeys.map(({ apiKey, minVersion, maxVersion }) => [
        apiKey,
        { apiKey, minVersion, maxVersion },
      ]),
    );
    this.state = 'ready';
    this.backoff.reset();
    this.onReachable();
    this.sendPending();
  }

  /** Callers pass only failures of the current socket: `disconnect` fails what is in flight and destroys it. */
  private onConnectionFailure(reason: string, err: unknown): void {
    const wasReady = this.state === 'ready';
    this.onUnreachable(wasReady, reason, err);
    this.disconnect(reason, Errors.BROKER_NOT_AVAILABLE.code);
    // A connection that never became ready backs off and fails what waited for it.
    if (!wasReady) this.failPending(Errors.BROKER_NOT_AVAILABLE.code);
  }

  /** A connection became ready: logged when it is news (the first, or the first after failures). */
  private onReachable(): void {
    const { logger } = this.options;
    const fields = { remoteNodeId: this.destinationId, endpoint: this.endpointText() };
    if (this.reachability === 'unreachable') {
      const unreachableMs = Math.round(this.options.clock() - this.unreachableSinceMs);
      logger.info({ ...fields, failedAttempts: this.failedAttempts, unreachableMs }, 'connection restored');
    } else if (this.reachability === 'unknown') {
      logger.info(fields, 'connected');
    } else {
      logger.debug(fields, 'connection ready');
    }
    this.reachability = 'reachable';
    this.failedAttempts = 0;
  }

  /**
   * A connection failed: one warning when the destination stops being reachable (a ready
   * connection lost, or the first attempt failing), with the cause on one line (info while this
   * node stops); the retries that fail after it are debug lines.
   */
  private onUnreachable(wasReady: boolean, reason: string, err: unknown): void {
    const { logger } = this.options;
    this.failedAttempts += 1;
    const news = this.reachability !== 'unreachable';
    const level = !news ? 'debug' : this.options.isShuttingDown?.() === true ? 'info' : 'warn';
    if (news) {
      this.reachability = 'unreachable';
      this.unreachableSinceMs = this.options.clock();
    }
    if (!logger.isLevelEnabled(level)) return;
    const fields = {
      remoteNodeId: this.destinationId,
      endpoint: this.endpointText(),
      reason,
      ...failureFields(err),
    };
    if (!news) logger.debug({ ...fields, failedAttempts: this.failedAttempts }, 'reconnect failed');
    else logger[level](fields, wasReady ? 'connection lost' : 'cannot connect');
  }

  private endpointText(): string {
    const endpoint = this.endpoint;
    if (endpoint === undefined) return 'unknown';
    return endpoint.host.includes(':')
      ? `[${endpoint.host}]:${endpoint.port}`
      : `${endpoint.host}:${endpoint.port}`;
  }

  /** Drops the socket; in-flight requests complete with `errorCode`; pending ones stay for the next connection. */
  private disconnect(reason: string, errorCode: number): void {
    clearTimeout(this.connectTimer);
    const socket = this.socket;
    if (socket === undefined) return;
    this.socket = undefined;
    this.decoder = undefined;
    this.failInFlight(errorCode, this.options.clock());
    socket.destroy();
    if (this.state !== 'closed') {
      this.state = 'disconnected';
      this.backoffUntilMs = this.options.clock() + this.backoff.nextDelayMs();
      this.options.logger.debug({ remoteNodeId: this.destinationId, reason }, 'connection dropped');
      if (this.pending.length > 0) this.scheduleReconnect();
    }
  }

  private scheduleReconnect(): void {
    const delayMs = Math.max(0, this.backoffUntilMs - this.options.clock());
    setTimeout(() => {
      if (this.state === 'disconnected' && this.pending.length > 0 && this.endpoint !== undefined)
        this.connect();
    }, delayMs).unref();
  }

  /** Completes every in-flight request: those past their deadline as timed out, the rest with `errorCode`. */
  private failInFlight(errorCode: number, nowMs: number): void {
    const entries = [...this.inFlight.values()];
    this.inFlight.clear();
    for (const { request } of entries) {
      if (request === undefined) continue;
      request.complete({
        errorCode: request.deadlineMs <= nowMs ? Errors.REQUEST_TIMED_OUT.code : errorCode,
      });
    }
  }

  private failPending(errorCode: number): void {
    const waiting = this.pending.splice(0, this.pending.length);
    for (const request of waiting) request.complete({ errorCode });
  }
}

/**
 * Reads an ApiVersions response frame at the version sent, falling back to v0: a server that does
 * not know the version answers v0 with UNSUPPORTED_VERSION (Kafka's ApiVersionsResponse.parse).
 */
function readApiVersionsResponse(frame: Buffer, sentVersion: number): ApiVersionsResponseData {
  const apiKey = ApiKeys.API_VERSIONS.key;
  try {
    return readResponseFrame(frame, apiKey, sentVersion).data as ApiVersionsResponseData;
  } catch (err) {
    if (sentVersion === 0) throw err;
    return readResponseFrame(frame, apiKey, 0).data as ApiVersionsResponseData;
  }
}
