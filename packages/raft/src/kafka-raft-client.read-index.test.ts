import { Errors, type FetchResponseData } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { MockLog } from '../test/kit/mock-log.js';
import { MockNetworkChannel } from '../test/kit/mock-network-channel.js';
import { MockQuorumStateStore } from '../test/kit/mock-quorum-state-store.js';
import { RaftClientTestContext } from '../test/kit/raft-client-test-context.js';
import { NotLeaderError } from './errors/not-leader-error.js';
import { PendingReadsFullError } from './errors/pending-reads-full-error.js';
import { RaftTimeoutError } from './errors/raft-timeout-error.js';
import { KafkaRaftClient, RaftApiKey } from './kafka-raft-client.js';
import { SeededRandom } from './ports/random.js';
import { singlePartition } from './rpc/raft-messages.js';
import { MAX_PENDING_READS } from './states/pending-reads.js';
import { VoterSet } from './voter-set.js';

const TIMEOUT_MS = 2000;

function readIndex(context: RaftClientTestContext, timeoutMs = TIMEOUT_MS): number {
  return context.client.readIndex(context.time.milliseconds(), timeoutMs);
}

/** A leader of voters 0, 1 and 2 whose high watermark covers its epoch start and one data batch. */
async function committedLeader() {
  const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
  const { epoch, highWatermark } = await context.becomeLeaderWithCommittedBatch();
  return { context, epoch, highWatermark };
}

