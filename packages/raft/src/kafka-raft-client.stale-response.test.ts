// Responses tagged with an epoch older than the receiver's are stale: they describe a leader and a
// log as they were, and must change nothing (Kafka's maybeHandleCommonResponse, `epoch < current`).
// Each case carries data that would act if it were accepted: records, a diverging epoch, a higher
// high watermark, a snapshot chunk, an error that backs the connection off.
import { Errors } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import {
  RaftClientTestContext as Context,
  type RaftClientTestContext,
  recordsOf,
} from '../test/kit/raft-client-test-context.js';
import { RaftApiKey } from './kafka-raft-client.js';
import type { RequestManager } from './request-manager.js';

const FETCH = RaftApiKey.FETCH;

/** A follower of leader 1 in epoch 5 with `values` of epoch 3 in its log, and its first Fetch sent. */
async function followerOfOneInEpochFive(values: readonly string[] = []) {
  const builder = Context.builder(0, [0, 1, 2]).withElectedLeader(5, 1);
  if (values.length > 0) builder.appendToLog(3, values);
  const context = await builder.build();
  await context.poll();
  const fetch = context.assertSentFetchRequest({
    epoch: 5,
    fetchOffset: values.length,
    lastFetchedEpoch: values.length > 0 ? 3 : 0,
  });
  return { context, fetch };
}

function expectFollowerOfOneInEpochFive(context: RaftClientTestContext): void {
  expect(context.client.leaderAndEpoch()).toEqual({ leaderId: 1, epoch: 5 });
  expect(context.client.quorumState().isFollower()).toBe(true);
  context.assertElectedLeader(5, 1);
}

/** Leader 1 answers `fetch` as it would have in epoch 4, with `fields`; then the follower polls. */
async function answerInEpochFour(
  context: RaftClientTestContext,
  fetch: ReturnType<RaftClientTestContext['assertSentFetchRequest']>,
  fields: Omit<Parameters<RaftClientTestContext['fetchResponse']>[0], 'epoch' | 'leaderId'>,
): Promise<void> {
  context.deliverResponse(fetch, context.fetchResponse({ epoch: 4, leaderId: 1, ...fields }));
  await context.poll();
}

/** The client's request bookkeeping: whether a stale answer backed a connection off. */
function requestManagerOf(context: RaftClientTestContext): RequestManager {
  return (context.client as unknown as { requestManager: RequestManager }).requestManager;
}

describe('a follower of leader 1 in epoch 5 ignores a Fetch response from it tagged epoch 4', () => {
  it('with records', async () => {
    const { context, fetch } = await followerOfOneInEpochFive();
    await answerInEpochFour(context, fetch, { records: recordsOf(0, 4, ['a', 'b']), highWatermark: 2 });
    expect(context.log.endOffset()).toBe(0);
    expect(context.client.highWatermark()).toBeUndefined();
    expect(context.listener.committedValues()).toEqual([]);
    expectFollowerOfOneInEpochFive(context);
    // It fetches again from where it was.
    context.assertSentFetchRequest({ epoch: 5, fetchOffset: 0, lastFetchedEpoch: 0 });
  });

  it('with a diverging epoch', async () => {
    const { context, fetch } = await followerOfOneInEpochFive(['a', 'b', 'c']);
    await answerInEpochFour(context, fetch, { highWatermark: 0, divergingEpoch: { epoch: 3, offset: 1 } });
    expect(context.log.endOffset()).toBe(3);
    expectFollowerOfOneInEpochFive(context);
    context.assertSentFetchRequest({ epoch: 5, fetchOffset: 3, lastFetchedEpoch: 3 });
  });

  it('with a higher high watermark', async () => {
    const { context, fetch } = await followerOfOneInEpochFive(['a', 'b', 'c']);
    await answerInEpochFour(context, fetch, { highWatermark: 3 });
    expect(context.client.highWatermark()).toBeUndefined();
    expect(context.log.highWatermark()).toBe(0);
    expect(context.listener.committedValues()).toEqual([]);
    expectFollowerOfOneInEpochFive(context);
  });

  it('with a snapshot id', async () => {
    const { context, fetch } = await followerOfOneInEpochFive();
    await answerInEpochFour(context, fetch, { highWatermark: 10, snapshotId: { offset: 10, epoch: 4 } });
    expect(context.sentRequests(RaftApiKey.FETCH_SNAPSHOT)).toEqual([]);
    context.assertSentFetchRequest({ epoch: 5, fetchOffset: 0, lastFetchedEpoch: 0 });
  });
});

