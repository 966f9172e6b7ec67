import {
  type AddRaftVoterRequestData,
  ApiKeys,
  allApiKeys,
  type DescribeQuorumRequestData,
  Errors,
  type FetchRequestData,
  type RemoveRaftVoterRequestData,
  Uuid,
} from '@kraft/protocol';
import { ApiRegistry, type HostAndPort } from '@kraft/transport-tcp';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeController, type FakeQuorum } from '../../test/support/fake-controller.js';
import { PERFORMANCE_TEST_TOPIC_ID, PERFORMANCE_TEST_TOPIC_NAME } from '../performance-test-topic.js';
import { LeaderNotFoundError } from './leader-not-found-error.js';
import { QuorumAdminClient, type QuorumAdminClientOptions } from './quorum-admin-client.js';
import { QuorumRequestError } from './quorum-request-error.js';

const controllers: FakeController[] = [];
const clients: QuorumAdminClient[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await Promise.all(controllers.splice(0).map((controller) => controller.close()));
});

async function controller(...args: Parameters<typeof FakeController.start>): Promise<FakeController> {
  const started = await FakeController.start(...args);
  controllers.push(started);
  return started;
}

function at(controller: FakeController): HostAndPort {
  return { host: '127.0.0.1', port: controller.port };
}

/** A port nothing listens on: a controller started and closed again. */
async function closedPort(): Promise<HostAndPort> {
  const gone = await FakeController.start({ kind: 'silent' });
  await gone.close();
  return at(gone);
}

function client(
  bootstrapControllers: readonly HostAndPort[],
  overrides: Partial<QuorumAdminClientOptions> = {},
): QuorumAdminClient {
  const created = new QuorumAdminClient({
    bootstrapControllers,
    partition: {
      topicName: PERFORMANCE_TEST_TOPIC_NAME,
      topicId: PERFORMANCE_TEST_TOPIC_ID,
      partitionIndex: 0,
    },
    requestTimeoutMs: 2_000,
    commandTimeoutMs: 10_000,
    ...overrides,
  });
  clients.push(created);
  return created;
}

