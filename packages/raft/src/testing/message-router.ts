import type {
  InboundRequest,
  InboundResponse,
  NetworkChannel,
  NodeAddress,
  OutboundRequest,
} from '../ports/network-channel.js';
import type { EventScheduler, SimulationEvent } from './event-scheduler.js';
import {
  HEALTHY_LINKS,
  type LinkConditions,
  PartitionTable,
  type RoutedMessage,
  route,
} from './network-filters.js';
import type { SimulationRandom } from './simulation-random.js';
import type { TraceRecorder } from './trace-recorder.js';

/** Kafka error codes the transport synthesizes (Errors.java). */
export const REQUEST_TIMED_OUT = 7;
export const BROKER_NOT_AVAILABLE = 8;
/** The source id of requests from an admin client (not a replica). */
export const ADMIN_CLIENT_ID = -1;

/** A running node as the router sees it: one incarnation of one node id. */
export interface RouterEndpoint {
  readonly nodeId: number;
  /** Bumped on every restart: traffic addressed to an older incarnation is lost with it. */
  readonly incarnation: number;
  receiveRequest(request: InboundRequest): void;
  receiveResponse(response: InboundResponse): void;
}

/** Optional proof that every message the core emits encodes and decodes (through @kraft/protocol). */
export interface MessageCodec {
  roundTripRequest(apiKey: number, apiVersion: number, data: unknown): unknown;
  roundTripResponse(apiKey: number, apiVersion: number, data: unknown): unknown;
}

interface PendingRequest {
  readonly request: OutboundRequest;
  readonly sourceId: number;
  readonly sourceIncarnation: number;
  readonly timeout: SimulationEvent;
}

export interface RouterStatistics {
  requestsSent: number;
  responsesSent: number;
  dropped: number;
  duplicated: number;
  timedOut: number;
  refused: number;
}

/**
 * The in-memory network: each node's `SimulatedNetworkChannel` hands requests here; the router
 * routes them through the partition table and link conditions, delivers them as scheduler events,
 * matches responses to pending requests, and synthesizes REQUEST_TIMED_OUT and
 * BROKER_NOT_AVAILABLE responses as a real transport would. A response reaches only the
 * incarnation that sent the request, and only once.
 */
export class MessageRouter {
  readonly partitions = new PartitionTable();
  conditions: LinkConditions = { ...HEALTHY_LINKS };
  readonly statistics: RouterStatistics = {
    requestsSent: 0,
    responsesSent: 0,
    dropped: 0,
    duplicated: 0,
    timedOut: 0,
    refused: 0,
  };
  private readonly endpoints = new Map<number, RouterEndpoint>();
  /**
   * Unanswered requests by source node, then source incarnation, then correlation id: numeric
   * keys, no key string built per message.
   */
  private readonly pending = new Map<number, Map<number, Map<number, PendingRequest>>>();
  private pendingCount = 0;
  /** Which incarnation sent each delivered request, so its answer goes to that process only. */
  private readonly requesterIncarnations = new WeakMap<InboundRequest, number>();

  constructor(
    private readonly scheduler: EventScheduler,
    private readonly random: SimulationRandom,
    private readonly trace: TraceRecorder,
    private readonly requestTimeoutMs: number,
    private readonly codec?: MessageCodec,
  ) {}

  attach(endpoint: RouterEndpoint): void {
    this.endpoints.set(endpoint.nodeId, endpoint);
  }

  /** The node stopped: its pending requests will never be answered (their timeouts are moot). */
  detach(nodeId: number): void {
    this.endpoints.delete(nodeId);
    const byIncarnation = this.pending.get(nodeId);
    if (byIncarnation === undefined) return;
    for (const requests of byIncarnation.values()) {
      for (const pending of requests.values()) pending.timeout.cancelled = true;
      this.pendingCount -= requests.size;
    }
    this.pending.delete(nodeId);
  }