describe('a follower downloading a snapshot from leader 1 in epoch 5', () => {
  async function downloading() {
    const { context, fetch } = await followerOfOneInEpochFive();
    const snapshotId = { offset: 10, epoch: 5 };
    context.deliverResponse(
      fetch,
      context.fetchResponse({ epoch: 5, leaderId: 1, highWatermark: 10, snapshotId }),
    );
    await context.poll();
    const [request] = context.sentRequests(RaftApiKey.FETCH_SNAPSHOT);
    expect(request).toBeDefined();
    return { context, snapshotId, request: request! };
  }

  /** Leader 1 answers the FetchSnapshot as it would have in epoch 4; then the follower polls. */
  async function answerChunkInEpochFour(
    download: Awaited<ReturnType<typeof downloading>>,
    chunk: { size: number; bytes: Buffer; errorCode?: number },
  ): Promise<void> {
    const { context, snapshotId, request } = download;
    const response = { epoch: 4, leaderId: 1, snapshotId, position: 0, ...chunk };
    context.deliverResponse(request, context.fetchSnapshotResponse(response));
    await context.poll();
  }

  it('ignores a FetchSnapshot chunk tagged epoch 4', async () => {
    const download = await downloading();
    const { context } = download;
    await answerChunkInEpochFour(download, { size: 100, bytes: Buffer.alloc(40, 7) });
    // The download goes on from position 0: the stale chunk was not written.
    const [next] = context.sentRequests(RaftApiKey.FETCH_SNAPSHOT);
    expect(next).toBeDefined();
    const partition = (next!.data as { topics: { partitions: { position: bigint }[] }[] }).topics[0]!
      .partitions[0]!;
    expect(Number(partition.position)).toBe(0);
    expectFollowerOfOneInEpochFive(context);
  });

  it('ignores a SNAPSHOT_NOT_FOUND tagged epoch 4 and keeps downloading', async () => {
    const download = await downloading();
    const { context } = download;
    await answerChunkInEpochFour(download, {
      size: 0,
      bytes: Buffer.alloc(0),
      errorCode: Errors.SNAPSHOT_NOT_FOUND.code,
    });
    expect(context.sentRequests(FETCH)).toEqual([]);
    expect(context.sentRequests(RaftApiKey.FETCH_SNAPSHOT)).toHaveLength(1);
  });
});

describe('the leader of epoch 5', () => {
  it('ignores a BeginQuorumEpoch response tagged epoch 4, and does not back off', async () => {
    const context = await Context.builder(0, [0, 1, 2]).withUnknownLeader(4).build();
    const epoch = await context.becomeLeader();
    expect(epoch).toBe(5);
    // Voters that have not fetched get BeginQuorumEpoch again after half the fetch timeout.
    context.sleep(Context.FETCH_TIMEOUT_MS / 2);
    await context.poll();
    const [toOne] = context.assertSentBeginQuorumEpochRequests(epoch, [1, 2]);
    context.deliverResponse(toOne!, context.quorumEpochResponse(4, 2, Errors.FENCED_LEADER_EPOCH.code));
    await context.poll();
    expect(context.client.quorumState().isLeader()).toBe(true);
    expect(context.client.leaderAndEpoch()).toEqual({ leaderId: 0, epoch: 5 });
    context.assertElectedLeader(5, 0);
    // Handled as Kafka does: the answer is done with, the connection is not in backoff.
    expect(requestManagerOf(context).isBackingOff(1, context.time.milliseconds())).toBe(false);
  });
});
