// AddRaftVoter / RemoveRaftVoter / UpdateRaftVoter at kraft.version 1 (KIP-853, ADR 0047): the
// leader appends the new voter set and answers when it commits, one change at a time.
import {
  type AddRaftVoterResponseData,
  Errors,
  type UpdateRaftVoterResponseData,
  Uuid,
} from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext } from '../../test/kit/raft-client-test-context.js';
import { RaftApiKey } from '../rpc/raft-api-key.js';
import { VoterSet } from '../voter-set.js';
import {
  addVoterRequest,
  removeVoterRequest,
  updateVoterRequest,
  VOTER_DIRECTORY_ID,
} from './voter-change-requests.test-support.js';

const OTHER_DIRECTORY_ID = Uuid.fromString('Zq8WQDCpRkeQ7UpZ6WX4fQ');
const NEW_VOTER_DIRECTORY_ID = VOTER_DIRECTORY_ID;
const MOVED_VOTER_1 = {
  voterId: 1,
  listeners: [{ name: 'CONTROLLER', host: 'voter-1.example', port: 19093 }],
};

function removeVoter(voterId: number) {
  return removeVoterRequest({ voterId });
}

/** Node 0 leads voters {0, 1, 2} at kraft.version 1 with its epoch start committed. */
async function leader(voterIds: readonly number[] = [0, 1, 2], appendLingerMs = 0) {
  const context = await RaftClientTestContext.builder(0, voterIds)
    .withKRaftVersion(1)
    .withConfig({ appendLingerMs })
    .build();
  if (voterIds.length === 1) {
    await context.pollUntil(() => context.client.highWatermark() !== undefined);
  } else {
    await context.becomeLeader();
    await context.advanceHighWatermarkAsLeader();
  }
  return { context, epoch: context.client.leaderAndEpoch().epoch };
}

/** Replica `replicaId` (with `directoryId`) fetches from the leader at `fetchOffset`. */
async function fetchFrom(
  context: RaftClientTestContext,
  replicaId: number,
  fetchOffset: number,
  directoryId?: Uuid,
): Promise<void> {
  context.deliverRequest(
    RaftApiKey.FETCH,
    context.fetchRequest({
      epoch: context.client.leaderAndEpoch().epoch,
      replicaId,
      fetchOffset,
      lastFetchedEpoch: context.log.lastFetchedEpoch(),
      ...(directoryId === undefined ? {} : { replicaDirectoryId: directoryId }),
    }),
    replicaId,
  );
  await context.poll();
  context.sentResponses(RaftApiKey.FETCH);
}

/** Observer 3 (the new voter) fetches at the leader's log end: caught up. */
async function catchUpObserver(context: RaftClientTestContext, directoryId = NEW_VOTER_DIRECTORY_ID) {
  await fetchFrom(context, 3, context.log.endOffset(), directoryId);
}

/** Delivers a voter change request and polls; returns the answers sent for its api. */
async function deliver(
  context: RaftClientTestContext,
  apiKey: number,
  data: unknown,
  apiVersion = 0,
): Promise<{ errorCode: number; errorMessage?: string | null }[]> {
  context.deliverRequest(apiKey, data, 7, apiVersion);
  await context.poll();
  return answers(context, apiKey);
}

function answers(context: RaftClientTestContext, apiKey: number) {
  return context
    .sentResponses(apiKey)
    .map((sent) => sent.data as { errorCode: number; errorMessage?: string | null });
}

function codes(sent: readonly { errorCode: number }[]): number[] {
  return sent.map((answer) => answer.errorCode);
}

