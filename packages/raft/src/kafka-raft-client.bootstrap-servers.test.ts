/**
 * `controller.quorum.bootstrap.servers` (KIP-853): an observer that knows no leader, or whose
 * leader stopped answering, asks a bootstrap server (ids -2, -3, ...) who leads, learns the
 * leader's address from the answer and then fetches from the leader.
 */
import { Errors } from '@kraft/protocol';
import { buildVotersBatch } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext } from '../test/kit/raft-client-test-context.js';
import { Endpoints } from './endpoints.js';
import { InvalidConfigurationError } from './errors/invalid-configuration-error.js';
import { RaftApiKey } from './kafka-raft-client.js';
import type { NodeAddress, OutboundRequest } from './ports/network-channel.js';
import { bootstrapServerId } from './request-manager.js';
import { buildFetchResponse, type FetchPartitionResult } from './rpc/raft-messages.js';
import { VoterSet } from './voter-set.js';

const FETCH = RaftApiKey.FETCH;
const BOOTSTRAP_SERVERS: readonly NodeAddress[] = [
  { host: 'controller-a', port: 9093 },
  { host: 'controller-b', port: 9094 },
];
const LEADER_ADDRESS: NodeAddress = { host: 'controller-leader', port: 9095 };
const OBSERVER_ID = 3;

/** A kraft.version 1 observer with no static voters (formatted with --no-initial-controllers). */
function dynamicObserver(voterIds: readonly number[] = []) {
  return RaftClientTestContext.builder(OBSERVER_ID, voterIds)
    .withKRaftVersion(1)
    .withBootstrapServers(BOOTSTRAP_SERVERS);
}

/** A Fetch answer naming `leaderId` of `epoch` at `address` (the response's NodeEndpoints). */
function fetchAnswer(
  context: RaftClientTestContext,
  options: {
    epoch: number;
    leaderId: number;
    errorCode?: number;
    address?: NodeAddress;
    records?: Buffer;
    highWatermark?: number;
  },
) {
  const partition: FetchPartitionResult = {
    errorCode: options.errorCode ?? Errors.NONE.code,
    highWatermark: options.highWatermark ?? 0,
    logStartOffset: 0,
    leader: { leaderId: options.leaderId, epoch: options.epoch },
    records: options.records ?? Buffer.alloc(0),
  };
  return buildFetchResponse({
    topic: context.topic,
    apiVersion: context.rpcVersions.fetch,
    errorCode: Errors.NONE.code,
    partition,
    leaderEndpoints: Endpoints.fromEntries([['CONTROLLER', options.address ?? LEADER_ADDRESS]]),
    listenerName: 'CONTROLLER',
  });
}

function fetchDestinations(context: RaftClientTestContext): number[] {
  return context.sentRequests(FETCH).map((request) => request.destinationId);
}

/** The one Fetch sent since the last look, which must exist. */
function onlyFetch(context: RaftClientTestContext): OutboundRequest {
  const fetches = context.sentRequests(FETCH);
  expect(fetches).toHaveLength(1);
  return fetches[0] as OutboundRequest;
}

/** An observer that asked bootstrap server -2 and was told leader 1 of epoch 5 is at LEADER_ADDRESS. */
async function observerFollowingLeader() {
  const context = await dynamicObserver().build();
  await context.poll();
  context.deliverResponse(
    onlyFetch(context),
    fetchAnswer(context, { epoch: 5, leaderId: 1, errorCode: Errors.FENCED_LEADER_EPOCH.code }),
  );
  await context.poll();
  expect(context.client.leaderAndEpoch()).toEqual({ leaderId: 1, epoch: 5 });
  return context;
}

/**
 * Answers the one Fetch sent: leader 1 of epoch 5, a VotersRecord of `voterIds` at offset 0.
 * Returns where that Fetch had gone.
 */
function answerWithVotersRecord(context: RaftClientTestContext, voterIds: readonly number[]): number {
  const fetch = onlyFetch(context);
  const records = buildVotersBatch(
    { baseOffset: 0, partitionLeaderEpoch: 5, timestamp: 0 },
    VoterSet.fromIds(voterIds).toVotersRecord(),
  ).buffer();
  context.deliverResponse(fetch, fetchAnswer(context, { epoch: 5, leaderId: 1, records, highWatermark: 1 }));
  return fetch.destinationId;
}

