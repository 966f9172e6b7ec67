/**
 * Peers are not trusted: random (well-formed) requests with random epochs, ids and offsets must
 * get answers, never crash the node. The one exception is Kafka's split-brain guard (two leaders
 * named for one epoch), which stops the node on purpose.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext, recordsOf } from '../test/kit/raft-client-test-context.js';
import { RaftApiKey } from './kafka-raft-client.js';

const peer = fc.integer({ min: -1, max: 5 });
const epoch = fc.integer({ min: 0, max: 6 });
const offset = fc.integer({ min: 0, max: 40 });

const request = fc.oneof(
  fc.record({
    kind: fc.constant('vote' as const),
    peer,
    epoch,
    lastEpoch: epoch,
    lastOffset: offset,
    preVote: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('begin' as const), peer, epoch }),
  fc.record({
    kind: fc.constant('end' as const),
    peer,
    epoch,
    successors: fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }),
  }),
  fc.record({
    kind: fc.constant('fetch' as const),
    peer,
    epoch,
    fetchOffset: offset,
    lastFetchedEpoch: epoch,
    maxWaitMs: fc.constantFrom(0, 50),
  }),
  fc.record({
    kind: fc.constant('snapshot' as const),
    peer,
    epoch,
    position: offset,
    snapshotOffset: offset,
    snapshotEpoch: epoch,
  }),
  fc.record({ kind: fc.constant('describe' as const) }),
  fc.record({ kind: fc.constant('time' as const), sleepMs: fc.integer({ min: 0, max: 30_000 }) }),
  fc.record({ kind: fc.constant('append' as const), count: fc.integer({ min: 1, max: 3 }) }),
);

type FuzzRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

function deliver(context: RaftClientTestContext, step: FuzzRequest): void {
  switch (step.kind) {
    case 'vote':
      if (step.peer < 0) return;
      context.deliverRequest(
        RaftApiKey.VOTE,
        context.voteRequest({
          epoch: step.epoch,
          candidateId: step.peer,
          lastEpoch: step.lastEpoch,
          lastOffset: step.lastOffset,
          preVote: step.preVote,
        }),
        step.peer,
      );
      return;
    case 'begin':
      context.deliverRequest(
        RaftApiKey.BEGIN_QUORUM_EPOCH,
        context.beginEpochRequest(step.epoch, step.peer),
        step.peer,
      );
      return;
    case 'end':
      context.deliverRequest(
        RaftApiKey.END_QUORUM_EPOCH,
        context.endEpochRequest(step.epoch, step.peer, step.successors),
        step.peer,
      );
      return;
    case 'fetch':
      context.deliverRequest(
        RaftApiKey.FETCH,
        context.fetchRequest({
          epoch: step.epoch,
          replicaId: step.peer,
          fetchOffset: step.fetchOffset,
          lastFetchedEpoch: step.lastFetchedEpoch,
          maxWaitMs: step.maxWaitMs,
        }),
        step.peer,
      );
      return;
    case 'snapshot':
      context.deliverRequest(
        RaftApiKey.FETCH_SNAPSHOT,
        context.fetchSnapshotRequest({
          epoch: step.epoch,
          replicaId: step.peer,
          snapshotId: { offset: step.snapshotOffset, epoch: step.snapshotEpoch },
          position: step.position,
        }),
        step.peer,
      );
      return;
    case 'describe':
      context.deliverRequest(RaftApiKey.DESCRIBE_QUORUM, context.describeQuorumRequest(), -1, 2);
      return;
    case 'time':
      context.sleep(step.sleepMs);
      return;
    case 'append': {
      const leader = context.client.leaderAndEpoch();
      if (context.client.quorumState().isLeader()) {
        context.client.scheduleAppend(
          leader.epoch,
          Array.from({ length: step.count }, (_, index) => Buffer.from(`r${index}`)),
        );
      }
    }
  }
}

describe('untrusted peers (property)', () => {
  it('random requests are answered without stopping the node (split brain excepted)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('leader', 'follower', 'unattached'),
        fc.array(request, { maxLength: 40 }),
        async (start, steps) => {
          const builder = RaftClientTestContext.builder(0, [0, 1, 2, 3]);
          if (start === 'follower') builder.withElectedLeader(2, 1);
          if (start === 'unattached') builder.withUnknownLeader(1);
          const context = await builder.build();
          if (start === 'leader') await context.becomeLeader();
          try {
            for (const step of steps) {
              deliver(context, step);
              await context.poll();
              context.channel.drainSendQueue();
            }
          } catch (error) {
            expect(String(error)).toMatch(/split brain|two leaders in one epoch/);
            return;
          }
          const state = context.client.observableState();
          if (state.highWatermark !== undefined)
            expect(state.highWatermark).toBeLessThanOrEqual(state.logEndOffset);
          for (const batch of context.listener.committedBatches)
            expect(batch.lastOffset).toBeLessThan(state.highWatermark ?? 0);
        },
      ),
      { numRuns: 300 },
    );
  });
});

const answer = fc.record({
  synthetic: fc.constantFrom(0, 0, 0, 7, 8),
  granted: fc.boolean(),
  epoch: fc.integer({ min: 0, max: 6 }),
  leaderId: fc.integer({ min: -1, max: 3 }),
  highWatermark: fc.integer({ min: -1, max: 30 }),
  shape: fc.constantFrom('records', 'records', 'empty', 'diverging', 'snapshot'),
  values: fc.array(fc.string({ maxLength: 4 }), { minLength: 1, maxLength: 3 }),
  recordEpoch: fc.integer({ min: 0, max: 6 }),
  otherOffset: fc.integer({ min: 0, max: 30 }),
  sleepMs: fc.integer({ min: 0, max: 20_000 }),
});

type Answer = typeof answer extends fc.Arbitrary<infer T> ? T : never;

/** Legitimate stops: two leaders named for one epoch, or a leader asking to drop committed data. */
const EXPECTED_STOP =
  /split brain|two leaders in one epoch|below the high watermark|committed data would be lost/;

