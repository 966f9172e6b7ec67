/**
 * The replicated topic option: Kafka's raft test server replicates `__raft_performance_test`
 * (topic id `Uuid(0, 2)`), and every RPC names it; requests for another topic are refused as
 * Kafka's RaftUtil checks do.
 */
import {
  type BeginQuorumEpochResponseData,
  Errors,
  type FetchRequestData,
  type FetchResponseData,
  type FetchSnapshotRequestData,
  type FetchSnapshotResponseData,
  Uuid,
  type VoteRequestData,
  type VoteResponseData,
} from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext } from '../test/kit/raft-client-test-context.js';
import { RaftApiKey } from './kafka-raft-client.js';
import { METADATA_TOPIC, type ReplicatedTopic } from './rpc/raft-messages.js';

const PERFORMANCE_TOPIC: ReplicatedTopic = {
  name: '__raft_performance_test',
  topicId: Uuid.fromLongs(0n, 2n),
};

async function performanceLeader(): Promise<{ context: RaftClientTestContext; epoch: number }> {
  const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withTopic(PERFORMANCE_TOPIC).build();
  const epoch = await context.becomeLeader();
  await context.poll();
  context.sentRequests(RaftApiKey.BEGIN_QUORUM_EPOCH);
  return { context, epoch };
}

describe('the replicated topic on the wire', () => {
  it('names the configured topic and topic id in the requests it sends', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withTopic(PERFORMANCE_TOPIC).build();
    context.sleep(RaftClientTestContext.ELECTION_TIMEOUT_MS * 2);
    await context.poll();
    const [vote] = context.sentRequests(RaftApiKey.VOTE);
    expect((vote!.data as VoteRequestData).topics.map((topic) => topic.topicName)).toEqual([
      '__raft_performance_test',
    ]);

    const follower = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withTopic(PERFORMANCE_TOPIC)
      .withElectedLeader(3, 1)
      .build();
    await follower.poll();
    const fetch = follower.assertSentFetchRequest({ epoch: 3, fetchOffset: 0, lastFetchedEpoch: 0 });
    const [topic] = (fetch.data as FetchRequestData).topics;
    expect(topic?.topic).toBe('__raft_performance_test');
    expect(topic?.topicId.toString()).toBe(PERFORMANCE_TOPIC.topicId.toString());
  });

  it('defaults to __cluster_metadata with topic id AAAAAAAAAAAAAAAAAAAAAQ', async () => {
    const follower = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(3, 1).build();
    await follower.poll();
    const fetch = follower.assertSentFetchRequest({ epoch: 3, fetchOffset: 0, lastFetchedEpoch: 0 });
    const [topic] = (fetch.data as FetchRequestData).topics;
    expect([topic?.topic, topic?.topicId.toString()]).toEqual([
      '__cluster_metadata',
      'AAAAAAAAAAAAAAAAAAAAAQ',
    ]);
  });

  it('answers a fetch for another topic INVALID_REQUEST, by id from v13 and by name before', async () => {
    const { context, epoch } = await performanceLeader();
    const request = context.fetchRequest({ epoch, replicaId: 1, fetchOffset: 0, lastFetchedEpoch: 0 });
    const [topic] = request.topics;
    context.deliverRequest(
      RaftApiKey.FETCH,
      { ...request, topics: [{ ...topic!, topicId: METADATA_TOPIC.topicId }] },
      1,
    );
    await context.poll();
    expect(context.singleSentResponse<FetchResponseData>(RaftApiKey.FETCH).errorCode).toBe(
      Errors.INVALID_REQUEST.code,
    );
    context.deliverRequest(
      RaftApiKey.FETCH,
      {
        ...request,
        replicaId: 1,
        replicaState: { replicaId: -1, replicaEpoch: -1n },
        topics: [{ ...topic!, topic: METADATA_TOPIC.name, topicId: Uuid.ZERO }],
      },
      1,
      12,
    );
    await context.poll();
    expect(context.singleSentResponse<FetchResponseData>(RaftApiKey.FETCH).errorCode).toBe(
      Errors.INVALID_REQUEST.code,
    );
    context.deliverRequest(RaftApiKey.FETCH, request, 1);
    await context.poll();
    context.assertSentFetchPartitionResponse({ epoch, leaderId: 0 });
  });

  it('answers a vote for another topic INVALID_REQUEST and DescribeQuorum UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withTopic(PERFORMANCE_TOPIC)
      .withUnknownLeader(2)
      .build();
    const vote = context.voteRequest({ epoch: 3, candidateId: 1, lastEpoch: 0, lastOffset: 0 });
    context.deliverRequest(
      RaftApiKey.VOTE,
      { ...vote, topics: vote.topics.map((topic) => ({ ...topic, topicName: METADATA_TOPIC.name })) },
      1,
    );
    await context.poll();
    expect(context.singleSentResponse<VoteResponseData>(RaftApiKey.VOTE).errorCode).toBe(
      Errors.INVALID_REQUEST.code,
    );
    context.assertUnknownLeader(2);
    context.deliverRequest(
      RaftApiKey.DESCRIBE_QUORUM,
      { topics: [{ topicName: METADATA_TOPIC.name, partitions: [{ partitionIndex: 0 }] }] },
      -1,
    );
    await context.poll();
    const describe = context.singleSentResponse<{ topics: { partitions: { errorCode: number }[] }[] }>(
      RaftApiKey.DESCRIBE_QUORUM,
    );
    expect(describe.topics[0]?.partitions[0]?.errorCode).toBe(Errors.UNKNOWN_TOPIC_OR_PARTITION.code);
  });

  it('answers a FetchSnapshot for another topic UNKNOWN_TOPIC_OR_PARTITION', async () => {
    const { context, epoch } = await performanceLeader();
    const request: FetchSnapshotRequestData = context.fetchSnapshotRequest({
      epoch,
      replicaId: 1,
      snapshotId: { offset: 1, epoch },
      position: 0,
    });
    context.deliverRequest(
      RaftApiKey.FETCH_SNAPSHOT,
      { ...request, topics: request.topics.map((topic) => ({ ...topic, name: METADATA_TOPIC.name })) },
      1,
    );
    await context.poll();
    const response = context.singleSentResponse<FetchSnapshotResponseData>(RaftApiKey.FETCH_SNAPSHOT);
    expect(response.errorCode).toBe(Errors.NONE.code);
    expect(response.topics[0]?.partitions[0]?.errorCode).toBe(Errors.UNKNOWN_TOPIC_OR_PARTITION.code);
  });

  it('ignores a response naming another topic', async () => {
    const context = await RaftClientTestContext.builder(0, [0, 1, 2])
      .withTopic(PERFORMANCE_TOPIC)
      .withElectedLeader(3, 1)
      .build();
    await context.poll();
    const fetch = context.assertSentFetchRequest({ epoch: 3, fetchOffset: 0, lastFetchedEpoch: 0 });
    const response = context.fetchResponse({ epoch: 4, leaderId: 2, highWatermark: 0 });
    context.deliverResponse(fetch, {
      ...response,
      responses: response.responses.map((topic) => ({ ...topic, topicId: METADATA_TOPIC.topicId })),
    });
    await context.poll();
    // A valid response would have moved us to epoch 4 under leader 2.
    context.assertElectedLeader(3, 1);
    const beginEpoch: BeginQuorumEpochResponseData = context.quorumEpochResponse(5, 2);
    expect(beginEpoch.topics[0]?.topicName).toBe('__raft_performance_test');
  });
});