describe('AddRaftVoter at kraft.version 1', () => {
  it('appends the new set once the observer caught up, and answers NONE when the new set commits it', async () => {
    const { context } = await leader();
    await catchUpObserver(context);
    const votersOffset = context.log.endOffset();
    expect(await deliver(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest())).toEqual([]);
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1, 2, 3]);
    const added = context.client.lastVoterSet().voterNode(3);
    expect(added?.voterKey.directoryId?.equals(NEW_VOTER_DIRECTORY_ID)).toBe(true);
    expect(added?.listeners.address('CONTROLLER')).toEqual({ host: 'localhost', port: 9093 });
    const end = context.log.endOffset();
    expect(end).toBe(votersOffset + 1);
    // Of the four voters, the leader and voter 1 are not a majority: still pending.
    await fetchFrom(context, 1, end);
    expect(context.client.highWatermark()).toBeLessThanOrEqual(votersOffset);
    expect(answers(context, RaftApiKey.ADD_RAFT_VOTER)).toEqual([]);
    await fetchFrom(context, 3, end, NEW_VOTER_DIRECTORY_ID);
    expect(context.client.highWatermark()).toBe(end);
    expect(codes(answers(context, RaftApiKey.ADD_RAFT_VOTER))).toEqual([Errors.NONE.code]);
  });

  it('answers DUPLICATE_VOTER for an id that is already a voter', async () => {
    const { context } = await leader();
    const sent = await deliver(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest({ voterId: 2 }));
    expect(codes(sent)).toEqual([Errors.DUPLICATE_VOTER.code]);
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1, 2]);
  });

  it('refuses a new voter that lags behind the high watermark, and adds it once it caught up', async () => {
    const { context } = await leader();
    await fetchFrom(context, 3, 0, NEW_VOTER_DIRECTORY_ID);
    const lagging = await deliver(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest());
    expect(codes(lagging)).toEqual([Errors.REQUEST_TIMED_OUT.code]);
    expect(lagging[0]?.errorMessage).toContain('lagging behind');
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1, 2]);
    await catchUpObserver(context);
    expect(await deliver(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest())).toEqual([]);
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1, 2, 3]);
  });

  it('adds an observer one fetch behind a steady write load: it reached the end the leader had at its previous fetch', async () => {
    const { context, epoch } = await leader();
    await catchUpObserver(context);
    // Records arrive between the observer's fetches, and the voters fetch them first: the high
    // watermark passes the observer's next fetch offset, the end the leader had at its last one.
    const observedEnd = context.log.endOffset();
    context.client.scheduleAppend(epoch, [Buffer.from('steady load')]);
    await context.advanceHighWatermarkAsLeader();
    expect(context.client.highWatermark()).toBeGreaterThan(observedEnd);
    await fetchFrom(context, 3, observedEnd, NEW_VOTER_DIRECTORY_ID);
    expect(await deliver(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest())).toEqual([]);
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1, 2, 3]);
  });

  it('a lone voter that has led for long adds a second voter and keeps leading until the new set commits it', async () => {
    const { context, epoch } = await leader([0]);
    // Long past a check-quorum timeout, which a lone voter never runs.
    context.sleep(RaftClientTestContext.FETCH_TIMEOUT_MS * 10);
    await context.poll();
    await catchUpObserver(context);
    expect(await deliver(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest())).toEqual([]);
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 3]);
    await context.poll();
    expect(context.client.quorumState().isLeader()).toBe(true);
    await fetchFrom(context, 3, context.log.endOffset(), NEW_VOTER_DIRECTORY_ID);
    expect(codes(answers(context, RaftApiKey.ADD_RAFT_VOTER))).toEqual([Errors.NONE.code]);
    expect(context.client.leaderAndEpoch().epoch).toBe(epoch);
  });

  it('refuses a new voter that has not fetched within the fetch timeout, or never fetched', async () => {
    const { context } = await leader();
    expect(codes(await deliver(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest()))).toEqual([
      Errors.REQUEST_TIMED_OUT.code,
    ]);
    await catchUpObserver(context);
    context.sleep(RaftClientTestContext.FETCH_TIMEOUT_MS + 1);
    // Voters keep fetching (the leader keeps its quorum); the observer went quiet.
    await fetchFrom(context, 1, context.log.endOffset());
    await fetchFrom(context, 2, context.log.endOffset());
    expect(codes(await deliver(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest()))).toEqual([
      Errors.REQUEST_TIMED_OUT.code,
    ]);
  });

  it('refuses an observer whose directory id is not the one the request names', async () => {
    const { context } = await leader();
    await catchUpObserver(context, OTHER_DIRECTORY_ID);
    expect(codes(await deliver(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest()))).toEqual([
      Errors.REQUEST_TIMED_OUT.code,
    ]);
  });

  it('answers REQUEST_TIMED_OUT until the leader has a high watermark in its epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withKRaftVersion(1).build();
    await context.becomeLeader();
    const sent = await deliver(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest());
    expect(codes(sent)).toEqual([Errors.REQUEST_TIMED_OUT.code]);
    expect(sent[0]?.errorMessage).toContain('establish HWM');
  });

  it('answers REQUEST_TIMED_OUT while another change is pending, and while a VotersRecord is uncommitted', async () => {
    const { context } = await leader();
    await catchUpObserver(context);
    expect(await deliver(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest())).toEqual([]);
    const whilePending = await deliver(context, RaftApiKey.REMOVE_RAFT_VOTER, removeVoter(2));
    expect(codes(whilePending)).toEqual([Errors.REQUEST_TIMED_OUT.code]);
    expect(whilePending[0]?.errorMessage).toContain('previous voter change');

    const other = await leader();
    const appended = other.context.client.appendVotersRecord(
      VoterSet.fromIds([0, 1]),
      other.context.time.milliseconds(),
    );
    expect(appended.kind).toBe('appended');
    const whileUncommitted = await deliver(other.context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest());
    expect(codes(whileUncommitted)).toEqual([Errors.REQUEST_TIMED_OUT.code]);
    expect(whileUncommitted[0]?.errorMessage).toContain('commit the latest voter change');
  });

  it('answers REQUEST_TIMED_OUT when the change does not commit within the request timeout', async () => {
    const { context } = await leader();
    await catchUpObserver(context);
    expect(await deliver(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest({ timeoutMs: 1_000 }))).toEqual(
      [],
    );
    context.sleep(999);
    await context.poll();
    expect(answers(context, RaftApiKey.ADD_RAFT_VOTER)).toEqual([]);
    context.sleep(1);
    const deadline = await context.poll();
    expect(codes(answers(context, RaftApiKey.ADD_RAFT_VOTER))).toEqual([Errors.REQUEST_TIMED_OUT.code]);
    expect(deadline).toBeGreaterThan(context.time.milliseconds());
  });

  it('asks to be polled again by the pending change deadline', async () => {
    const { context } = await leader();
    await catchUpObserver(context);
    context.deliverRequest(RaftApiKey.ADD_RAFT_VOTER, addVoterRequest({ timeoutMs: 700 }), 7, 0);
    await context.poll();
    // The first poll appended the VotersRecord and asks for a flush; the next is idle.
    const deadline = await context.poll();
    expect(deadline).toBe(context.time.milliseconds() + 700);
  });

  it('answers at once after the append when the request (v1) does not ask to wait for the commit', async () => {
    const { context } = await leader();
    await catchUpObserver(context);
    const sent = await deliver(
      context,
      RaftApiKey.ADD_RAFT_VOTER,
      addVoterRequest({ ackWhenCommitted: false }),
      1,
    );
    expect(codes(sent)).toEqual([Errors.NONE.code]);
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1, 2, 3]);
  });

  it('appends the VotersRecord after the records waiting in the accumulator, without waiting out their linger', async () => {
    const { context, epoch } = await leader([0, 1, 2], 60_000);
    await catchUpObserver(context);
    const dataOffset = context.client.scheduleAppend(epoch, [Buffer.from('before')]);
    expect(await deliver(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest())).toEqual([]);
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1, 2, 3]);
    expect(context.client.voterSetAtOffset(dataOffset).voterIds()).toEqual([0, 1, 2]);
    expect(context.client.voterSetAtOffset(dataOffset + 1).voterIds()).toEqual([0, 1, 2, 3]);
  });

  it('waits for a prepared append to be scheduled before appending the VotersRecord', async () => {
    const { context, epoch } = await leader();
    await catchUpObserver(context);
    const preparedOffset = context.client.prepareAppend(epoch, [Buffer.from('prepared')]);
    expect(await deliver(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest())).toEqual([]);
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1, 2]);
    context.client.schedulePreparedAppend();
    await context.poll();
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1, 2, 3]);
    expect(context.client.voterSetAtOffset(preparedOffset).voterIds()).toEqual([0, 1, 2]);
  });

  it('answers NOT_LEADER_OR_FOLLOWER when leadership ends before the change commits', async () => {
    const { context, epoch } = await leader();
    await catchUpObserver(context);
    expect(await deliver(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest())).toEqual([]);
    context.deliverRequest(RaftApiKey.BEGIN_QUORUM_EPOCH, context.beginEpochRequest(epoch + 1, 1), 1);
    await context.poll();
    expect(context.client.quorumState().isFollower()).toBe(true);
    expect(codes(answers(context, RaftApiKey.ADD_RAFT_VOTER))).toEqual([Errors.NOT_LEADER_OR_FOLLOWER.code]);
  });

  it('answers NOT_LEADER_OR_FOLLOWER when the leader shuts down with a change pending', async () => {
    const { context } = await leader();
    await catchUpObserver(context);
    expect(await deliver(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest())).toEqual([]);
    context.client.shutdown(5_000, context.time.milliseconds());
    await context.poll();
    expect(codes(answers(context, RaftApiKey.ADD_RAFT_VOTER))).toEqual([Errors.NOT_LEADER_OR_FOLLOWER.code]);
  });
});