  channelFor(nodeId: number, incarnation: number): SimulatedNetworkChannel {
    return new SimulatedNetworkChannel(this, nodeId, incarnation);
  }

  pendingRequestCount(): number {
    return this.pendingCount;
  }

  private pendingRequests(sourceId: number, incarnation: number): Map<number, PendingRequest> {
    let byIncarnation = this.pending.get(sourceId);
    if (byIncarnation === undefined) {
      byIncarnation = new Map();
      this.pending.set(sourceId, byIncarnation);
    }
    let requests = byIncarnation.get(incarnation);
    if (requests === undefined) {
      requests = new Map();
      byIncarnation.set(incarnation, requests);
    }
    return requests;
  }

  private findPending(
    sourceId: number,
    incarnation: number,
    correlationId: number,
  ): PendingRequest | undefined {
    return this.pending.get(sourceId)?.get(incarnation)?.get(correlationId);
  }

  /** Forgets a pending request; true when it was still pending. */
  private removePending(sourceId: number, incarnation: number, correlationId: number): boolean {
    const removed = this.pending.get(sourceId)?.get(incarnation)?.delete(correlationId) === true;
    if (removed) this.pendingCount -= 1;
    return removed;
  }

  private isCurrent(nodeId: number, incarnation: number): boolean {
    return this.endpoints.get(nodeId)?.incarnation === incarnation;
  }

  /** @internal from SimulatedNetworkChannel */
  sendRequest(sourceId: number, sourceIncarnation: number, request: OutboundRequest): void {
    this.statistics.requestsSent += 1;
    const correlationId = request.correlationId;
    // Most timeouts are cancelled by the answer: their trace text is built only if one fires.
    const timeout = this.scheduler.schedule(
      this.requestTimeoutMs,
      () => `timeout ${sourceId}>${request.destinationId} api${request.apiKey} #${correlationId}`,
      () => {
        if (this.removePending(sourceId, sourceIncarnation, correlationId)) {
          this.statistics.timedOut += 1;
          this.deliverSyntheticResponse(sourceId, sourceIncarnation, request, REQUEST_TIMED_OUT);
        }
      },
    );
    this.pendingRequests(sourceId, sourceIncarnation).set(correlationId, {
      request,
      sourceId,
      sourceIncarnation,
      timeout,
    });
    this.pendingCount += 1;
    const data = this.codec
      ? this.codec.roundTripRequest(request.apiKey, request.apiVersion, request.data)
      : request.data;
    const message: RoutedMessage = {
      kind: 'request',
      sourceId,
      destinationId: request.destinationId,
      apiKey: request.apiKey,
    };
    const decision = route(message, this.partitions, this.conditions, this.random);
    if (decision.dropped) {
      this.statistics.dropped += 1;
      this.trace.record(
        this.scheduler.nowMs(),
        `drop request ${sourceId}>${request.destinationId} api${request.apiKey}`,
      );
      return;
    }
    if (decision.delaysMs.length > 1) this.statistics.duplicated += 1;
    for (const delayMs of decision.delaysMs) {
      this.scheduler.schedule(
        delayMs,
        `deliver request ${sourceId}>${request.destinationId} api${request.apiKey} #${request.correlationId}`,
        () => this.deliverRequest(sourceId, sourceIncarnation, request, data),
      );
    }
  }

  private deliverRequest(
    sourceId: number,
    sourceIncarnation: number,
    request: OutboundRequest,
    data: unknown,
  ): void {
    const destination = this.endpoints.get(request.destinationId);
    if (destination === undefined) {
      // Connection refused: the sender learns at once (if it is still the same process).
      const pending = this.findPending(sourceId, sourceIncarnation, request.correlationId);
      if (pending !== undefined) {
        pending.timeout.cancelled = true;
        this.removePending(sourceId, sourceIncarnation, request.correlationId);
        this.statistics.refused += 1;
        this.deliverSyntheticResponse(sourceId, sourceIncarnation, request, BROKER_NOT_AVAILABLE);
      }
      return;
    }
    const inbound: InboundRequest = {
      correlationId: request.correlationId,
      apiKey: request.apiKey,
      apiVersion: request.apiVersion,
      data,
      createdTimeMs: request.createdTimeMs,
      sourceId,
    };
    this.requesterIncarnations.set(inbound, sourceIncarnation);
    destination.receiveRequest(inbound);
  }

