/**
 * `controller.quorum.auto.join.enable` (KIP-853, Kafka's KafkaRaftClientAutoJoinTest): a
 * kraft.version 1 observer adds itself as a voter through its leader, once per fetch timeout.
 */
import { Errors, Uuid } from '@kraft/protocol';
import { buildVotersBatch } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext } from '../test/kit/raft-client-test-context.js';
import { Endpoints } from './endpoints.js';
import { InvalidConfigurationError } from './errors/invalid-configuration-error.js';
import { RaftApiKey } from './kafka-raft-client.js';
import type { OutboundRequest } from './ports/network-channel.js';
import type { RaftLog } from './ports/raft-log.js';
import { ReplicaKey } from './replica-key.js';
import { VoterSet } from './voter-set.js';

const OBSERVER_ID = 3;
const LEADER_ID = 1;
const EPOCH = 2;
const DIRECTORY_ID = Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A');
const OLD_DIRECTORY_ID = Uuid.fromString('1xVKyUgLQYmHcNw7cNUnBA');
const LOCAL_ENDPOINTS = Endpoints.fromEntries([['CONTROLLER', { host: 'controller-3', port: 9093 }]]);

/** A VotersRecord of `voters`, before the client starts, in a batch of epoch 1. */
function votersInLog(voters: VoterSet) {
  return (log: RaftLog) => {
    log.initializeLeaderEpoch(1);
    const options = { baseOffset: log.endOffset(), partitionLeaderEpoch: 1, timestamp: 0 };
    log.appendAsLeader(buildVotersBatch(options, voters.toVotersRecord()), 1);
  };
}

/** Voters 0, 1, 2 and node 3 under `directoryId`. */
function votersWithNode3(directoryId: Uuid): VoterSet {
  return VoterSet.fromNodes(
    [0, 1, 2, OBSERVER_ID].map((id) => ({
      voterKey: ReplicaKey.of(id, id === OBSERVER_ID ? directoryId : undefined),
      listeners: Endpoints.EMPTY,
      supportedKRaftVersion: { minVersion: 0, maxVersion: 1 },
    })),
  );
}

/** Observer 3 following leader 1 of epoch 2 over voters {0, 1, 2}, auto-join as given. */
function observer(options: { autoJoin: boolean; voters?: VoterSet }) {
  const builder = RaftClientTestContext.builder(OBSERVER_ID, [0, 1, 2])
    .withKRaftVersion(1)
    .withDirectoryId(DIRECTORY_ID)
    .withLocalEndpoints(LOCAL_ENDPOINTS)
    .withElectedLeader(EPOCH, LEADER_ID)
    .withAutoJoin(options.autoJoin);
  return options.voters === undefined ? builder : builder.withLogSetup(votersInLog(options.voters));
}

/** Polls every `stepMs` for `durationMs`, answering each Fetch empty; returns the voter change requests sent. */
async function followFor(context: RaftClientTestContext, durationMs: number): Promise<OutboundRequest[]> {
  const changes: OutboundRequest[] = [];
  const stepMs = 100;
  for (let elapsedMs = 0; elapsedMs < durationMs; elapsedMs += stepMs) {
    await context.poll();
    for (const fetch of context.sentRequests(RaftApiKey.FETCH)) {
      context.deliverResponse(
        fetch,
        context.fetchResponse({ epoch: EPOCH, leaderId: LEADER_ID, highWatermark: context.log.endOffset() }),
      );
    }
    changes.push(
      ...context.sentRequests(RaftApiKey.ADD_RAFT_VOTER),
      ...context.sentRequests(RaftApiKey.REMOVE_RAFT_VOTER),
    );
    context.sleep(stepMs);
  }
  return changes;
}

describe('auto-join (controller.quorum.auto.join.enable)', () => {
  it('asks the leader to add it once a fetch timeout after it started following, then once per fetch timeout', async () => {
    const context = await observer({ autoJoin: true }).build();
    const early = await followFor(context, RaftClientTestContext.FETCH_TIMEOUT_MS - 100);
    expect(early).toEqual([]);
    const [first, ...rest] = await followFor(context, 200);
    expect(rest).toEqual([]);
    expect(first?.apiKey).toBe(RaftApiKey.ADD_RAFT_VOTER);
    expect(first?.destinationId).toBe(LEADER_ID);
    expect(first?.apiVersion).toBe(1);
    const added = first?.data as { voterDirectoryId: Uuid } | undefined;
    expect(added?.voterDirectoryId.toString()).toBe(DIRECTORY_ID.toString());
    expect(first?.data).toMatchObject({
      voterId: OBSERVER_ID,
      listeners: [{ name: 'CONTROLLER', host: 'controller-3', port: 9093 }],
      ackWhenCommitted: false,
    });
    // Refused (not caught up yet): the next try comes one fetch timeout later, not at once.
    context.deliverResponse(first as OutboundRequest, {
      errorCode: Errors.REQUEST_TIMED_OUT.code,
      errorMessage: null,
    });
    const meanwhile = await followFor(context, RaftClientTestContext.FETCH_TIMEOUT_MS - 200);
    expect(meanwhile).toEqual([]);
    const again = await followFor(context, 300);
    expect(again.map((request) => request.apiKey)).toEqual([RaftApiKey.ADD_RAFT_VOTER]);
  });

  it('never asks when its endpoints lack the default listener (the leader would refuse it)', async () => {
    const context = await observer({ autoJoin: true })
      .withLocalEndpoints(Endpoints.fromEntries([['OTHER', { host: 'controller-3', port: 9094 }]]))
      .build();
    expect(await followFor(context, RaftClientTestContext.FETCH_TIMEOUT_MS * 3)).toEqual([]);
  });

  it('never asks without auto-join', async () => {
    const context = await observer({ autoJoin: false }).build();
    expect(await followFor(context, RaftClientTestContext.FETCH_TIMEOUT_MS * 3)).toEqual([]);
  });

  it('removes the voter holding its id under an old directory id first', async () => {
    const context = await observer({ autoJoin: true, voters: votersWithNode3(OLD_DIRECTORY_ID) }).build();
    expect(context.client.quorumState().isObserver()).toBe(true);
    const [removal] = await followFor(context, RaftClientTestContext.FETCH_TIMEOUT_MS + 100);
    expect(removal?.apiKey).toBe(RaftApiKey.REMOVE_RAFT_VOTER);
    const data = removal?.data as { voterId: number; voterDirectoryId: Uuid };
    expect(data.voterId).toBe(OBSERVER_ID);
    expect(data.voterDirectoryId.toString()).toBe(OLD_DIRECTORY_ID.toString());
  });

  it('a voter never asks', async () => {
    const context = await observer({ autoJoin: true, voters: votersWithNode3(DIRECTORY_ID) }).build();
    expect(context.client.quorumState().isVoter()).toBe(true);
    const sent = await followFor(context, RaftClientTestContext.FETCH_TIMEOUT_MS / 2);
    expect(sent).toEqual([]);
  });

  it('refuses an autoJoin that is not a boolean, naming it', async () => {
    const building = observer({ autoJoin: 'yes' as unknown as boolean }).build();
    await expect(building).rejects.toThrow(InvalidConfigurationError);
    await expect(observer({ autoJoin: 'yes' as unknown as boolean }).build()).rejects.toThrow(/autoJoin/);
  });
});
