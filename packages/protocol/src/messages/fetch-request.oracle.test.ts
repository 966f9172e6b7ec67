import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Uuid } from '../primitives/uuid.js';
import { FetchRequest, type FetchRequestData } from './fetch-request.js';

// kafkajs (an independent implementation) encodes Fetch v4-v11, the non-flexible versions the
// §9 vectors do not cover; both encoders must agree byte for byte on random requests.
const require = createRequire(import.meta.url);

interface KafkajsRequest {
  encode(): Promise<{ buffer: Buffer }>;
}
type KafkajsFetchRequest = (options: Record<string, unknown>) => KafkajsRequest;

function kafkajsFetch(version: number): KafkajsFetchRequest {
  return require(`kafkajs/src/protocol/requests/fetch/v${version}/request`) as KafkajsFetchRequest;
}

const int32 = fc.integer();
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const name = fc.string({ maxLength: 12 });

const partition = fc.record({
  partition: int32,
  currentLeaderEpoch: int32,
  fetchOffset: int64,
  logStartOffset: int64,
  partitionMaxBytes: int32,
});

const request = fc.record({
  replicaId: int32,
  maxWaitMs: int32,
  minBytes: int32,
  maxBytes: int32,
  isolationLevel: fc.integer({ min: 0, max: 1 }),
  sessionId: int32,
  sessionEpoch: int32,
  topics: fc.array(fc.record({ topic: name, partitions: fc.array(partition, { maxLength: 3 }) }), {
    maxLength: 3,
  }),
  forgotten: fc.array(fc.record({ topic: name, partitions: fc.array(int32, { maxLength: 3 }) }), {
    maxLength: 2,
  }),
  rackId: name,
});

type Generated = typeof request extends fc.Arbitrary<infer T> ? T : never;

function ours(generated: Generated, version: number): FetchRequestData {
  return FetchRequest.defaults({
    replicaId: generated.replicaId,
    maxWaitMs: generated.maxWaitMs,
    minBytes: generated.minBytes,
    maxBytes: generated.maxBytes,
    isolationLevel: generated.isolationLevel,
    sessionId: version >= 7 ? generated.sessionId : 0,
    sessionEpoch: version >= 7 ? generated.sessionEpoch : -1,
    topics: generated.topics.map((topic) => ({
      topic: topic.topic,
      topicId: Uuid.ZERO,
      partitions: topic.partitions.map((entry) => ({
        partition: entry.partition,
        currentLeaderEpoch: version >= 9 ? entry.currentLeaderEpoch : -1,
        fetchOffset: entry.fetchOffset,
        lastFetchedEpoch: -1,
        logStartOffset: version >= 5 ? entry.logStartOffset : -1n,
        partitionMaxBytes: entry.partitionMaxBytes,
        replicaDirectoryId: Uuid.ZERO,
        highWatermark: 0x7fffffffffffffffn,
      })),
    })),
    forgottenTopicsData:
      version >= 7
        ? generated.forgotten.map((topic) => ({
            topic: topic.topic,
            topicId: Uuid.ZERO,
            partitions: topic.partitions,
          }))
        : [],
    rackId: version >= 11 ? generated.rackId : '',
  });
}

function theirs(generated: Generated, version: number): KafkajsRequest {
  return kafkajsFetch(version)({
    replicaId: generated.replicaId,
    maxWaitTime: generated.maxWaitMs,
    minBytes: generated.minBytes,
    maxBytes: generated.maxBytes,
    isolationLevel: generated.isolationLevel,
    sessionId: generated.sessionId,
    sessionEpoch: generated.sessionEpoch,
    topics: generated.topics.map((topic) => ({
      topic: topic.topic,
      partitions: topic.partitions.map((entry) => ({
        partition: entry.partition,
        currentLeaderEpoch: entry.currentLeaderEpoch,
        fetchOffset: entry.fetchOffset.toString(),
        logStartOffset: entry.logStartOffset.toString(),
        maxBytes: entry.partitionMaxBytes,
      })),
    })),
    forgottenTopics: generated.forgotten,
    rackId: generated.rackId,
  });
}

describe('FetchRequest against kafkajs', () => {
  it.each([4, 5, 6, 7, 8, 9, 10, 11])('encodes v%i exactly as kafkajs does', async (version) => {
    await fc.assert(
      fc.asyncProperty(request, async (generated) => {
        const expected = (await theirs(generated, version).encode()).buffer;
        const actual = FetchRequest.write(ours(generated, version), version);
        expect(actual.toString('hex')).toBe(expected.toString('hex'));
        expect(FetchRequest.read(expected, version)).toEqual(ours(generated, version));
      }),
      { numRuns: 50 },
    );
  });
});
