// DescribeQuorum answers compared byte for byte with what Kafka's KafkaRaftClient writes: the
// expected bytes are built field by field from Kafka's handleDescribeQuorumRequest,
// DescribeQuorumResponse.singletonErrorResponse, DescribeQuorumRequest.getPartitionLevelErrorResponse
// and RaftUtil.singletonDescribeQuorumResponse, whose generated data classes default a string to
// "" (not null) and every integer to 0.
import { ApiKeys, Errors, Uuid } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { RaftClientTestContext } from '../../test/kit/raft-client-test-context.js';
import { KafkaWireBytes } from '../../test/support/kafka-wire-bytes.js';
import { RaftApiKey } from '../rpc/raft-api-key.js';
import { METADATA_TOPIC_NAME } from '../rpc/raft-messages.js';

const VERSIONS = [0, 1, 2];

/** Delivers a DescribeQuorum at `apiVersion` and returns the one answer, encoded, as hex. */
async function answerHex(
  context: RaftClientTestContext,
  request: unknown,
  apiVersion: number,
): Promise<string> {
  context.deliverRequest(RaftApiKey.DESCRIBE_QUORUM, request, -1, apiVersion);
  await context.poll();
  const [sent, ...rest] = context.sentResponses(RaftApiKey.DESCRIBE_QUORUM);
  expect(rest).toEqual([]);
  return ApiKeys.DESCRIBE_QUORUM.response.write(sent!.data as never, apiVersion).toString('hex');
}

/** One partition answer carrying only an error, as Kafka's error builders leave it. */
function errorPartition(bytes: KafkaWireBytes, index: number, errorCode: number, version: number): void {
  bytes.int32(index).int16(errorCode);
  if (version >= 2) bytes.compactString(errorForCode(errorCode));
  bytes.int32(0).int32(0).int64(0); // leaderId, leaderEpoch, highWatermark: the data class defaults
  bytes.compactArrayLength(0).compactArrayLength(0).noTaggedFields();
}

function errorForCode(code: number): string {
  return code === Errors.NOT_LEADER_OR_FOLLOWER.code
    ? 'For requests intended only for the leader, this error indicates that the broker is not the current leader. For requests intended for any replica, this error indicates that the broker is not a replica of the topic partition.'
    : 'This server does not host this topic-partition.';
}

/** Kafka's partition-level error answer: one topic, an error entry per partition asked about. */
function kafkaErrorAnswerHex(
  version: number,
  topicName: string,
  indexes: number[],
  errorCode: number,
): string {
  return kafkaResponse(version, (bytes) => {
    bytes.compactArrayLength(1).compactString(topicName).compactArrayLength(indexes.length);
    for (const index of indexes) errorPartition(bytes, index, errorCode, version);
    bytes.noTaggedFields();
  }).toString('hex');
}

/** The response around `topics`: top-level error NONE with message "", then the v2 nodes (none by default). */
function kafkaResponse(
  version: number,
  writeTopics: (bytes: KafkaWireBytes) => void,
  writeNodes: (bytes: KafkaWireBytes) => void = (bytes) => bytes.compactArrayLength(0),
): Buffer {
  const bytes = new KafkaWireBytes().int16(0);
  if (version >= 2) bytes.compactString('');
  writeTopics(bytes);
  if (version >= 2) writeNodes(bytes);
  return bytes.noTaggedFields().bytes();
}

describe('DescribeQuorum answers byte for byte as Kafka', () => {
  it.each(VERSIONS)(
    'a non-leader answers NOT_LEADER_OR_FOLLOWER with zeros and Kafka text (v%i)',
    async (version) => {
      const context = await RaftClientTestContext.builder(0, [0, 1, 2]).withElectedLeader(2, 1).build();
      expect(await answerHex(context, context.describeQuorumRequest(), version)).toBe(
        kafkaErrorAnswerHex(version, METADATA_TOPIC_NAME, [0], Errors.NOT_LEADER_OR_FOLLOWER.code),
      );
    },
  );

  it.each(VERSIONS)(
    'an unknown partition echoes every requested partition with UNKNOWN_TOPIC_OR_PARTITION (v%i)',
    async (version) => {
      const context = await RaftClientTestContext.builder(0, [0]).build();
      const request = {
        topics: [{ topicName: 'other', partitions: [{ partitionIndex: 0 }, { partitionIndex: 3 }] }],
      };
      expect(await answerHex(context, request, version)).toBe(
        kafkaErrorAnswerHex(version, 'other', [0, 3], Errors.UNKNOWN_TOPIC_OR_PARTITION.code),
      );
    },
  );

  it.each(VERSIONS)(
    'the leader answers with empty error messages and reports itself as fetched and caught up now (v%i)',
    async (version) => {
      const context = await RaftClientTestContext.builder(0, [0]).build();
      await context.pollUntil(() => context.client.highWatermark() !== undefined);
      context.sleep(25);
      const nowMs = context.time.milliseconds();
      const answer = await answerHex(context, context.describeQuorumRequest(), version);
      const { epoch } = context.client.leaderAndEpoch();
      const endOffset = context.log.endOffset();
      const writeTopics = (bytes: KafkaWireBytes) => {
        bytes.compactArrayLength(1).compactString(METADATA_TOPIC_NAME).compactArrayLength(1);
        bytes.int32(0).int16(0);
        if (version >= 2) bytes.compactString('');
        bytes.int32(0).int32(epoch).int64(context.client.highWatermark()!);
        bytes.compactArrayLength(1).int32(0);
        if (version >= 2) bytes.uuid(Uuid.ZERO);
        bytes.int64(endOffset);
        if (version >= 1) bytes.int64(nowMs).int64(nowMs); // Kafka: the leader's timestamps are "now"
        bytes.noTaggedFields();
        bytes.compactArrayLength(0).noTaggedFields(); // observers
        bytes.noTaggedFields(); // topic
      };
      // Kafka lists a node for every voter, even one whose endpoints it does not know.
      const writeNodes = (bytes: KafkaWireBytes) =>
        bytes.compactArrayLength(1).int32(0).compactArrayLength(0).noTaggedFields();
      const expected = kafkaResponse(version, writeTopics, writeNodes);
      expect(answer).toBe(expected.toString('hex'));
    },
  );
});