function respond(context: RaftClientTestContext, script: Answer): void {
  for (const request of context.channel.drainSendQueue()) {
    if (script.synthetic !== 0) {
      context.deliverResponse(request, { errorCode: script.synthetic });
      continue;
    }
    const leaderId = script.leaderId >= 0 ? script.leaderId : undefined;
    switch (request.apiKey) {
      case RaftApiKey.VOTE:
        context.deliverResponse(
          request,
          context.voteResponse({
            granted: script.granted,
            epoch: script.epoch,
            ...(leaderId === undefined ? {} : { leaderId }),
          }),
        );
        break;
      case RaftApiKey.BEGIN_QUORUM_EPOCH:
      case RaftApiKey.END_QUORUM_EPOCH:
        context.deliverResponse(request, context.quorumEpochResponse(script.epoch, leaderId));
        break;
      case RaftApiKey.FETCH: {
        const fetchOffset = context.log.endOffset();
        const base = { epoch: script.epoch, leaderId: script.leaderId, highWatermark: script.highWatermark };
        if (script.shape === 'records') {
          context.deliverResponse(
            request,
            context.fetchResponse({
              ...base,
              records: recordsOf(
                fetchOffset,
                Math.max(script.recordEpoch, context.log.lastFetchedEpoch()),
                script.values,
              ),
            }),
          );
        } else if (script.shape === 'diverging') {
          context.deliverResponse(
            request,
            context.fetchResponse({
              ...base,
              divergingEpoch: { epoch: script.recordEpoch, offset: script.otherOffset },
            }),
          );
        } else if (script.shape === 'snapshot') {
          context.deliverResponse(
            request,
            context.fetchResponse({
              ...base,
              snapshotId: { epoch: script.recordEpoch, offset: script.otherOffset },
            }),
          );
        } else {
          context.deliverResponse(request, context.fetchResponse(base));
        }
        break;
      }
      case RaftApiKey.FETCH_SNAPSHOT:
        context.deliverResponse(
          request,
          context.fetchSnapshotResponse({
            epoch: script.epoch,
            leaderId: script.leaderId,
            snapshotId: { offset: script.otherOffset, epoch: script.recordEpoch },
            size: script.otherOffset,
            position: 0,
            bytes: Buffer.alloc(Math.min(script.otherOffset, 8)),
          }),
        );
        break;
    }
  }
  context.sleep(script.sleepMs);
}

describe('untrusted responses (property)', () => {
  it('random answers to its own requests never stop the node except by design', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('follower', 'unattached', 'candidate'),
        fc.array(answer, { maxLength: 30 }),
        async (start, scripts) => {
          const builder = RaftClientTestContext.builder(0, [0, 1, 2, 3]);
          if (start === 'follower') builder.withElectedLeader(2, 1);
          if (start === 'unattached') builder.withUnknownLeader(1);
          if (start === 'candidate') builder.withVotedCandidate(2, 0);
          const context = await builder.build();
          try {
            for (const script of scripts) {
              await context.poll();
              respond(context, script);
              await context.poll();
            }
          } catch (error) {
            expect(String(error)).toMatch(EXPECTED_STOP);
            return;
          }
          // The committed point the node recorded: a node that has since become leader does not
          // know its own high watermark until it commits in its epoch, but what it delivered as a
          // follower stays below the log's (monotonic) high watermark.
          const state = context.client.observableState();
          const committedEnd = Math.max(state.highWatermark ?? 0, context.log.highWatermark());
          for (const batch of context.listener.committedBatches)
            expect(batch.lastOffset).toBeLessThan(committedEnd);
        },
      ),
      { numRuns: 300 },
    );
  });
});
