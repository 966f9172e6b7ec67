import { FetchResponse, IllegalStateError, Uuid, VoteRequest, VoteResponse } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import type { InboundRequest, OutboundRequest } from './ports/network-channel.js';
import type { QuorumStateData } from './ports/quorum-state-store.js';
import type { RawSnapshotWriter } from './ports/raft-log.js';
import { type OutboundMessage, RaftOutbox } from './raft-outbox.js';
import { RaftApiKey } from './rpc/raft-api-key.js';
import type { RaftRequestOf, TypedInboundRequest } from './rpc/typed-messages.js';

function election(leaderEpoch: number, votedId = -1): QuorumStateData {
  return { leaderId: -1, leaderEpoch, votedId, votedDirectoryId: Uuid.ZERO, currentVoters: null };
}

function request(correlationId: number): OutboundRequest {
  return { correlationId, apiKey: 52, apiVersion: 2, data: {}, createdTimeMs: 0, destinationId: 2 };
}

function inbound(correlationId: number): RaftRequestOf<typeof RaftApiKey.VOTE> {
  const data = VoteRequest.defaults();
  return { correlationId, apiKey: RaftApiKey.VOTE, apiVersion: 2, data, createdTimeMs: 0, sourceId: 2 };
}

const VOTE_RESPONSE = VoteResponse.defaults();

/** The request as a handler sees it before narrowing by api key. */
function asAnyApi(request: TypedInboundRequest): TypedInboundRequest {
  return request;
}

function ids(messages: readonly OutboundMessage[]): number[] {
  return messages.map((message) => message.request.correlationId);
}

describe('RaftOutbox', () => {
  it('hands a downloaded snapshot to the driver once and keeps it pending until reported durable', () => {
    const outbox = new RaftOutbox();
    const writer = { snapshotId: { offset: 10, epoch: 2 } } as RawSnapshotWriter;
    outbox.installSnapshot(writer);
    expect([outbox.hasReady(), outbox.hasPendingSnapshotInstall()]).toEqual([true, true]);
    const ready = outbox.takeReady();
    expect(ready.snapshotInstall?.writer).toBe(writer);
    expect(outbox.takeReady().snapshotInstall).toBeUndefined();
    expect([outbox.hasReady(), outbox.hasPendingSnapshotInstall()]).toEqual([false, true]);
    expect(() => outbox.installSnapshot(writer)).toThrow(IllegalStateError);
    expect(() => outbox.onSnapshotInstallDurable((ready.snapshotInstall?.id ?? 0) + 1)).toThrow(
      IllegalStateError,
    );
    expect(outbox.onSnapshotInstallDurable(ready.snapshotInstall?.id ?? 0)).toEqual({ offset: 10, epoch: 2 });
    expect(outbox.hasPendingSnapshotInstall()).toBe(false);
  });

  it('releases messages recorded before any write at once, in order', () => {
    const outbox = new RaftOutbox();
    outbox.sendRequest(request(1));
    outbox.sendResponse(inbound(2), VOTE_RESPONSE);
    const ready = outbox.takeReady();
    expect(ready.electionState).toBeUndefined();
    expect(ids(ready.messages)).toEqual([1, 2]);
    expect(outbox.hasReady()).toBe(false);
  });

  it('holds messages recorded after a write until it is reported durable', () => {
    const outbox = new RaftOutbox();
    outbox.sendRequest(request(1));
    outbox.persistElectionState(election(3, 2), 0);
    outbox.sendResponse(inbound(2), VOTE_RESPONSE);
    const first = outbox.takeReady();
    expect(first.electionState?.data.leaderEpoch).toBe(3);
    expect(ids(first.messages)).toEqual([1]);
    outbox.sendRequest(request(3));
    expect(outbox.hasReady()).toBe(false);
    expect(outbox.takeReady().messages).toEqual([]);
    outbox.onElectionStatePersisted(first.electionState?.id ?? -1);
    expect(ids(outbox.takeReady().messages)).toEqual([2, 3]);
  });

  it('hands out one write at a time, the newest one waiting replacing older ones', () => {
    const outbox = new RaftOutbox();
    outbox.persistElectionState(election(3), 0);
    const inFlight = outbox.takeReady().electionState;
    outbox.sendRequest(request(1));
    outbox.persistElectionState(election(4), 0);
    outbox.sendRequest(request(2));
    outbox.persistElectionState(election(5), 0);
    outbox.sendRequest(request(3));
    expect(outbox.takeReady().electionState).toBeUndefined();
    outbox.onElectionStatePersisted(inFlight?.id ?? -1);
    // Epoch 3 durable frees message 1; 4 is superseded by 5, which messages 2 and 3 wait for.
    const next = outbox.takeReady();
    expect(next.electionState?.data.leaderEpoch).toBe(5);
    expect(ids(next.messages)).toEqual([1]);
    outbox.onElectionStatePersisted(next.electionState?.id ?? -1);
    expect(ids(outbox.takeReady().messages)).toEqual([2, 3]);
    expect(outbox.hasPendingElectionState()).toBe(false);
  });

  it('refuses an election that goes back an epoch and a report of a write not in flight', () => {
    const outbox = new RaftOutbox();
    outbox.persistElectionState(election(5), 0);
    expect(() => outbox.persistElectionState(election(4), 0)).toThrow(IllegalStateError);
    const write = outbox.takeReady().electionState;
    expect(() => outbox.onElectionStatePersisted((write?.id ?? 0) + 1)).toThrow(IllegalStateError);
  });

  it('records a response with its request, and answers an api without a handler as given', () => {
    const outbox = new RaftOutbox();
    outbox.sendResponse(inbound(1), VOTE_RESPONSE);
    const apiVersions: InboundRequest = { ...inbound(2), apiKey: 18 };
    outbox.sendUnhandledApiResponse(apiVersions, { errorCode: 35 });
    expect(outbox.takeReady().messages).toEqual([
      { kind: 'response', request: inbound(1), data: VOTE_RESPONSE },
      { kind: 'response', request: apiVersions, data: { errorCode: 35 } },
    ]);
  });

  it("accepts only the response data of the request's own api (checked by the compiler)", () => {
    const outbox = new RaftOutbox();
    // @ts-expect-error: a Vote request answered with Fetch response data.
    outbox.sendResponse(inbound(1), FetchResponse.defaults());
    const unknownApi = asAnyApi(inbound(2));
    // @ts-expect-error: a request of any api answered with Vote data, without narrowing its key.
    outbox.sendResponse(unknownApi, VOTE_RESPONSE);
    expect(outbox.takeReady().messages).toHaveLength(2);
  });
});
