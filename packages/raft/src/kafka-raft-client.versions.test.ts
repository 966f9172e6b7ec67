import { ApiKeys } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext } from '../test/kit/raft-client-test-context.js';
import { DEFAULT_RPC_VERSIONS, RaftApiKey } from './kafka-raft-client.js';

describe('RPC versions', () => {
  it('asks for the newest version of each RPC the protocol speaks by default (Fetch 18)', async () => {
    expect(DEFAULT_RPC_VERSIONS).toEqual({
      fetch: 18,
      vote: 2,
      beginQuorumEpoch: 1,
      endQuorumEpoch: 1,
      fetchSnapshot: 1,
    });
    expect(DEFAULT_RPC_VERSIONS.fetch).toBe(ApiKeys.FETCH.highestVersion);
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
    await context.poll();
    const [request] = context.sentRequests(RaftApiKey.FETCH);
    expect(request!.apiVersion).toBe(18);
  });

  it('reads the replica id of Fetch v14 from the old field and answers at v14', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withRpcVersions({ fetch: 14 }).build();
    const epoch = await context.becomeLeader();
    await context.poll();
    context.deliverRequest(
      RaftApiKey.FETCH,
      context.fetchRequest({ epoch, replicaId: 1, fetchOffset: 1, lastFetchedEpoch: epoch }),
      1,
      14,
    );
    await context.poll();
    const partition = context.assertSentFetchPartitionResponse({ epoch, leaderId: 0 });
    expect(Number(partition.highWatermark)).toBe(1);
  });

  it('a follower asking at Fetch v13 puts its id in the old replicaId field', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withElectedLeader(2, 1)
      .withRpcVersions({ fetch: 13 })
      .build();
    await context.poll();
    const [request] = context.sentRequests(RaftApiKey.FETCH);
    expect(request!.apiVersion).toBe(13);
    expect((request!.data as { replicaId: number }).replicaId).toBe(0);
  });

  it('answers Vote v0 and BeginQuorumEpoch v0 without the KIP-853 fields', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withRpcVersions({ vote: 0, beginQuorumEpoch: 0 })
      .build();
    const vote = {
      ...context.voteRequest({ epoch: 1, candidateId: 1, lastEpoch: 0, lastOffset: 0 }),
      voterId: -1,
    };
    context.deliverRequest(RaftApiKey.VOTE, vote, 1, 0);
    await context.poll();
    context.assertSentVoteResponse({ epoch: 1, voteGranted: true });
    context.deliverRequest(
      RaftApiKey.BEGIN_QUORUM_EPOCH,
      { ...context.beginEpochRequest(1, 1), voterId: -1 },
      1,
      0,
    );
    await context.poll();
    context.assertSentQuorumEpochResponse(RaftApiKey.BEGIN_QUORUM_EPOCH, { epoch: 1, leaderId: 1 });
  });

  it('sends a pre-vote only at Vote v2, the first version that carries it', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(1).build();
    context.sleep(RaftClientTestContext.ELECTION_TIMEOUT_MS);
    await context.poll();
    const requests = context.sentRequests(RaftApiKey.VOTE);
    expect(requests.map((request) => request.apiVersion)).toEqual([2, 2]);
  });
});
