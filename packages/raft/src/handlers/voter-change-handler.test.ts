// AddRaftVoter / RemoveRaftVoter / UpdateRaftVoter answered as Kafka's leader answers them at
// kraft.version 0, compared byte for byte. The expected bytes follow Kafka's
// KafkaRaftClient.handle{Add,Remove,Update}VoterRequest, {Add,Remove,Update}VoterHandler and
// RaftUtil.{add,remove,update}VoterResponse field by field: a response built with only
// `setErrorCode` keeps its data-class default message "", RaftUtil's builders set the message
// they are given, and UpdateRaftVoterResponse's CurrentLeader is a tagged field written only
// when it differs from its defaults (-1, -1, "", 0).
import { ApiKeys, Errors, Uuid } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext } from '../../test/kit/raft-client-test-context.js';
import { KafkaWireBytes } from '../../test/support/kafka-wire-bytes.js';
import { RaftApiKey } from '../rpc/raft-api-key.js';
import {
  addVoterRequest,
  removeVoterRequest,
  updateVoterRequest,
} from './voter-change-requests.test-support.js';

/** The one answer sent for `apiKey`, encoded at `apiVersion`, as hex. */
async function answerHex(
  context: RaftClientTestContext,
  apiKey: number,
  data: unknown,
  apiVersion = 0,
): Promise<string> {
  context.deliverRequest(apiKey, data, 2, apiVersion);
  await context.poll();
  const [sent, ...rest] = context.sentResponses(apiKey);
  expect(rest).toEqual([]);
  const codec = apiKey === RaftApiKey.UPDATE_RAFT_VOTER ? ApiKeys.UPDATE_RAFT_VOTER : ApiKeys.ADD_RAFT_VOTER;
  return codec.response.write(sent!.data as never, apiVersion).toString('hex');
}

/** AddRaftVoterResponse / RemoveRaftVoterResponse (same layout at every version). */
function kafkaAddOrRemoveAnswer(errorCode: number, errorMessage: string | null): string {
  return new KafkaWireBytes()
    .int32(0)
    .int16(errorCode)
    .compactString(errorMessage)
    .noTaggedFields()
    .bytes()
    .toString('hex');
}

function kafkaUpdateAnswer(
  errorCode: number,
  leader: { leaderId: number; leaderEpoch: number; host: string; port: number },
): string {
  const bytes = new KafkaWireBytes().int32(0).int16(errorCode);
  const isDefault =
    leader.leaderId === -1 && leader.leaderEpoch === -1 && leader.host === '' && leader.port === 0;
  if (isDefault) return bytes.noTaggedFields().bytes().toString('hex');
  const currentLeader = new KafkaWireBytes()
    .int32(leader.leaderId)
    .int32(leader.leaderEpoch)
    .compactString(leader.host)
    .int32(leader.port)
    .noTaggedFields()
    .bytes();
  return bytes.oneTaggedField(0, currentLeader).bytes().toString('hex');
}

/** CurrentLeader naming this test node (id 0), which has no endpoints of its own. */
function thisNodeLeading(epoch: number) {
  return { leaderId: 0, leaderEpoch: epoch, host: '', port: 0 };
}

async function leaderWithHighWatermark(): Promise<RaftClientTestContext> {
  const context = await RaftClientTestContext.builder(0, [0]).build();
  await context.pollUntil(() => context.client.highWatermark() !== undefined);
  return context;
}

/** A voter following node 1 in epoch 3, which it learnt (with its endpoint) from BeginQuorumEpoch. */
async function followerOfNodeOne(): Promise<RaftClientTestContext> {
  const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(2).build();
  const begin = {
    ...context.beginEpochRequest(3, 1),
    leaderEndpoints: [{ name: 'CONTROLLER', host: '10.0.0.1', port: 19093 }],
  };
  context.deliverRequest(RaftApiKey.BEGIN_QUORUM_EPOCH, begin, 1);
  await context.poll();
  context.sentResponses(RaftApiKey.BEGIN_QUORUM_EPOCH);
  return context;
}