describe('an observer finds the leader through controller.quorum.bootstrap.servers', () => {
  it('gives the bootstrap servers ids -2, -3, ... that no node id can take', () => {
    expect([0, 1, 2].map(bootstrapServerId)).toEqual([-2, -3, -4]);
  });

  it('tells the network where each bootstrap server is, under its own id', async () => {
    const context = await dynamicObserver().build();
    expect(context.channel.endpoints.get(-2)).toEqual(BOOTSTRAP_SERVERS[0]);
    expect(context.channel.endpoints.get(-3)).toEqual(BOOTSTRAP_SERVERS[1]);
  });

  it('without a leader and without voters, sends its Fetch to a bootstrap server', async () => {
    const context = await dynamicObserver().build();
    expect(context.client.quorumState().isObserver()).toBe(true);
    await context.poll();
    const fetch = onlyFetch(context);
    expect(fetch.destinationId).toBe(-2);
    // As an observer: its own id and the epoch it knows (0 on a fresh log), so any voter past
    // its first election answers with the leader.
    expect(fetch.data).toMatchObject({ replicaState: { replicaId: OBSERVER_ID } });
  });

  it('asks the bootstrap servers even when it knows voters (they are the configured way in)', async () => {
    const context = await dynamicObserver([0, 1, 2]).build();
    await context.poll();
    expect(fetchDestinations(context)).toEqual([-2]);
  });

  it('picks the bootstrap server the random draw starts at', async () => {
    const context = await dynamicObserver().build();
    context.random.mockNextInt = (bound) => bound - 1;
    await context.poll();
    expect(fetchDestinations(context)).toEqual([-3]);
  });

  it('keeps one fetch in flight: none to another bootstrap server until it is answered or times out', async () => {
    const context = await dynamicObserver().build();
    await context.poll();
    expect(fetchDestinations(context)).toEqual([-2]);
    context.sleep(RaftClientTestContext.REQUEST_TIMEOUT_MS - 1);
    await context.poll();
    expect(fetchDestinations(context)).toEqual([]);
    context.sleep(1);
    await context.poll();
    expect(fetchDestinations(context)).toEqual([-2]);
  });

  it('after a failed attempt, tries the next ready bootstrap server, then waits out the backoff', async () => {
    const context = await dynamicObserver().build();
    await context.poll();
    context.deliverResponse(onlyFetch(context), { errorCode: Errors.BROKER_NOT_AVAILABLE.code });
    await context.poll();
    const second = onlyFetch(context);
    expect(second.destinationId).toBe(-3);
    const laterMs = 10;
    context.sleep(laterMs);
    context.deliverResponse(second, { errorCode: Errors.BROKER_NOT_AVAILABLE.code });
    const deadlineMs = await context.poll();
    expect(fetchDestinations(context)).toEqual([]);
    // The first to fail is the first ready again.
    const firstReadyInMs = RaftClientTestContext.RETRY_BACKOFF_MS - laterMs;
    expect(deadlineMs).toBe(context.time.milliseconds() + firstReadyInMs);
    context.sleep(firstReadyInMs);
    await context.poll();
    expect(fetchDestinations(context)).toEqual([-2]);
  });

  it('learns leader, epoch and the leader address from the answer, then fetches from the leader', async () => {
    const context = await observerFollowingLeader();
    expect(context.client.quorumState().isFollower()).toBe(true);
    expect(context.client.quorumState().isObserver()).toBe(true);
    expect(context.channel.endpoints.get(1)).toEqual(LEADER_ADDRESS);
    expect(fetchDestinations(context)).toEqual([1]);
  });

  it('does not append the records of a bootstrap server answer, even one naming its own leader', async () => {
    const context = await observerFollowingLeader();
    context.deliverResponse(onlyFetch(context), { errorCode: Errors.BROKER_NOT_AVAILABLE.code });
    await context.poll();
    // The bootstrap server answers as the leader would (same epoch and leader, records at 0):
    // they were not asked of the leader, so they are not appended.
    expect(answerWithVotersRecord(context, [0, 1, 2])).toBe(-2);
    await context.poll();
    expect(context.client.leaderAndEpoch()).toEqual({ leaderId: 1, epoch: 5 });
    expect(context.log.endOffset()).toBe(0);
  });

  it('takes the voter set from the log it then fetches from the leader (kraft.version 1)', async () => {
    const context = await observerFollowingLeader();
    expect(answerWithVotersRecord(context, [0, 1, 2])).toBe(1);
    await context.poll();
    expect(context.log.endOffset()).toBe(1);
    expect(context.client.lastVoterSet().voterIds()).toEqual([0, 1, 2]);
    expect(context.client.quorumState().isObserver()).toBe(true);
  });

  it('asks a bootstrap server once a fetch to its leader times out', async () => {
    const context = await observerFollowingLeader();
    expect(fetchDestinations(context)).toEqual([1]);
    context.sleep(RaftClientTestContext.REQUEST_TIMEOUT_MS);
    await context.poll();
    expect(fetchDestinations(context)).toEqual([-2]);
  });

  it('asks a bootstrap server while its leader backs off after a failed fetch', async () => {
    const context = await observerFollowingLeader();
    context.deliverResponse(onlyFetch(context), { errorCode: Errors.BROKER_NOT_AVAILABLE.code });
    await context.poll();
    expect(fetchDestinations(context)).toEqual([-2]);
  });

  it('follows a newer leader a bootstrap server names', async () => {
    const context = await observerFollowingLeader();
    context.deliverResponse(onlyFetch(context), { errorCode: Errors.BROKER_NOT_AVAILABLE.code });
    await context.poll();
    const newLeader: NodeAddress = { host: 'controller-new', port: 9096 };
    context.deliverResponse(
      onlyFetch(context),
      fetchAnswer(context, {
        epoch: 6,
        leaderId: 2,
        errorCode: Errors.FENCED_LEADER_EPOCH.code,
        address: newLeader,
      }),
    );
    await context.poll();
    expect(context.client.leaderAndEpoch()).toEqual({ leaderId: 2, epoch: 6 });
    expect(context.channel.endpoints.get(2)).toEqual(newLeader);
    expect(fetchDestinations(context)).toEqual([2]);
  });

  it('an observer that knows its leader id but not its address follows once an answer gives it', async () => {
    // Restarted with leader 7 of epoch 2 stored, on a log that does not name 7: Unattached.
    const context = await RaftClientTestContext.builder(OBSERVER_ID, [0, 1, 2])
      .withKRaftVersion(1)
      .withBootstrapServers(BOOTSTRAP_SERVERS)
      .withElectedLeader(2, 7)
      .build();
    expect(context.client.quorumState().isUnattached()).toBe(true);
    await context.poll();
    const fetch = onlyFetch(context);
    expect(fetch.destinationId).toBe(-2);
    // The bootstrap server is the leader itself: same epoch, no error.
    context.deliverResponse(fetch, fetchAnswer(context, { epoch: 2, leaderId: 7 }));
    await context.poll();
    expect(context.client.quorumState().isFollower()).toBe(true);
    expect(context.channel.endpoints.get(7)).toEqual(LEADER_ADDRESS);
    expect(fetchDestinations(context)).toEqual([7]);
  });

  it('without bootstrap servers, an observer still asks the voters (kraft.version 0 unchanged)', async () => {
    const context = await RaftClientTestContext.builder(OBSERVER_ID, [0, 1, 2]).build();
    await context.poll();
    const destinations = fetchDestinations(context);
    expect(destinations).toHaveLength(1);
    expect([0, 1, 2]).toContain(destinations[0]);
  });

  it('a voter never asks the bootstrap servers: it waits for its election timeout', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withBootstrapServers(BOOTSTRAP_SERVERS)
      .build();
    await context.poll();
    expect(fetchDestinations(context)).toEqual([]);
  });

  it.each([
    ['not an array', 'controller-a:9093'],
    ['an empty host', [{ host: '', port: 9093 }]],
    ['port 0', [{ host: 'controller-a', port: 0 }]],
    ['a port above 65535', [{ host: 'controller-a', port: 65_536 }]],
  ])('refuses bootstrapServers that is %s', async (_name, bootstrapServers) => {
    const builder = RaftClientTestContext.builder(OBSERVER_ID, []).withBootstrapServers(
      bootstrapServers as unknown as NodeAddress[],
    );
    await expect(builder.build()).rejects.toThrow(InvalidConfigurationError);
  });
});