const QUORUM: FakeQuorum = {
  leaderId: 2,
  leaderEpoch: 7,
  highWatermark: 500n,
  voters: [
    { id: 2, directoryId: Uuid.fromString('Nkij_D9XRiYKNb41SiJo7Q'), logEndOffset: 510n },
    { id: 1, directoryId: Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A'), logEndOffset: 505n },
  ],
  nodes: [
    { id: 1, name: 'PLAINTEXT', host: '127.0.0.1', port: 1111 },
    { id: 2, name: 'PLAINTEXT', host: '127.0.0.1', port: 2222 },
  ],
};

/** A leader and a follower naming it, as the test server answers. */
async function followerAndLeader(leaderOptions: Parameters<typeof FakeController.start>[1] = {}) {
  const leader = await controller({ kind: 'leader', quorum: QUORUM }, leaderOptions);
  const follower = await controller({
    kind: 'follower',
    leader: { id: 2, epoch: 7, host: '127.0.0.1', port: leader.port },
  });
  return { leader, follower };
}

describe('QuorumAdminClient finds the leader from any controller', () => {
  it('pointed at a follower, asks it who leads with a Fetch of epoch 0 and gets DescribeQuorum v2 from the leader', async () => {
    const { leader, follower } = await followerAndLeader();
    const answer = await client([at(follower)]).describeQuorum();
    expect(answer.endpoint).toBe(leader.endpoint);
    expect(answer.value).toMatchObject({ leaderId: 2, leaderEpoch: 7, highWatermark: 500n });
    expect(
      answer.value.voters.map((voter) => [voter.replicaId, voter.replicaDirectoryId.toString()]),
    ).toEqual([
      [2, 'Nkij_D9XRiYKNb41SiJo7Q'],
      [1, 'b8tRS7h4TJ2Vt43Dp85v2A'],
    ]);
    expect(answer.value.nodes.get(1)).toEqual([{ name: 'PLAINTEXT', host: '127.0.0.1', port: 1111 }]);

    expect(follower.received.map((request) => [request.apiKey, request.apiVersion])).toEqual([
      [ApiKeys.DESCRIBE_QUORUM.key, 2],
      [ApiKeys.FETCH.key, 18],
    ]);
    const probe = follower.received[1]?.data as FetchRequestData;
    expect(probe.replicaState.replicaId).toBe(-1);
    expect(probe.maxWaitMs).toBe(0);
    expect(probe.topics).toHaveLength(1);
    expect(probe.topics[0]?.topicId.equals(PERFORMANCE_TEST_TOPIC_ID)).toBe(true);
    expect(probe.topics[0]?.partitions[0]).toMatchObject({
      partition: 0,
      currentLeaderEpoch: 0,
      fetchOffset: 0n,
      lastFetchedEpoch: 0,
    });
    const asked = leader.requestsOf(ApiKeys.DESCRIBE_QUORUM.key);
    expect(asked.map((request) => request.apiVersion)).toEqual([2]);
    expect(asked[0]?.clientId).toBe('kraft-metadata-quorum');
    expect((asked[0]?.data as DescribeQuorumRequestData | undefined)?.topics).toEqual([
      { topicName: '__raft_performance_test', partitions: [{ partitionIndex: 0 }] },
    ]);
    expect(leader.requestsOf(ApiKeys.FETCH.key)).toHaveLength(0);
  });

  it('negotiates versions with ApiVersions: a leader serving DescribeQuorum up to v1 is asked at v1', async () => {
    const olderServer = new ApiRegistry(allApiKeys(), new Map([[ApiKeys.DESCRIBE_QUORUM.key, 1]]));
    const { leader, follower } = await followerAndLeader({ apis: olderServer });
    const answer = await client([at(follower)]).describeQuorum();
    expect(leader.requestsOf(ApiKeys.DESCRIBE_QUORUM.key).map((request) => request.apiVersion)).toEqual([1]);
    // v1 carries neither directory ids nor the nodes' listeners.
    expect(answer.value.voters.every((voter) => voter.replicaDirectoryId.equals(Uuid.ZERO))).toBe(true);
    expect(answer.value.nodes.size).toBe(0);
  });

  it('goes on to the next bootstrap controller when one knows no leader or cannot be reached', async () => {
    const lost = await controller({ kind: 'follower' });
    const unreachable = await closedPort();
    const leader = await controller({ kind: 'leader', quorum: QUORUM });
    const answer = await client([at(lost), unreachable, at(leader)]).describeQuorum();
    expect(answer.endpoint).toBe(leader.endpoint);
    expect(lost.received.map((request) => request.apiKey)).toEqual([
      ApiKeys.DESCRIBE_QUORUM.key,
      ApiKeys.FETCH.key,
    ]);
  });

  it('names every controller tried and its last outcome when none answers before the deadline', async () => {
    const lost = await controller({ kind: 'follower' });
    const unreachable = await closedPort();
    const hung = await controller({ kind: 'silent' });
    const startedMs = performance.now();
    const error = await client([at(lost), unreachable, at(hung)], {
      requestTimeoutMs: 300,
      commandTimeoutMs: 1_500,
    })
      .describeQuorum()
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    const elapsedMs = performance.now() - startedMs;
    expect(LeaderNotFoundError.isLeaderNotFoundError(error)).toBe(true);
    const notFound = error as LeaderNotFoundError;
    expect(notFound.message).toMatch(
      /^no controller answered DescribeQuorum as the quorum leader within 1500 ms; tried /,
    );
    expect(notFound.attempts.map((attempt) => attempt.endpoint)).toEqual([
      lost.endpoint,
      `127.0.0.1:${unreachable.port}`,
      hung.endpoint,
    ]);
    const [asked, refused, silent] = notFound.attempts.map((attempt) => attempt.outcome);
    expect(asked).toBe(
      'NOT_LEADER_OR_FOLLOWER; asked for the leader: NOT_LEADER_OR_FOLLOWER, leader unknown',
    );
    expect(refused).toBe('cannot connect, or the connection was lost (BROKER_NOT_AVAILABLE)');
    expect(silent).toMatch(/^no answer within \d+ ms \(REQUEST_TIMED_OUT\)$/);
    // The deadline holds: one request timeout of slack for the request running when it passed.
    expect(elapsedMs).toBeLessThan(1_500 + 300 + 500);
    expect(lost.requestsOf(ApiKeys.DESCRIBE_QUORUM.key).length).toBeGreaterThan(1);
  });

  it('stops after its rounds when controllers keep naming each other as the leader', async () => {
    const first = await controller({ kind: 'follower' });
    const second = await controller({
      kind: 'follower',
      leader: { id: 1, epoch: 4, host: '127.0.0.1', port: first.port },
    });
    first.role = { kind: 'follower', leader: { id: 2, epoch: 4, host: '127.0.0.1', port: second.port } };
    const error = await client([at(first)], { commandTimeoutMs: 60_000 })
      .describeQuorum()
      .then(
        () => undefined,
        (failure: unknown) => failure as LeaderNotFoundError,
      );
    expect(error?.message).toMatch(
      /as the quorum leader in 10 rounds over the bootstrap controllers; tried /,
    );
    expect(error?.attempts.map((attempt) => attempt.outcome)).toEqual([
      `NOT_LEADER_OR_FOLLOWER; it names node 2 (epoch 4) at ${second.endpoint} the leader`,
      `NOT_LEADER_OR_FOLLOWER; it names node 1 (epoch 4) at ${first.endpoint} the leader`,
    ]);
    // Three sends per round (the bootstrap, the leader it names, the one that names), ten rounds.
    const describes =
      first.requestsOf(ApiKeys.DESCRIBE_QUORUM.key).length +
      second.requestsOf(ApiKeys.DESCRIBE_QUORUM.key).length;
    expect(describes).toBe(30);
  }, 30_000);
});

describe('QuorumAdminClient sends AddRaftVoter and RemoveRaftVoter as Kafka does', () => {
  it('sends AddRaftVoter v1 to the leader found through a follower and reports its refusal', async () => {
    const { leader, follower } = await followerAndLeader();
    leader.role = {
      kind: 'leader',
      quorum: QUORUM,
      voterChange: {
        errorCode: Errors.UNSUPPORTED_VERSION.code,
        errorMessage: "Cluster doesn't support adding voter because the kraft.version feature is 0",
      },
    };
    const directoryId = Uuid.fromString('wZoXPqWoSu6F6c8MkmdyAg');
    const error = await client([at(follower)], { requestTimeoutMs: 4_000 })
      .addRaftVoter({
        controllerId: 5,
        directoryId,
        metadataDirectory: '/unused',
        endpoints: [
          { name: 'CONTROLLER', host: 'example.com', port: 9093 },
          { name: 'CONTROLLER_SSL', host: 'example.com', port: 9094 },
        ],
      })
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    expect(QuorumRequestError.isQuorumRequestError(error)).toBe(true);
    expect((error as QuorumRequestError).message).toBe(
      `AddRaftVoter refused by the leader at ${leader.endpoint}: UNSUPPORTED_VERSION (error code 35): Cluster doesn't support adding voter because the kraft.version feature is 0`,
    );
    expect(follower.received.map((request) => request.apiKey)).toEqual([
      ApiKeys.ADD_RAFT_VOTER.key,
      ApiKeys.FETCH.key,
    ]);
    const [sent] = leader.requestsOf(ApiKeys.ADD_RAFT_VOTER.key);
    expect(sent?.apiVersion).toBe(1);
    const data = sent?.data as AddRaftVoterRequestData;
    expect(data.clusterId).toBeNull();
    expect(data.voterId).toBe(5);
    expect(data.voterDirectoryId.equals(directoryId)).toBe(true);
    expect(data.listeners).toEqual([
      { name: 'CONTROLLER', host: 'example.com', port: 9093 },
      { name: 'CONTROLLER_SSL', host: 'example.com', port: 9094 },
    ]);
    expect(data.ackWhenCommitted).toBe(true);
    // Kafka's admin client gives the leader the request timeout (what is left of it) to wait for catch-up.
    expect(data.timeoutMs).toBeGreaterThan(3_000);
    expect(data.timeoutMs).toBeLessThanOrEqual(4_000);
  });

  it('sends RemoveRaftVoter v0 and resolves when the leader answers NONE', async () => {
    const { leader, follower } = await followerAndLeader();
    const directoryId = Uuid.fromString('4-e97nI7eHPYKfEDtW8rtQ');
    const answer = await client([at(follower)]).removeRaftVoter(3, directoryId);
    expect(answer.endpoint).toBe(leader.endpoint);
    const [sent] = leader.requestsOf(ApiKeys.REMOVE_RAFT_VOTER.key);
    expect(sent?.apiVersion).toBe(0);
    const data = sent?.data as RemoveRaftVoterRequestData;
    expect(data.clusterId).toBeNull();
    expect(data.voterId).toBe(3);
    expect(data.voterDirectoryId.equals(directoryId)).toBe(true);
  });

  it("uses the error code's default message when the leader sends none", async () => {
    const leader = await controller({
      kind: 'leader',
      quorum: QUORUM,
      voterChange: { errorCode: Errors.INVALID_REQUEST.code, errorMessage: '' },
    });
    await expect(client([at(leader)]).removeRaftVoter(3, Uuid.ZERO)).rejects.toThrow(
      `RemoveRaftVoter refused by the leader at ${leader.endpoint}: INVALID_REQUEST (error code 42): ${Errors.INVALID_REQUEST.defaultMessage}`,
    );
  });
});
