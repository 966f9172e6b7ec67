import { apiKeyFor } from '@kraft/protocol';
import type {
  InboundRequest,
  NetworkChannel,
  NodeAddress,
  OutboundRequest,
} from '../../src/ports/network-channel.js';

export interface SentResponse {
  readonly request: InboundRequest;
  readonly data: unknown;
}

/** Collects what the client sends so tests can drain and inspect it. */
export class MockNetworkChannel implements NetworkChannel {
  private correlationIdCounter = 0;
  private sentRequests: OutboundRequest[] = [];
  private sentResponses: SentResponse[] = [];
  readonly endpoints = new Map<number, NodeAddress>();

  newCorrelationId(): number {
    this.correlationIdCounter += 1;
    return this.correlationIdCounter;
  }

  send(request: OutboundRequest): void {
    // What a transport would do first: encode at the version asked for (typed error if the data
    // cannot be carried by that version).
    apiKeyFor(request.apiKey)?.request.write(request.data, request.apiVersion);
    this.sentRequests.push(request);
  }

  sendResponse(request: InboundRequest, data: unknown): void {
    apiKeyFor(request.apiKey)?.response.write(data, request.apiVersion);
    this.sentResponses.push({ request, data });
  }

  updateEndpoint(nodeId: number, endpoint: NodeAddress): void {
    this.endpoints.set(nodeId, endpoint);
  }

  /** Removes and returns the requests sent so far (optionally only of one api key). */
  drainSendQueue(apiKey?: number): OutboundRequest[] {
    const matching = this.sentRequests.filter((request) => apiKey === undefined || request.apiKey === apiKey);
    this.sentRequests = this.sentRequests.filter((request) => !matching.includes(request));
    return matching;
  }

  drainSentResponses(apiKey?: number): SentResponse[] {
    const matching = this.sentResponses.filter(
      (sent) => apiKey === undefined || sent.request.apiKey === apiKey,
    );
    this.sentResponses = this.sentResponses.filter((sent) => !matching.includes(sent));
    return matching;
  }

  hasSentRequests(): boolean {
    return this.sentRequests.length > 0;
  }
}