describe('RemoveRaftVoter at kraft.version 1', () => {
  it('answers VOTER_NOT_FOUND when no voter matches the key', async () => {
    const { context } = await leader();
    expect(codes(await deliver(context, RaftApiKey.REMOVE_RAFT_VOTER, removeVoter(5)))).toEqual([
      Errors.VOTER_NOT_FOUND.code,
    ]);
  });

  it('appends the set without the voter and answers NONE when it commits', async () => {
    const { context } = await leader();
    const votersOffset = context.log.endOffset();
    expect(await deliver(context, RaftApiKey.REMOVE_RAFT_VOTER, removeVoter(2))).toEqual([]);
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1]);
    await fetchFrom(context, 1, votersOffset + 1);
    expect(context.client.highWatermark()).toBe(votersOffset + 1);
    expect(codes(answers(context, RaftApiKey.REMOVE_RAFT_VOTER))).toEqual([Errors.NONE.code]);
  });

  it('refuses to remove the only voter', async () => {
    const { context } = await leader([0]);
    expect(codes(await deliver(context, RaftApiKey.REMOVE_RAFT_VOTER, removeVoter(0)))).toEqual([
      Errors.INVALID_REQUEST.code,
    ]);
    expect(context.client.quorumState().isLeader()).toBe(true);
  });

  it('a leader that removed itself keeps leading until the removal commits, then resigns', async () => {
    const { context, epoch } = await leader();
    const votersOffset = context.log.endOffset();
    expect(await deliver(context, RaftApiKey.REMOVE_RAFT_VOTER, removeVoter(0))).toEqual([]);
    expect(context.client.lastVoterSet().voterIds()).toEqual([1, 2]);
    // The remaining two voters commit it; one of them alone is not a majority of them.
    await fetchFrom(context, 1, votersOffset + 1);
    expect(context.client.quorumState().isLeader()).toBe(true);
    expect(answers(context, RaftApiKey.REMOVE_RAFT_VOTER)).toEqual([]);
    await fetchFrom(context, 2, votersOffset + 1);
    expect(codes(answers(context, RaftApiKey.REMOVE_RAFT_VOTER))).toEqual([Errors.NONE.code]);
    expect(context.client.quorumState().isResigned()).toBe(true);
    await context.poll();
    const ended = context.sentRequests(RaftApiKey.END_QUORUM_EPOCH).map((request) => request.destinationId);
    expect(ended.sort()).toEqual([1, 2]);
    expect(context.client.leaderAndEpoch().epoch).toBe(epoch);
  });
});

