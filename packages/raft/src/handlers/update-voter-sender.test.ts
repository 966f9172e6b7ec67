// A kraft.version 1 follower sends UpdateRaftVoter when the committed voter set misstates it
// (Kafka's maybeSendUpdateVoterRequest, ADR 0047): once per epoch and recorded voter, in place of
// one Fetch, and never at kraft.version 0.
import { ApiKeys, Errors, type UpdateRaftVoterRequestData, Uuid } from '@kraft/protocol';
import { buildVotersBatch } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext } from '../../test/kit/raft-client-test-context.js';
import { Endpoints } from '../endpoints.js';
import type { RaftLog } from '../ports/raft-log.js';
import { ReplicaKey } from '../replica-key.js';
import { RaftApiKey } from '../rpc/raft-api-key.js';
import { VoterSet } from '../voter-set.js';

const LOCAL_DIRECTORY_ID = Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A');
const LOCAL_ENDPOINTS = Endpoints.fromEntries([['CONTROLLER', { host: 'node-1.example', port: 9094 }]]);

/** Node 1 follows leader 0 in epoch 1 among voters {0, 1, 2}, with its own listener. */
function follower(kraftVersion: 0 | 1, setup?: (log: RaftLog) => void, directoryId = LOCAL_DIRECTORY_ID) {
  const builder = RaftClientTestContext.builder(1, [0, 1, 2])
    .withKRaftVersion(kraftVersion)
    .withDirectoryId(directoryId)
    .withLocalEndpoints(LOCAL_ENDPOINTS)
    .withElectedLeader(1, 0);
  if (setup !== undefined) builder.withLogSetup(setup);
  return builder.build();
}

/** Log setup: a VotersRecord of {0, 1, 2} recording node 1 as it is, with `range`. */
function votersInLog(range: { minVersion: number; maxVersion: number }) {
  const others = { listeners: Endpoints.EMPTY, supportedKRaftVersion: { minVersion: 0, maxVersion: 1 } };
  const recorded = VoterSet.fromNodes([
    { voterKey: ReplicaKey.of(0), ...others },
    {
      voterKey: ReplicaKey.of(1, LOCAL_DIRECTORY_ID),
      listeners: LOCAL_ENDPOINTS,
      supportedKRaftVersion: range,
    },
    { voterKey: ReplicaKey.of(2), ...others },
  ]);
  return (log: RaftLog) => {
    log.initializeLeaderEpoch(1);
    log.appendAsLeader(
      buildVotersBatch({ baseOffset: 0, partitionLeaderEpoch: 1, timestamp: 0 }, recorded.toVotersRecord()),
      1,
    );
  };
}

/** The follower fetches; the leader answers with `highWatermark` (epoch 1). */
async function fetchRound(context: RaftClientTestContext, epoch = 1): Promise<void> {
  await context.poll();
  for (const request of context.sentRequests(RaftApiKey.FETCH)) {
    context.deliverResponse(
      request,
      context.fetchResponse({ epoch, leaderId: 0, highWatermark: context.log.endOffset() }),
    );
  }
}

/** Polls once; the UpdateRaftVoter requests and Fetches sent. */
async function pollSent(context: RaftClientTestContext) {
  await context.poll();
  return {
    updates: context.sentRequests(RaftApiKey.UPDATE_RAFT_VOTER),
    fetches: context.sentRequests(RaftApiKey.FETCH),
  };
}

function answer(errorCode: number) {
  return ApiKeys.UPDATE_RAFT_VOTER.response.defaults({
    errorCode,
    currentLeader: { leaderId: 0, leaderEpoch: 1, host: '', port: 0 },
  });
}

