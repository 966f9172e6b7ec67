import type { Random } from './ports/random.js';

type ConnectionStatus = 'ready' | 'awaitingResponse' | 'backingOff';

interface ConnectionState {
  status: ConnectionStatus;
  /** When the in-flight request times out, or when the backoff ends. */
  untilMs: number;
  inFlightCorrelationId: number | undefined;
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

  constructor(options: { retryBackoffMs: number; requestTimeoutMs: number; random: Random }) {
    this.retryBackoffMs = options.retryBackoffMs;
    this.requestTimeoutMs = options.requestTimeoutMs;
    this.random = options.random;
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
}
