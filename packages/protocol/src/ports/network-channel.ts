/**
 * The NetworkChannel port. The raft core is synchronous and never awaits: it hands decoded
 * protocol data objects (the plain objects `@kraft/protocol`'s `XxxRequest.read()` returns),
 * never bytes, to the channel, and the driver feeds inbound traffic back through
 * `client.handleRequest(request, nowMs)` / `client.handleResponse(response, nowMs)`.
 *
 * Implemented by `@kraft/transport-tcp` (`TcpNetworkChannel`), by the simulator's router and by
 * `MockNetworkChannel` in `@kraft/raft`'s test kit.
 *
 * Transport failures come back as synthetic responses with Kafka's codes, as Kafka's
 * KafkaNetworkChannel does: disconnect or unknown destination → BROKER_NOT_AVAILABLE (8),
 * version mismatch → UNSUPPORTED_VERSION (35), request timeout → REQUEST_TIMED_OUT (7). A
 * synthetic response's `data` is `{ errorCode }` only; the core reads the top-level error first.
 */

/** What every request the core sends or receives carries. */
export interface RaftRequest {
  readonly correlationId: number;
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly data: unknown;
  readonly createdTimeMs: number;
}

/** A request the core hands to the channel, for the node `destinationId`. */
export interface OutboundRequest extends RaftRequest {
  readonly destinationId: number;
}

/** A request that arrived for the core; answered with `NetworkChannel.sendResponse`. */
export interface InboundRequest extends RaftRequest {
  /** The sender's node id, or -1 when unknown (e.g. a DescribeQuorum from an admin client). */
  readonly sourceId: number;
  readonly listenerName?: string;
}

/** The answer to one of the core's requests (or a synthetic `{ errorCode }` for a transport failure). */
export interface InboundResponse {
  readonly correlationId: number;
  readonly apiKey: number;
  readonly sourceId: number;
  readonly data: unknown;
  readonly receivedTimeMs: number;
}

/** Where a node listens: a host name or address, and a TCP port. */
export interface NodeAddress {
  readonly host: string;
  readonly port: number;
}

/** The port itself: how the core sends requests and responses (see the top of this file). */
export interface NetworkChannel {
  /** A correlation id not used by any request in flight from this node. */
  newCorrelationId(): number;
  /** Queues the request; the answer later arrives through `client.handleResponse(...)`. */
  send(request: OutboundRequest): void;
  /** Answers an inbound request; the transport writes it at the request's version. */
  sendResponse(request: InboundRequest, data: unknown): void;
  /** Where `nodeId` is reached from now on (a voter's endpoint, learnt or configured). */
  updateEndpoint(nodeId: number, endpoint: NodeAddress): void;
}
