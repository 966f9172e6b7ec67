import { DEFAULT_MAX_FRAME_BYTES, invariant } from '@kraft/protocol';

/**
 * Bounds and timeouts of the TCP transport. Names follow Kafka's configuration keys where Kafka
 * has one (in comments); each default says why it is what it is.
 */
export interface TransportConfig {
  /** `socket.request.max.bytes`: largest request frame a server reads. Kafka's default, 100 MiB. Responses are not bounded by it. */
  readonly socketRequestMaxBytes: number;
  /** `connections.max.idle.ms`: a connection with no traffic and nothing in flight is closed. Kafka: 10 min. */
  readonly connectionsMaxIdleMs: number;
  /**
   * A started frame must be complete within this time, or the sender is a slow-loris and is cut
   * off. 30 s lets an 8 MiB Fetch crawl at ~280 KB/s, far below any healthy loopback or LAN link.
   */
  readonly frameCompletionTimeoutMs: number;
  /**
   * Requests read from one connection and not yet answered. Reading pauses at the bound. Kafka's
   * server mutes a connection after one request; pipelining a few keeps admin clients fast.
   */
  readonly maxInFlightRequestsPerConnection: number;
  /** Unsent response bytes at which reading from the connection pauses (2 max Fetch responses). */
  readonly outboundHighWaterMarkBytes: number;
  /** `max.connections`: accepted connections beyond this are closed at once. */
  readonly maxConnections: number;
  /** `controller.quorum.request.timeout.ms`: an outbound request not answered in time fails. */
  readonly requestTimeoutMs: number;
  /** `reconnect.backoff.ms`: first wait before reconnecting to a destination. Kafka: 50 ms. */
  readonly reconnectBackoffMs: number;
  /** `reconnect.backoff.max.ms`: the backoff doubles up to this. Kafka: 1 s. */
  readonly reconnectBackoffMaxMs: number;
  /** `socket.connection.setup.timeout.ms`: a TCP connect that takes longer fails. Kafka: 10 s. */
  readonly connectionSetupTimeoutMs: number;
  /** Requests waiting per destination while it is unreachable or negotiating; more fail at once. */
  readonly maxPendingRequestsPerDestination: number;
}

/**
 * The settings used where a caller overrides none: Kafka's defaults where Kafka has the setting
 * (100 MiB requests, 10 min idle, 2 s request timeout, 50 ms to 1 s reconnect backoff, 10 s
 * connect), and bounds of our own for the rest (1024 connections, 128 requests in flight per
 * connection, 16 MiB of unsent responses, 30 s to finish a frame).
 */
export const DEFAULT_TRANSPORT_CONFIG: TransportConfig = {
  socketRequestMaxBytes: DEFAULT_MAX_FRAME_BYTES,
  connectionsMaxIdleMs: 600_000,
  frameCompletionTimeoutMs: 30_000,
  maxInFlightRequestsPerConnection: 128,
  outboundHighWaterMarkBytes: 16 * 1024 * 1024,
  maxConnections: 1024,
  requestTimeoutMs: 2_000,
  reconnectBackoffMs: 50,
  reconnectBackoffMaxMs: 1_000,
  connectionSetupTimeoutMs: 10_000,
  maxPendingRequestsPerDestination: 1024,
};

/** Fills unspecified settings with the defaults and asserts every bound is a positive integer. */
export function resolveTransportConfig(overrides: Partial<TransportConfig> = {}): TransportConfig {
  const config: TransportConfig = { ...DEFAULT_TRANSPORT_CONFIG, ...overrides };
  for (const [name, value] of Object.entries(config)) {
    invariant(
      Number.isSafeInteger(value) && value > 0,
      () => `transport setting ${name} must be a positive integer, got ${value}`,
    );
  }
  invariant(
    config.socketRequestMaxBytes <= 0x7fffffff,
    () => `socketRequestMaxBytes ${config.socketRequestMaxBytes} exceeds what an int32 size prefix can carry`,
  );
  invariant(
    config.reconnectBackoffMs <= config.reconnectBackoffMaxMs,
    () =>
      `reconnectBackoffMs ${config.reconnectBackoffMs} > reconnectBackoffMaxMs ${config.reconnectBackoffMaxMs}`,
  );
  return config;
}