describe('AddRaftVoter and RemoveRaftVoter answered as Kafka at kraft.version 0', () => {
  it.each([0, 1])(
    'a leader with a high watermark answers AddRaftVoter v%i with UNSUPPORTED_VERSION',
    async (version) => {
      const context = await leaderWithHighWatermark();
      expect(await answerHex(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest(), version)).toBe(
        kafkaAddOrRemoveAnswer(
          Errors.UNSUPPORTED_VERSION.code,
          "Cluster doesn't support adding voter because the kraft.version feature is 0",
        ),
      );
    },
  );

  it('a leader with a high watermark answers RemoveRaftVoter with UNSUPPORTED_VERSION', async () => {
    const context = await leaderWithHighWatermark();
    expect(await answerHex(context, RaftApiKey.REMOVE_RAFT_VOTER, removeVoterRequest())).toBe(
      kafkaAddOrRemoveAnswer(
        Errors.UNSUPPORTED_VERSION.code,
        "Cluster doesn't support removing voter because the kraft.version feature is 0",
      ),
    );
  });

  it('a leader without a high watermark yet asks to retry with REQUEST_TIMED_OUT', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    await context.becomeLeader();
    const expected = kafkaAddOrRemoveAnswer(
      Errors.REQUEST_TIMED_OUT.code,
      'Request timed out waiting for leader to establish HWM and fence previous voter changes',
    );
    expect(await answerHex(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest())).toBe(expected);
    expect(await answerHex(context, RaftApiKey.REMOVE_RAFT_VOTER, removeVoterRequest())).toBe(expected);
  });

  it('a non-leader answers NOT_LEADER_OR_FOLLOWER with an empty message', async () => {
    const context = await followerOfNodeOne();
    const expected = kafkaAddOrRemoveAnswer(Errors.NOT_LEADER_OR_FOLLOWER.code, '');
    expect(await answerHex(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest())).toBe(expected);
    expect(await answerHex(context, RaftApiKey.REMOVE_RAFT_VOTER, removeVoterRequest())).toBe(expected);
  });

  it('a foreign cluster id is INCONSISTENT_CLUSTER_ID, with both ids in the message', async () => {
    const context = await RaftClientTestContext.builder(0, [0]).withClusterId('ours').build();
    await context.pollUntil(() => context.client.highWatermark() !== undefined);
    const message = 'The given id "theirs" doesn\'t match the cluster id "ours"';
    const expected = kafkaAddOrRemoveAnswer(Errors.INCONSISTENT_CLUSTER_ID.code, message);
    const request = { clusterId: 'theirs' };
    expect(await answerHex(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest(request))).toBe(expected);
    expect(await answerHex(context, RaftApiKey.REMOVE_RAFT_VOTER, removeVoterRequest(request))).toBe(
      expected,
    );
  });

  it('a voter without a directory id is INVALID_REQUEST', async () => {
    const context = await leaderWithHighWatermark();
    const request = { voterDirectoryId: Uuid.ZERO };
    expect(await answerHex(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest(request))).toBe(
      kafkaAddOrRemoveAnswer(Errors.INVALID_REQUEST.code, "Add voter request didn't include a valid voter"),
    );
    expect(await answerHex(context, RaftApiKey.REMOVE_RAFT_VOTER, removeVoterRequest(request))).toBe(
      kafkaAddOrRemoveAnswer(
        Errors.INVALID_REQUEST.code,
        "Remove voter request didn't include a valid voter",
      ),
    );
  });

  it('a new voter without the default listener is INVALID_REQUEST, naming its endpoints as Java prints them', async () => {
    const context = await leaderWithHighWatermark();
    const listeners = [
      { name: 'SSL', host: 'h2', port: 2 },
      { name: 'plain', host: 'h1', port: 1 },
    ];
    // Java's HashMap of two entries has 4 buckets: "PLAIN".hashCode() = 76210602 lands in bucket
    // 0, "SSL".hashCode() = 82412 in bucket 1, so PLAIN prints first whatever the request order.
    expect(await answerHex(context, RaftApiKey.ADD_RAFT_VOTER, addVoterRequest({ listeners }))).toBe(
      kafkaAddOrRemoveAnswer(
        Errors.INVALID_REQUEST.code,
        "Add voter request didn't include the endpoint (Endpoints(endpoints={ListenerName(PLAIN)=h1/<unresolved>:1, " +
          'ListenerName(SSL)=h2/<unresolved>:2})) for the default listener ListenerName(CONTROLLER)',
      ),
    );
  });
});

