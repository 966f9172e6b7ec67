import type { Random } from './ports/random.js';

type ConnectionStatus = 'ready' | 'awaitingResponse' | 'backingOff';

interface ConnectionState {
  status: ConnectionStatus;
  /** When the in-flight request times out, or when the backoff ends. */
  untilMs: number;
  inFlightCorrelationId: number | undefined;
}

/**
 * The id the `index`-th `controller.quorum.bootstrap.servers` entry is addressed by: -2, -3, ...
 * (Kafka's KafkaRaftClient). Real node ids are never negative and -1 means "no id", so a bootstrap
 * server's connection state never mixes with a node's, even when it is that node.
 */
export function bootstrapServerId(index: number): number {
  return -2 - index;
}

/**
 * Per-destination request state (Kafka's `RequestManager`): at most one in-flight request per
 * destination. Ready → awaiting a response (until `requestTimeoutMs`) → ready again on success
 * or timeout, or backing off for `retryBackoffMs` after an error.
 */
export class RequestManager {
  private readonly connections = new Map<number, ConnectionState>();
  private readonly retryBackoffMs: number;
  private readonly requestTimeoutMs: number;
  private readonly random: Random;
  /** The ids of `controller.quorum.bootstrap.servers` (`bootstrapServerId`), in config order. */
  private readonly bootstrapServerIds: readonly number[];

  constructor(options: {
    retryBackoffMs: number;
    requestTimeoutMs: number;
    random: Random;
    bootstrapServerIds?: readonly number[];
  }) {
    this.retryBackoffMs = options.retryBackoffMs;
    this.requestTimeoutMs = options.requestTimeoutMs;
    this.random = options.random;
    this.bootstrapServerIds = options.bootstrapServerIds ?? [];
  }

  /** Whether discovery goes to bootstrap servers (configured) rather than to the known voters. */
  hasBootstrapServers(): boolean {
    return this.bootstrapServerIds.length > 0;
  }

  private stateOf(nodeId: number): ConnectionState {
    let state = this.connections.get(nodeId);
    if (state === undefined) {
      state = { status: 'ready', untilMs: 0, inFlightCorrelationId: undefined };
      this.connections.set(nodeId, state);
    }
    return state;
  }

  /** Ready to send: nothing in flight (or it timed out) and not backing off. */
  isReady(nodeId: number, nowMs: number): boolean {
    const state = this.connections.get(nodeId);
    if (state === undefined || state.status === 'ready') return true;
    if (nowMs >= state.untilMs) {
      state.status = 'ready';
      state.inFlightCorrelationId = undefined;
      return true;
    }
    return false;
  }

  isBackingOff(nodeId: number, nowMs: number): boolean {
    const state = this.connections.get(nodeId);
    return state !== undefined && state.status === 'backingOff' && nowMs < state.untilMs;
  }

  hasRequestTimedOut(nodeId: number, nowMs: number): boolean {
    const state = this.connections.get(nodeId);
    return state !== undefined && state.status === 'awaitingResponse' && nowMs >= state.untilMs;
  }

  hasInFlightRequest(nodeId: number, nowMs: number): boolean {
    const state = this.connections.get(nodeId);
    return state !== undefined && state.status === 'awaitingResponse' && nowMs < state.untilMs;
  }

  /** Time until this destination is ready again (0 when ready). */
  remainingMs(nodeId: number, nowMs: number): number {
    if (this.isReady(nodeId, nowMs)) return 0;
    return Math.max(0, this.stateOf(nodeId).untilMs - nowMs);
  }

  onRequestSent(nodeId: number, correlationId: number, nowMs: number): void {
    const state = this.stateOf(nodeId);
    state.status = 'awaitingResponse';
    state.untilMs = nowMs + this.requestTimeoutMs;
    state.inFlightCorrelationId = correlationId;
  }

  /** True when `correlationId` is the request we are waiting on (older answers are stale). */
  isResponseExpected(nodeId: number, correlationId: number): boolean {
    const state = this.connections.get(nodeId);
    return (
      state !== undefined &&
      state.status === 'awaitingResponse' &&
      state.inFlightCorrelationId === correlationId
    );
  }

  onResponseResult(nodeId: number, correlationId: number, success: boolean, nowMs: number): void {
    if (!this.isResponseExpected(nodeId, correlationId)) return;
    const state = this.stateOf(nodeId);
    state.inFlightCorrelationId = undefined;
    if (success) {
      state.status = 'ready';
      state.untilMs = 0;
    } else {
      state.status = 'backingOff';
      state.untilMs = nowMs + this.retryBackoffMs;
    }
  }

  reset(nodeId: number): void {
    this.connections.delete(nodeId);
  }

  resetAll(): void {
    this.connections.clear();
  }

  /** A uniformly chosen ready node among `candidates`, or undefined if none is ready. */
  findReadyNode(candidates: readonly number[], nowMs: number): number | undefined {
    const ready = candidates.filter((id) => this.isReady(id, nowMs));
    if (ready.length === 0) return undefined;
    return ready[this.random.nextInt(ready.length)];
  }

  /**
   * True when a request to any destination is in flight and not timed out. An observer's only
   * requests are fetches, and one fetch at a time keeps two answers from appending the same
   * offsets (Kafka's `hasAnyInflightRequest`).
   */
  hasAnyInFlightRequest(nowMs: number): boolean {
    for (const nodeId of this.connections.keys()) {
      if (this.hasInFlightRequest(nodeId, nowMs)) return true;
    }
    return false;
  }

  /**
   * A ready bootstrap server for a discovery fetch, or undefined while any request is in flight
   * or every bootstrap server backs off. The search starts at a random entry, so a bootstrap
   * server that is down does not take every first attempt (Kafka's `findReadyBootstrapServer`).
   */
  findReadyBootstrapServer(nowMs: number): number | undefined {
    const ids = this.bootstrapServerIds;
    if (ids.length === 0 || this.hasAnyInFlightRequest(nowMs)) return undefined;
    const start = this.random.nextInt(ids.length);
    for (let step = 0; step < ids.length; step += 1) {
      const id = ids[(start + step) % ids.length] as number;
      if (this.isReady(id, nowMs)) return id;
    }
    return undefined;
  }

  /**
   * How long until `findReadyBootstrapServer` can answer: the in-flight request's remaining
   * time, 0 when a bootstrap server is ready, else the shortest backoff left (at most
   * `retryBackoffMs`; Kafka's `backoffBeforeAvailableBootstrapServer`).
   */
  backoffBeforeAvailableBootstrapServerMs(nowMs: number): number {
    let soonestMs = this.retryBackoffMs;
    for (const [nodeId, state] of this.connections) {
      if (this.hasInFlightRequest(nodeId, nowMs)) return state.untilMs - nowMs;
      if (this.isBackingOff(nodeId, nowMs)) soonestMs = Math.min(soonestMs, state.untilMs - nowMs);
    }
    if (this.bootstrapServerIds.some((id) => this.isReady(id, nowMs))) return 0;
    return soonestMs;
  }
}
