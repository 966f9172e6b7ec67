import type { EndQuorumEpochRequestData } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext } from '../test/kit/raft-client-test-context.js';
import { LeadershipTransferError } from './errors/leadership-transfer-error.js';
import { NotLeaderError } from './errors/not-leader-error.js';
import { RaftTimeoutError } from './errors/raft-timeout-error.js';
import { RaftApiKey } from './kafka-raft-client.js';
import { singlePartition } from './rpc/raft-messages.js';

const TIMEOUT_MS = 5000;

function failureOf(context: RaftClientTestContext, id: number): unknown {
  const completion = context.completion(id);
  return completion?.kind === 'failed' ? completion.error : undefined;
}

function transfer(context: RaftClientTestContext, targetId: number, timeoutMs = TIMEOUT_MS): number {
  return context.client.transferLeadership(targetId, context.time.milliseconds(), timeoutMs);
}

/** The preferred successors of the EndQuorumEpoch requests sent (all name the same list). */
function sentPreferredSuccessors(context: RaftClientTestContext): number[][] {
  return context.sentRequests(RaftApiKey.END_QUORUM_EPOCH).map((request) => {
    const partition = singlePartition((request.data as EndQuorumEpochRequestData).topics);
    return partition?.preferredCandidates.map((candidate) => candidate.candidateId) ?? [];
  });
}

/**
 * A leader of voters 0, 1 and 2 with a committed data batch: voter 1 holds the whole log,
 * voter 2 lags one batch behind.
 */
async function leaderWithLaggingVoter() {
  const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
  const { epoch, laggingOffset } = await context.becomeLeaderWithCommittedBatch();
  return { context, epoch, laggingOffset };
}

describe('leadership transfer', () => {
  it('waits for a lagging target to catch up, refusing appends, then resigns naming it first', async () => {
    const { context, epoch, laggingOffset } = await leaderWithLaggingVoter();
    const id = transfer(context, 2);
    await context.poll();
    expect(() => context.client.scheduleAppend(epoch, [Buffer.from('b')])).toThrow(NotLeaderError);
    context.deliverVoterFetch(2, epoch, laggingOffset);
    await context.poll();
    expect(context.client.quorumState().isLeader()).toBe(true);
    expect(context.sentRequests(RaftApiKey.END_QUORUM_EPOCH)).toHaveLength(0);
    context.deliverVoterFetch(2, epoch, context.log.endOffset());
    await context.poll();
    expect(context.client.quorumState().isResigned()).toBe(true);
    // Voter 1 is as far along as the target, and would come first by id without the transfer.
    expect(sentPreferredSuccessors(context)).toEqual([
      [2, 1],
      [2, 1],
    ]);
    expect(context.completion(id)).toBeUndefined();
  });

  it('resigns only once the batches still lingering in the accumulator reached the target', async () => {
    const lingerMs = 50;
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withConfig({ appendLingerMs: lingerMs })
      .build();
    const epoch = await context.becomeLeader();
    await context.advanceHighWatermarkAsLeader();
    context.client.scheduleAppend(epoch, [Buffer.from('a')]);
    const id = transfer(context, 1);
    await context.poll();
    // The target holds the whole log, but 'a' still waits in the accumulator: resigning now
    // would drop a batch whose offset the caller already has.
    const endOffset = context.log.endOffset();
    context.deliverVoterFetch(1, epoch, endOffset);
    await context.poll();
    expect(context.client.quorumState().isLeader()).toBe(true);
    expect(context.sentRequests(RaftApiKey.END_QUORUM_EPOCH)).toHaveLength(0);
    context.sleep(lingerMs);
    await context.poll();
    expect(context.log.endOffset()).toBeGreaterThan(endOffset);
    context.deliverVoterFetch(1, epoch, context.log.endOffset());
    await context.poll();
    expect(context.client.quorumState().isResigned()).toBe(true);
    expect(context.completion(id)).toBeUndefined();
  });

  it('completes once the target leads the next epoch', async () => {
    const { context, epoch } = await leaderWithLaggingVoter();
    const id = transfer(context, 1);
    await context.poll();
    expect(context.client.quorumState().isResigned()).toBe(true);
    context.deliverRequest(RaftApiKey.BEGIN_QUORUM_EPOCH, context.beginEpochRequest(epoch + 1, 1), 1);
    await context.poll();
    expect(context.completion(id)).toEqual({ kind: 'leadership-transfer', id, leaderEpoch: epoch + 1 });
  });

  it('fails when another node wins the next epoch', async () => {
    const { context, epoch } = await leaderWithLaggingVoter();
    const id = transfer(context, 1);
    await context.poll();
    context.deliverRequest(RaftApiKey.BEGIN_QUORUM_EPOCH, context.beginEpochRequest(epoch + 1, 2), 2);
    await context.poll();
    const error = failureOf(context, id);
    expect(error).toBeInstanceOf(LeadershipTransferError);
    expect((error as LeadershipTransferError).reason).toBe('another-leader-elected');
  });

  it('times out when the target does not catch up, and the leader accepts appends again', async () => {
    const { context, epoch } = await leaderWithLaggingVoter();
    const id = transfer(context, 2, 300);
    const deadline = context.client.poll(context.time.milliseconds());
    expect(deadline).toBeLessThanOrEqual(context.time.milliseconds() + 300);
    context.sleep(300);
    await context.poll();
    expect(failureOf(context, id)).toBeInstanceOf(RaftTimeoutError);
    expect(context.client.quorumState().isLeader()).toBe(true);
    expect(() => context.client.scheduleAppend(epoch, [Buffer.from('b')])).not.toThrow();
  });

  it('fails with NotLeaderError when leadership ends before the target caught up', async () => {
    const { context } = await leaderWithLaggingVoter();
    const id = transfer(context, 2);
    await context.poll();
    context.client.shutdown(1000, context.time.milliseconds());
    await context.poll();
    expect(failureOf(context, id)).toBeInstanceOf(NotLeaderError);
  });

  it('refuses a non-voter target and a second transfer; a transfer to itself completes at once', async () => {
    const { context, epoch } = await leaderWithLaggingVoter();
    expect(() => transfer(context, 9)).toThrow(LeadershipTransferError);
    const toSelf = transfer(context, 0);
    context.carryOutReady();
    expect(context.completion(toSelf)).toEqual({
      kind: 'leadership-transfer',
      id: toSelf,
      leaderEpoch: epoch,
    });
    transfer(context, 2);
    const second = (() => {
      try {
        transfer(context, 1);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(second).toBeInstanceOf(LeadershipTransferError);
    expect((second as LeadershipTransferError).reason).toBe('in-progress');
  });

  it('is refused by a node that does not lead', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(5, 1).build();
    expect(() => transfer(context, 2)).toThrow(NotLeaderError);
  });

  it('the first preferred successor campaigns at once on EndQuorumEpoch', async () => {
    const context = await RaftClientTestContext.builder(1, [0, 1, 2]).withElectedLeader(5, 0).build();
    context.deliverRequest(RaftApiKey.END_QUORUM_EPOCH, context.endEpochRequest(5, 0, [1, 2]), 0);
    await context.poll();
    await context.poll();
    expect(context.client.quorumState().isProspective()).toBe(true);
  });
});