describe('a kraft.version 1 follower tells its leader where it is (UpdateRaftVoter)', () => {
  it('sends its endpoints and kraft.version range once, in place of one Fetch, then fetches on', async () => {
    const context = await follower(1);
    await fetchRound(context);
    const first = await pollSent(context);
    expect(first.fetches).toEqual([]);
    expect(first.updates.map((request) => request.destinationId)).toEqual([0]);
    const data = first.updates[0]?.data as UpdateRaftVoterRequestData;
    expect(data.currentLeaderEpoch).toBe(1);
    expect(data.voterId).toBe(1);
    expect(data.voterDirectoryId.equals(LOCAL_DIRECTORY_ID)).toBe(true);
    expect(data.listeners).toEqual([{ name: 'CONTROLLER', host: 'node-1.example', port: 9094 }]);
    expect(data.kRaftVersionFeature).toEqual({ minSupportedVersion: 0, maxSupportedVersion: 1 });
    context.deliverResponse(first.updates[0]!, answer(Errors.NONE.code));
    const next = await pollSent(context);
    expect(next.updates).toEqual([]);
    expect(next.fetches.map((request) => request.destinationId)).toEqual([0]);
  });

  it('does not ask again in the same epoch after a refusal, and asks again in the next epoch', async () => {
    const context = await follower(1);
    await fetchRound(context);
    const first = await pollSent(context);
    expect(first.updates).toHaveLength(1);
    context.deliverResponse(first.updates[0]!, answer(Errors.REQUEST_TIMED_OUT.code));
    // The refusal puts the leader in no backoff: the fetches go on at once, and no update.
    for (let round = 0; round < 3; round += 1) {
      const sent = await pollSent(context);
      expect(sent.updates).toEqual([]);
      expect(sent.fetches).toHaveLength(1);
      for (const request of sent.fetches) {
        context.deliverResponse(request, context.fetchResponse({ epoch: 1, leaderId: 0, highWatermark: 0 }));
      }
    }
    context.deliverRequest(RaftApiKey.BEGIN_QUORUM_EPOCH, context.beginEpochRequest(2, 0), 0);
    // The new epoch's follower knows the high watermark from its first fetch answer at most.
    const updates = [];
    for (let round = 0; round < 2 && updates.length === 0; round += 1) {
      const sent = await pollSent(context);
      updates.push(...sent.updates);
      for (const request of sent.fetches) {
        context.deliverResponse(request, context.fetchResponse({ epoch: 2, leaderId: 0, highWatermark: 0 }));
      }
    }
    expect(updates.map((request) => (request.data as UpdateRaftVoterRequestData).currentLeaderEpoch)).toEqual(
      [2],
    );
  });

  it('sends nothing when the committed voter set already records it as it is', async () => {
    const context = await follower(1, votersInLog({ minVersion: 0, maxVersion: 1 }));
    await fetchRound(context);
    for (let round = 0; round < 3; round += 1) {
      const sent = await pollSent(context);
      expect(sent.updates).toEqual([]);
      for (const request of sent.fetches) {
        context.deliverResponse(request, context.fetchResponse({ epoch: 1, leaderId: 0, highWatermark: 1 }));
      }
    }
  });

  it.each([
    { minVersion: 0, maxVersion: 0 },
    { minVersion: 1, maxVersion: 1 },
  ])('sends its kraft.version range when only that differs from the committed one (%o)', async (range) => {
    const context = await follower(1, votersInLog(range));
    await fetchRound(context);
    const sent = await pollSent(context);
    expect(sent.updates).toHaveLength(1);
  });

  it('waits for a high watermark: it cannot tell the committed set before', async () => {
    const context = await follower(1);
    const sent = await pollSent(context);
    expect(sent.updates).toEqual([]);
    expect(sent.fetches).toHaveLength(1);
  });

  it('sends nothing without a directory id, which the leader would refuse', async () => {
    const context = await follower(1, undefined, Uuid.ZERO);
    await fetchRound(context);
    const sent = await pollSent(context);
    expect(sent.updates).toEqual([]);
    expect(sent.fetches).toHaveLength(1);
  });

  it('never sends it at kraft.version 0', async () => {
    const context = await follower(0);
    await fetchRound(context);
    const sent = await pollSent(context);
    expect(sent.updates).toEqual([]);
    expect(sent.fetches).toHaveLength(1);
  });
});
