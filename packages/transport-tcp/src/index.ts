export {
  ApiRegistry,
  type ApiVersionRange,
  isInRange,
  kraftApiRegistry,
  type ServedApi,
} from './api-registry.js';
export { apiVersionsResponseData, hasValidClientSoftware } from './api-versions.js';
export { ReconnectBackoff } from './backoff.js';
export { type ClientRequest, DestinationConnection } from './destination-connection.js';
export { InboundQueueFullError } from './errors/inbound-queue-full-error.js';
export { InvalidListenerConfigError } from './errors/invalid-listener-config-error.js';
export { InvalidTlsConfigError } from './errors/invalid-tls-config-error.js';
export { type FrameDecodeResult, FrameDecoder } from './frame-codec.js';
export { InboundCall } from './inbound-call.js';
export { InboundQueue } from './inbound-queue.js';
export {
  type BoundListener,
  type InboundRequestHandler,
  InboundServer,
  type InboundServerOptions,
} from './inbound-server.js';
export {
  type HostAndPort,
  type ListenerSpec,
  parseBootstrapServers,
  parseHostAndPort,
  parseListeners,
  type QuorumVoter,
  type SecurityProtocol,
  selectControllerListeners,
} from './listener-config.js';
export { OutboundClient, type OutboundClientOptions } from './outbound-client.js';
export type { ChunkedRecordsSource, InMemoryRecordsSource, OutboundPayload } from './outbound-payload.js';
export { encodeResponse } from './response-encoder.js';
export {
  bootstrapServerNodeId,
  type ChannelMessage,
  type InboundSink,
  TcpNetworkChannel,
  type TcpNetworkChannelOptions,
} from './tcp-network-channel.js';
export { type SslClientAuth, TlsContext, type TlsProtocolVersion, type TlsSettings } from './tls-context.js';
export {
  DEFAULT_TRANSPORT_CONFIG,
  resolveTransportConfig,
  type TransportConfig,
} from './transport-config.js';