  /** Where answers to admin requests (source -1, e.g. DescribeQuorum) go, after encoding. */
  adminResponses: ((responderId: number, request: InboundRequest, data: unknown) => void) | undefined;

  /** @internal from SimulatedNetworkChannel */
  sendResponse(responderId: number, request: InboundRequest, data: unknown): void {
    this.statistics.responsesSent += 1;
    if (request.sourceId === ADMIN_CLIENT_ID) {
      const encoded = this.codec
        ? this.codec.roundTripResponse(request.apiKey, request.apiVersion, data)
        : data;
      this.adminResponses?.(responderId, request, encoded);
      return;
    }
    const requesterIncarnation = this.requesterIncarnations.get(request) ?? -1;
    const encoded = this.codec
      ? this.codec.roundTripResponse(request.apiKey, request.apiVersion, data)
      : data;
    const message: RoutedMessage = {
      kind: 'response',
      sourceId: responderId,
      destinationId: request.sourceId,
      apiKey: request.apiKey,
    };
    const decision = route(message, this.partitions, this.conditions, this.random);
    if (decision.dropped) {
      this.statistics.dropped += 1;
      this.trace.record(
        this.scheduler.nowMs(),
        `drop response ${responderId}>${request.sourceId} api${request.apiKey}`,
      );
      return;
    }
    for (const delayMs of decision.delaysMs) {
      this.scheduler.schedule(
        delayMs,
        `deliver response ${responderId}>${request.sourceId} api${request.apiKey} #${request.correlationId}`,
        () => {
          const pending = this.findPending(request.sourceId, requesterIncarnation, request.correlationId);
          // Already answered, timed out, or the requester restarted: a real transport drops it.
          if (pending === undefined || !this.isCurrent(request.sourceId, requesterIncarnation)) return;
          pending.timeout.cancelled = true;
          this.removePending(request.sourceId, requesterIncarnation, request.correlationId);
          this.endpoints.get(request.sourceId)?.receiveResponse({
            correlationId: request.correlationId,
            apiKey: request.apiKey,
            sourceId: responderId,
            data: encoded,
            receivedTimeMs: this.scheduler.nowMs(),
          });
        },
      );
    }
  }

  private deliverSyntheticResponse(
    sourceId: number,
    sourceIncarnation: number,
    request: OutboundRequest,
    errorCode: number,
  ): void {
    if (!this.isCurrent(sourceId, sourceIncarnation)) return;
    this.endpoints.get(sourceId)?.receiveResponse({
      correlationId: request.correlationId,
      apiKey: request.apiKey,
      sourceId: request.destinationId,
      data: { errorCode },
      receivedTimeMs: this.scheduler.nowMs(),
    });
  }
}

/** One node incarnation's NetworkChannel port over the router. */
export class SimulatedNetworkChannel implements NetworkChannel {
  private nextCorrelationId = 1;

  constructor(
    private readonly router: MessageRouter,
    private readonly nodeId: number,
    private readonly incarnation: number,
  ) {}

  newCorrelationId(): number {
    const id = this.nextCorrelationId;
    this.nextCorrelationId += 1;
    return id;
  }

  send(request: OutboundRequest): void {
    this.router.sendRequest(this.nodeId, this.incarnation, request);
  }

  sendResponse(request: InboundRequest, data: unknown): void {
    this.router.sendResponse(this.nodeId, request, data);
  }

  updateEndpoint(_nodeId: number, _endpoint: NodeAddress): void {
    // Every simulated node is reachable by id; endpoints carry no meaning here.
  }
}