describe('UpdateRaftVoter answered as Kafka at kraft.version 0', () => {
  it('a leader with a high watermark answers UNSUPPORTED_VERSION, which a Java follower takes as done', async () => {
    const context = await leaderWithHighWatermark();
    const { epoch } = context.client.leaderAndEpoch();
    expect(await answerHex(context, RaftApiKey.UPDATE_RAFT_VOTER, updateVoterRequest(epoch))).toBe(
      kafkaUpdateAnswer(Errors.UNSUPPORTED_VERSION.code, thisNodeLeading(epoch)),
    );
  });

  it('a leader without a high watermark answers REQUEST_TIMED_OUT', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).build();
    const epoch = await context.becomeLeader();
    expect(await answerHex(context, RaftApiKey.UPDATE_RAFT_VOTER, updateVoterRequest(epoch))).toBe(
      kafkaUpdateAnswer(Errors.REQUEST_TIMED_OUT.code, thisNodeLeading(epoch)),
    );
  });

  it('a follower answers NOT_LEADER_OR_FOLLOWER naming the leader and its endpoint', async () => {
    const context = await followerOfNodeOne();
    expect(await answerHex(context, RaftApiKey.UPDATE_RAFT_VOTER, updateVoterRequest(3))).toBe(
      kafkaUpdateAnswer(Errors.NOT_LEADER_OR_FOLLOWER.code, {
        leaderId: 1,
        leaderEpoch: 3,
        host: '10.0.0.1',
        port: 19093,
      }),
    );
  });

  it('an older epoch is FENCED_LEADER_EPOCH and a newer one UNKNOWN_LEADER_EPOCH', async () => {
    const context = await followerOfNodeOne();
    const leader = { leaderId: 1, leaderEpoch: 3, host: '10.0.0.1', port: 19093 };
    expect(await answerHex(context, RaftApiKey.UPDATE_RAFT_VOTER, updateVoterRequest(2))).toBe(
      kafkaUpdateAnswer(Errors.FENCED_LEADER_EPOCH.code, leader),
    );
    expect(await answerHex(context, RaftApiKey.UPDATE_RAFT_VOTER, updateVoterRequest(4))).toBe(
      kafkaUpdateAnswer(Errors.UNKNOWN_LEADER_EPOCH.code, leader),
    );
  });

  it('an unattached voter knows no leader: CurrentLeader keeps only the epoch', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withUnknownLeader(4).build();
    expect(await answerHex(context, RaftApiKey.UPDATE_RAFT_VOTER, updateVoterRequest(4))).toBe(
      kafkaUpdateAnswer(Errors.NOT_LEADER_OR_FOLLOWER.code, {
        leaderId: -1,
        leaderEpoch: 4,
        host: '',
        port: 0,
      }),
    );
  });

  it.each([
    ['no directory id', { voterDirectoryId: Uuid.ZERO }],
    [
      'an inverted kraft.version range',
      { kRaftVersionFeature: { minSupportedVersion: 1, maxSupportedVersion: 0 } },
    ],
    ['no default listener', { listeners: [{ name: 'OTHER', host: 'h', port: 1 }] }],
  ])('%s is INVALID_REQUEST', async (_case, overrides) => {
    const context = await leaderWithHighWatermark();
    const { epoch } = context.client.leaderAndEpoch();
    expect(await answerHex(context, RaftApiKey.UPDATE_RAFT_VOTER, updateVoterRequest(epoch, overrides))).toBe(
      kafkaUpdateAnswer(Errors.INVALID_REQUEST.code, thisNodeLeading(epoch)),
    );
  });

  it('a foreign cluster id is INCONSISTENT_CLUSTER_ID', async () => {
    const context = await RaftClientTestContext.builder(0, [0]).withClusterId('ours').build();
    await context.pollUntil(() => context.client.highWatermark() !== undefined);
    const { epoch } = context.client.leaderAndEpoch();
    const request = updateVoterRequest(epoch, { clusterId: 'theirs' });
    expect(await answerHex(context, RaftApiKey.UPDATE_RAFT_VOTER, request)).toBe(
      kafkaUpdateAnswer(Errors.INCONSISTENT_CLUSTER_ID.code, thisNodeLeading(epoch)),
    );
  });
});

describe('a request the core has no handler for', () => {
  it('is answered with UNKNOWN_SERVER_ERROR instead of holding the sender until its timeout', async () => {
    const context = await leaderWithHighWatermark();
    context.deliverRequest(ApiKeys.API_VERSIONS.key, ApiKeys.API_VERSIONS.request.defaults(), 2, 3);
    await context.poll();
    const sent = context.sentResponses(ApiKeys.API_VERSIONS.key);
    expect(sent.map((response) => (response.data as { errorCode: number }).errorCode)).toEqual([
      Errors.UNKNOWN_SERVER_ERROR.code,
    ]);
  });
});
