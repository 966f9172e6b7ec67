import { performance } from 'node:perf_hooks';
import type { InboundRequest } from '@kraft/protocol';
import { apiKeyFor, Errors, VoteRequest } from '@kraft/protocol';
import { TcpNetworkChannel } from '../src/tcp-network-channel.js';
import type { TransportConfig } from '../src/transport-config.js';

export const FUZZ_CLUSTER_ID = 'q1Sh-9_ISia_ZGc4iNTUBQ';

/** Answers like a raft node's driver would: INCONSISTENT_CLUSTER_ID for a foreign cluster, otherwise defaults. */
function answerFor(request: InboundRequest): unknown {
  const response = apiKeyFor(request.apiKey)!.response;
  const clusterId = (request.data as { clusterId?: unknown }).clusterId;
  if (typeof clusterId === 'string' && clusterId !== FUZZ_CLUSTER_ID) {
    return response.defaults({ errorCode: Errors.INCONSISTENT_CLUSTER_ID.code });
  }
  return response.defaults();
}

/** A channel on 127.0.0.1:0 with a driver loop that answers every request; `stop()` ends both. */
export async function startAnsweringNode(
  config: Partial<TransportConfig>,
): Promise<{ port: number; channel: TcpNetworkChannel; stop: () => Promise<void>; answered: () => number }> {
  const channel = new TcpNetworkChannel({
    nodeId: 1,
    listeners: [{ name: 'CONTROLLER', host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' }],
    config,
  });
  const [bound] = await channel.start();
  let running = true;
  let answered = 0;
  const driver = (async () => {
    while (running) {
      await channel.waitForMessages();
      for (const message of channel.drain()) {
        if (message.kind !== 'request') continue;
        channel.sendResponse(message.request, answerFor(message.request));
        answered += 1;
      }
    }
  })();
  return {
    port: bound!.port,
    channel,
    answered: () => answered,
    stop: async () => {
      running = false;
      await channel.close();
      await driver;
    },
  };
}

/** A well-behaved peer sending Vote requests one at a time and timing each round trip. */
export class WellBehavedClient {
  private readonly channel: TcpNetworkChannel;
  readonly failures: number[] = [];

  constructor(serverPort: number) {
    this.channel = new TcpNetworkChannel({ nodeId: 2, listeners: [] });
    this.channel.updateEndpoint(1, { host: '127.0.0.1', port: serverPort });
  }

  /** One round trip; resolves to its latency in microseconds. */
  async roundTrip(): Promise<number> {
    const started = performance.now();
    const correlationId = this.channel.newCorrelationId();
    this.channel.send({
      correlationId,
      destinationId: 1,
      apiKey: 52,
      apiVersion: 2,
      data: VoteRequest.defaults({ clusterId: FUZZ_CLUSTER_ID }),
      createdTimeMs: 0,
    });
    for (;;) {
      await this.channel.waitForMessages();
      for (const message of this.channel.drain()) {
        if (message.kind !== 'response' || message.response.correlationId !== correlationId) continue;
        const errorCode = (message.response.data as { errorCode: number }).errorCode;
        if (errorCode !== 0) this.failures.push(errorCode);
        return (performance.now() - started) * 1000;
      }
    }
  }

  /** Round trips until `until()` is true (at least `minimum`); latencies in microseconds. */
  async measure(minimum: number, until: () => boolean = () => true): Promise<number[]> {
    const latencies: number[] = [];
    while (latencies.length < minimum || !until()) latencies.push(await this.roundTrip());
    return latencies;
  }

  close(): Promise<void> {
    return this.channel.close();
  }
}

export function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
}