describe('read index (linearizable read barrier)', () => {
  it('a lone voter confirms a read at once, at the high watermark', async () => {
    const context = await RaftClientTestContext.builder(0, [0]).build();
    await context.pollUntil(() => context.client.highWatermark() !== undefined);
    const id = readIndex(context);
    await context.poll();
    expect(context.completion(id)).toEqual({
      kind: 'read-index',
      id,
      readOffset: context.client.highWatermark(),
    });
  });

  it('a read before the epoch start commits waits for it, and takes the first high watermark', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    await context.poll();
    expect(context.client.highWatermark()).toBeUndefined();
    const id = readIndex(context);
    // Two fetches at the epoch start: the second proves the epoch, but nothing of it is committed.
    context.deliverVoterFetch(1, epoch, 0);
    await context.poll();
    context.deliverVoterFetch(1, epoch, 0);
    await context.poll();
    expect(context.completion(id)).toBeUndefined();
    context.deliverVoterFetch(1, epoch, 1);
    await context.poll();
    expect(context.client.highWatermark()).toBe(1);
    expect(context.completion(id)).toEqual({ kind: 'read-index', id, readOffset: 1 });
  });

  it('the read offset is the high watermark at registration', async () => {
    const { context, epoch, highWatermark } = await committedLeader();
    const id = readIndex(context);
    context.client.scheduleAppend(epoch, [Buffer.from('b')]);
    await context.poll();
    context.deliverVoterFetch(1, epoch, highWatermark);
    await context.poll();
    context.deliverVoterFetch(1, epoch, context.log.endOffset());
    await context.poll();
    expect(context.client.highWatermark()).toBeGreaterThan(highWatermark);
    expect(context.completion(id)).toEqual({ kind: 'read-index', id, readOffset: highWatermark });
  });

  it('a fetch that arrives after registration but may have been sent before it does not confirm', async () => {
    const { context, epoch, highWatermark } = await committedLeader();
    const id = readIndex(context);
    await context.poll();
    // Answered before the registration: this fetch could have left voter 1 before the read began.
    context.deliverVoterFetch(1, epoch, highWatermark);
    await context.poll();
    expect(context.completion(id)).toBeUndefined();
    // Sent after voter 1 received an answer given after the registration: it proves the epoch.
    context.deliverVoterFetch(1, epoch, highWatermark);
    await context.poll();
    expect(context.completion(id)).toEqual({ kind: 'read-index', id, readOffset: highWatermark });
  });

  it('a read confirmed only by stale-epoch fetches is not confirmed', async () => {
    const { context, epoch, highWatermark } = await committedLeader();
    const id = readIndex(context);
    // Answered after the registration: the next fetch of each voter would prove the epoch...
    context.deliverVoterFetch(1, epoch, highWatermark);
    context.deliverVoterFetch(2, epoch, highWatermark);
    await context.poll();
    context.channel.drainSentResponses();
    // ...but these carry an older epoch: they are fenced and prove nothing of this one.
    context.deliverVoterFetch(1, epoch - 1, highWatermark);
    context.deliverVoterFetch(2, epoch - 1, highWatermark);
    await context.poll();
    const answers = context.channel.drainSentResponses();
    expect(answers).toHaveLength(2);
    for (const answer of answers) {
      const partition = singlePartition((answer.data as FetchResponseData).responses);
      expect(partition?.errorCode).toBe(Errors.FENCED_LEADER_EPOCH.code);
    }
    expect(context.completion(id)).toBeUndefined();
    context.deliverVoterFetch(1, epoch, highWatermark);
    await context.poll();
    expect(context.completion(id)?.kind).toBe('read-index');
  });

  it('needs a majority: one voter of five besides the leader is not enough', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2, 3, 4]).build();
    const epoch = await context.becomeLeader();
    await context.advanceHighWatermarkAsLeader();
    const endOffset = context.log.endOffset();
    const id = readIndex(context);
    for (let round = 0; round < 2; round += 1) context.deliverVoterFetch(1, epoch, endOffset);
    await context.poll();
    expect(context.completion(id)).toBeUndefined();
    for (let round = 0; round < 2; round += 1) context.deliverVoterFetch(2, epoch, endOffset);
    await context.poll();
    expect(context.completion(id)?.kind).toBe('read-index');
  });

  it('answers the parked fetches at registration, without waiting for their max wait', async () => {
    const { context, epoch } = await committedLeader();
    const endOffset = context.log.endOffset();
    context.deliverVoterFetch(1, epoch, endOffset, 500);
    context.deliverVoterFetch(2, epoch, endOffset, 500);
    await context.poll();
    expect(context.channel.drainSentResponses()).toHaveLength(0);
    const id = readIndex(context);
    context.carryOutReady();
    expect(context.channel.drainSentResponses()).toHaveLength(2);
    context.deliverVoterFetch(1, epoch, endOffset, 500);
    await context.poll();
    expect(context.completion(id)?.kind).toBe('read-index');
  });

  it("fails a deposed leader's pending read with NotLeaderError", async () => {
    const { context, epoch } = await committedLeader();
    const id = readIndex(context);
    context.deliverRequest(RaftApiKey.BEGIN_QUORUM_EPOCH, context.beginEpochRequest(epoch + 1, 1), 1);
    await context.poll();
    const completion = context.completion(id);
    expect(completion?.kind).toBe('failed');
    expect(completion?.kind === 'failed' && completion.error).toBeInstanceOf(NotLeaderError);
  });

  it('fails a read that no quorum confirms within its timeout', async () => {
    const { context } = await committedLeader();
    const id = readIndex(context, 100);
    await context.poll();
    context.sleep(99);
    await context.poll();
    expect(context.completion(id)).toBeUndefined();
    context.sleep(1);
    const deadline = await context.poll();
    const completion = context.completion(id);
    expect(completion?.kind === 'failed' && completion.error).toBeInstanceOf(RaftTimeoutError);
    expect(deadline).toBeGreaterThan(context.time.milliseconds());
  });

  it('fails only the expired reads, keeps the others waiting, and polls by the next deadline', async () => {
    const { context, epoch, highWatermark } = await committedLeader();
    const late = readIndex(context, 300);
    const early = readIndex(context, 100);
    await context.poll();
    context.sleep(100);
    const deadline = await context.poll();
    const failed = context.completion(early);
    expect(failed?.kind === 'failed' && failed.error).toBeInstanceOf(RaftTimeoutError);
    expect(context.completion(late)).toBeUndefined();
    expect(deadline).toBeLessThanOrEqual(context.time.milliseconds() + 200);
    // The first fetch is answered after both registrations; the second proves the epoch.
    for (let round = 0; round < 2; round += 1) {
      context.deliverVoterFetch(1, epoch, highWatermark);
      await context.poll();
    }
    expect(context.completion(late)).toEqual({ kind: 'read-index', id: late, readOffset: highWatermark });
    expect(context.completions.filter((completion) => completion.id === early)).toHaveLength(1);
  });

  it('polls again by the deadline of a pending read', async () => {
    const { context } = await committedLeader();
    readIndex(context, 100);
    const deadline = context.client.poll(context.time.milliseconds());
    expect(deadline).toBeLessThanOrEqual(context.time.milliseconds() + 100);
  });

  it('a refused read uses up no operation id', async () => {
    const { context } = await committedLeader();
    let lastId = -1;
    for (let read = 0; read < MAX_PENDING_READS; read += 1) lastId = readIndex(context);
    expect(() => readIndex(context)).toThrow(PendingReadsFullError);
    expect(context.client.transferLeadership(0, context.time.milliseconds(), TIMEOUT_MS)).toBe(lastId + 1);
  });

  it('is refused, as are transfers and appends, by a leader that is shutting down', () => {
    // The one way to lead while shutting down that a caller can see: a lone voter told to shut
    // down before it started wins its election in `initialize` (later wins resign in that poll).
    const client = new KafkaRaftClient({
      nodeId: 0,
      voters: VoterSet.fromIds([0]),
      log: new MockLog(),
      network: new MockNetworkChannel(),
      quorumStateStore: new MockQuorumStateStore(),
      random: new SeededRandom(1),
    });
    client.shutdown(1000, 0);
    client.initialize(0);
    expect(client.quorumState().isLeader()).toBe(true);
    expect(() => client.readIndex(0, TIMEOUT_MS)).toThrow(NotLeaderError);
    expect(() => client.transferLeadership(0, 0, TIMEOUT_MS)).toThrow(NotLeaderError);
    const epoch = client.leaderAndEpoch().epoch;
    expect(() => client.scheduleAppend(epoch, [Buffer.from('a')])).toThrow(NotLeaderError);
  });

  it('is refused by a node that does not lead, and past the bound of pending reads', async () => {
    const follower = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(5, 1).build();
    expect(() => readIndex(follower)).toThrow(NotLeaderError);
    const { context } = await committedLeader();
    for (let read = 0; read < MAX_PENDING_READS; read += 1) readIndex(context);
    expect(() => readIndex(context)).toThrow(PendingReadsFullError);
  });
});
