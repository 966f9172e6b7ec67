import { VoteRequest } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import type { NodeAddress, OutboundRequest } from '../ports/network-channel.js';
import { SeededRandom } from '../ports/random.js';
import { RequestManager } from '../request-manager.js';
import { RaftApiKey } from '../rpc/raft-api-key.js';
import { OutboundRequests } from './outbound-requests.js';

const REQUEST_TIMEOUT_MS = 2000;

function outboundRequests() {
  const sent: OutboundRequest[] = [];
  const endpoints: [number, NodeAddress][] = [];
  let correlationId = 0;
  const requests = new OutboundRequests(
    {
      newCorrelationId: () => {
        correlationId += 1;
        return correlationId;
      },
      updateEndpoint: (nodeId, address) => endpoints.push([nodeId, address]),
    },
    { sendRequest: (request) => sent.push(request) },
    new RequestManager({
      retryBackoffMs: 50,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      random: new SeededRandom(1),
    }),
  );
  return { requests, sent, endpoints };
}

function sendVote(requests: OutboundRequests, destinationId: number, epoch: number, preVote: boolean): void {
  requests.sendRequest(destinationId, RaftApiKey.VOTE, 2, VoteRequest.defaults(), epoch, preVote, 100);
}

describe('OutboundRequests', () => {
  it('sends through the outbox under a fresh correlation id and remembers the request until taken', () => {
    const { requests, sent } = outboundRequests();
    sendVote(requests, 2, 5, true);
    expect(sent).toMatchObject([
      { correlationId: 1, apiKey: RaftApiKey.VOTE, destinationId: 2, createdTimeMs: 100 },
    ]);
    expect(requests.isReady(2, 100)).toBe(false);
    expect(requests.isReady(3, 100)).toBe(true);
    expect(requests.take(2)).toEqual({ correlationId: 1, apiKey: RaftApiKey.VOTE, epoch: 5, preVote: true });
    expect(requests.take(2)).toBeUndefined();
  });

  it('forgets every request in flight and every wait when reset', () => {
    const { requests } = outboundRequests();
    sendVote(requests, 2, 5, false);
    sendVote(requests, 3, 5, false);
    requests.resetAll();
    expect([requests.isReady(2, 100), requests.isReady(3, 100)]).toEqual([true, true]);
    expect([requests.take(2), requests.take(3)]).toEqual([undefined, undefined]);
  });

  it('hands endpoint updates to the network channel', () => {
    const { requests, endpoints } = outboundRequests();
    requests.updateEndpoint(2, { host: '127.0.0.1', port: 9093 });
    expect(endpoints).toEqual([[2, { host: '127.0.0.1', port: 9093 }]]);
  });
});
