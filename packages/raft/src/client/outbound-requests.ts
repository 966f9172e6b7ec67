import type { NetworkChannel, NodeAddress } from '../ports/network-channel.js';
import type { MessageSink } from '../raft-outbox.js';
import type { RequestManager } from '../request-manager.js';
import type { OutboundApiKey, RequestDataByApiKey } from '../rpc/typed-messages.js';

/** A request in flight to one node: its answer is judged against the epoch and pre-vote flag it was sent with. */
export interface OutstandingRequest {
  readonly correlationId: number;
  readonly apiKey: number;
  readonly epoch: number;
  readonly preVote: boolean;
}

/**
 * The core's requests in flight, at most one per node: sent through the outbox under a fresh
 * correlation id, tracked by the request manager (backoff, timeout), and remembered with the
 * epoch they were sent in until their response is taken.
 */
export class OutboundRequests {
  /** The request in flight to each node, by destination id. */
  private readonly outstanding = new Map<number, OutstandingRequest>();

  constructor(
    private readonly network: Pick<NetworkChannel, 'newCorrelationId' | 'updateEndpoint'>,
    private readonly outbox: Pick<MessageSink, 'sendRequest'>,
    private readonly requestManager: RequestManager,
  ) {}

  /** Whether `nodeId` can take a request now: none in flight to it, and no backoff. */
  isReady(nodeId: number, nowMs: number): boolean {
    return this.requestManager.isReady(nodeId, nowMs);
  }

  /** Sends a request and remembers it as the one in flight to `destinationId`. */
  sendRequest<K extends OutboundApiKey>(
    destinationId: number,
    apiKey: K,
    apiVersion: number,
    data: RequestDataByApiKey[K],
    epoch: number,
    preVote: boolean,
    nowMs: number,
  ): void {
    const correlationId = this.network.newCorrelationId();
    this.outbox.sendRequest({ correlationId, apiKey, apiVersion, data, createdTimeMs: nowMs, destinationId });
    this.requestManager.onRequestSent(destinationId, correlationId, nowMs);
    this.outstanding.set(destinationId, { correlationId, apiKey, epoch, preVote });
  }

  /** The request in flight to `sourceId`, forgotten: its response arrived. */
  take(sourceId: number): OutstandingRequest | undefined {
    const request = this.outstanding.get(sourceId);
    this.outstanding.delete(sourceId);
    return request;
  }

  /**
   * Forgets every request in flight and every backoff: a new election or leadership starts with
   * fresh connections, so answers to the previous state's requests are stale.
   */
  resetAll(): void {
    this.requestManager.resetAll();
    this.outstanding.clear();
  }

  /** Where to reach `nodeId` from now on (a leader's endpoint learned from a message). */
  updateEndpoint(nodeId: number, address: NodeAddress): void {
    this.network.updateEndpoint(nodeId, address);
  }
}

/** How the handlers send the core's own requests (Vote, BeginQuorumEpoch, Fetch, ...). */
export type RequestSender = Pick<OutboundRequests, 'isReady' | 'sendRequest'>;
