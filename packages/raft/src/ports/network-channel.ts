// The NetworkChannel port is declared once, in @kraft/protocol, below both raft and the TCP
// transport that implements it (ADR 0023); the core keeps importing it from here.
export type {
  InboundRequest,
  InboundResponse,
  NetworkChannel,
  NodeAddress,
  OutboundRequest,
  RaftRequest,
} from '@kraft/protocol';