describe('UpdateRaftVoter at kraft.version 1', () => {
  it("writes the voter's new endpoints and kraft.version range, and answers NONE once appended", async () => {
    const { context, epoch } = await leader();
    const sent = await deliver(
      context,
      RaftApiKey.UPDATE_RAFT_VOTER,
      updateVoterRequest(epoch, MOVED_VOTER_1),
    );
    expect(codes(sent)).toEqual([Errors.NONE.code]);
    const updated = context.client.lastVoterSet().voterNode(1);
    expect(updated?.listeners.address('CONTROLLER')).toEqual({ host: 'voter-1.example', port: 19093 });
    expect(updated?.supportedKRaftVersion).toEqual({ minVersion: 0, maxVersion: 1 });
    expect((sent[0] as unknown as UpdateRaftVoterResponseData).currentLeader.leaderId).toBe(0);
  });

  it('answers NONE without writing when the voter already reads as asked', async () => {
    const { context, epoch } = await leader();
    await deliver(context, RaftApiKey.UPDATE_RAFT_VOTER, updateVoterRequest(epoch, MOVED_VOTER_1));
    await fetchFrom(context, 1, context.log.endOffset());
    const end = context.log.endOffset();
    const again = await deliver(
      context,
      RaftApiKey.UPDATE_RAFT_VOTER,
      updateVoterRequest(epoch, MOVED_VOTER_1),
    );
    expect(codes(again)).toEqual([Errors.NONE.code]);
    expect(context.log.endOffset()).toBe(end);
  });

  it('answers VOTER_NOT_FOUND for a voter id that is not a voter', async () => {
    const { context, epoch } = await leader();
    const sent = await deliver(
      context,
      RaftApiKey.UPDATE_RAFT_VOTER,
      updateVoterRequest(epoch, { ...MOVED_VOTER_1, voterId: 5 }),
    );
    expect(codes(sent)).toEqual([Errors.VOTER_NOT_FOUND.code]);
  });

  it('answers INVALID_REQUEST for a kraft.version range without the finalized version', async () => {
    const { context, epoch } = await leader();
    const sent = await deliver(
      context,
      RaftApiKey.UPDATE_RAFT_VOTER,
      updateVoterRequest(epoch, {
        ...MOVED_VOTER_1,
        kRaftVersionFeature: { minSupportedVersion: 0, maxSupportedVersion: 0 },
      }),
    );
    expect(codes(sent)).toEqual([Errors.INVALID_REQUEST.code]);
    expect(context.client.lastVoterSet().voterNode(1)?.listeners.address('CONTROLLER')).toBeUndefined();
  });

  it('answers REQUEST_TIMED_OUT while the last VotersRecord is uncommitted', async () => {
    const { context, epoch } = await leader();
    await deliver(context, RaftApiKey.UPDATE_RAFT_VOTER, updateVoterRequest(epoch, MOVED_VOTER_1));
    const sent = await deliver(context, RaftApiKey.UPDATE_RAFT_VOTER, updateVoterRequest(epoch));
    expect(codes(sent)).toEqual([Errors.REQUEST_TIMED_OUT.code]);
  });
});

describe('the voter change RPCs stay as ADR 0013 at kraft.version 0', () => {
  it('a caught-up observer is still not added: UNSUPPORTED_VERSION', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    await context.becomeLeader();
    await context.advanceHighWatermarkAsLeader();
    await catchUpObserver(context);
    const sent = (await deliver(
      context,
      RaftApiKey.ADD_RAFT_VOTER,
      addVoterRequest(),
    )) as AddRaftVoterResponseData[];
    expect(codes(sent)).toEqual([Errors.UNSUPPORTED_VERSION.code]);
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1, 2]);
  });
});
