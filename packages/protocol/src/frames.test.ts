import { describe, expect, it } from 'vitest';
import { KRaftError } from './errors/kraft-error.js';
import { ProtocolError } from './errors/protocol-error.js';
import { UnsupportedVersionError } from './errors/unsupported-version-error.js';
import {
  peekResponseCorrelationId,
  readFrameSize,
  readRequestFrame,
  readRequestHeader,
  readResponseFrame,
  writeRequestFrame,
  writeResponseFrame,
  writeResponseFrameChunks,
} from './frames.js';
import type { BeginQuorumEpochRequestData } from './messages/begin-quorum-epoch-request.js';
import type { BeginQuorumEpochResponseData } from './messages/begin-quorum-epoch-response.js';
import type { EndQuorumEpochRequestData } from './messages/end-quorum-epoch-request.js';
import type { FetchRequestData } from './messages/fetch-request.js';
import { VoteRequest, type VoteRequestData } from './messages/vote-request.js';
import type { VoteResponseData } from './messages/vote-response.js';
import { Uuid } from './primitives/uuid.js';

// Hex vectors from kraft-formats.md §9, computed by Kafka's own serializers.
const VECTOR_D_V1 =
  '000000830034000100000007000d726166742d636c69656e742d320017713153682d395f495369615f5a476334694e545542510000000102135f5f636c75737465725f6d657461646174610200000000000000050000000227c6803dc7cb42dd9baacd494ffacc816fcb514bb8784c9d95b78dc3a7ce6fd800000004000000000000002a000000';
const VECTOR_D_V0 =
  '0000005f0034000000000007000d726166742d636c69656e742d320017713153682d395f495369615f5a476334694e5455425102135f5f636c75737465725f6d657461646174610200000000000000050000000200000004000000000000002a000000';
const VECTOR_E_GRANTED =
  '0000002e0000000700000002135f5f636c75737465725f6d6574616461746102000000000000ffffffff0000000501000000';
const VECTOR_E_ENDPOINTS =
  '000000420000000700000002135f5f636c75737465725f6d6574616461746102000000000000000000020000000500000001001202000000020a6c6f63616c686f7374238500';
const VECTOR_F =
  '0000009e0001001100000008000d726166742d636c69656e742d3200000001f400000000008000000000000000ffffffff0200000000000000000000000000000001020000000000000005000000000000002b00000005ffffffffffffffff0000000001001027c6803dc7cb42dd9baacd494ffacc8100010102001717713153682d395f495369615f5a476334694e54554251010d00000002ffffffffffffffff00';
const VECTOR_G =
  '0000003a0012000400000000000d726166742d636c69656e742d3200126170616368652d6b61666b612d6a6176610f342e302e302d534e415053484f5400';
const VECTOR_J = '0000001a0000000000000300120000000400003400000001000000000000';
const VECTOR_H =
  '000000800035000100000009000d726166742d636c69656e742d310017713153682d395f495369615f5a476334694e545542510000000202135f5f636c75737465725f6d65746164617461020000000027c6803dc7cb42dd9baacd494ffacc8100000001000000050000020b434f4e54524f4c4c45520a6c6f63616c686f737423850000';
const VECTOR_L_BEGIN_V0 =
  '000000570035000000000009000d726166742d636c69656e742d310016713153682d395f495369615f5a476334694e545542510000000100125f5f636c75737465725f6d6574616461746100000001000000000000000100000005';
const VECTOR_L_BEGIN_RESPONSE_V0 =
  '000000300000000900000000000100125f5f636c75737465725f6d65746164617461000000010000000000000000000100000005';
const VECTOR_L_END_V1 =
  '00000082003600010000000b000d726166742d636c69656e742d310017713153682d395f495369615f5a476334694e5455425102135f5f636c75737465725f6d6574616461746102000000000000000100000005020000000227c6803dc7cb42dd9baacd494ffacc81000000020b434f4e54524f4c4c45520a6c6f63616c686f737423850000';

const CLUSTER_ID = 'q1Sh-9_ISia_ZGc4iNTUBQ';
const DIRECTORY_B8TR = Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A');
const DIRECTORY_J8AA = Uuid.fromString('J8aAPcfLQt2bqs1JT_rMgQ');
const METADATA_TOPIC = '__cluster_metadata';

const hex = (text: string): Buffer => Buffer.from(text, 'hex');

/** Decodes a request vector, checks it re-encodes to the same bytes, returns the decoded frame. */
function roundTripRequest(vector: string) {
  const decoded = readRequestFrame(hex(vector));
  const { header } = decoded;
  const rewritten = writeRequestFrame(
    {
      apiKey: header.requestApiKey,
      apiVersion: header.requestApiVersion,
      correlationId: header.correlationId,
      clientId: header.clientId,
    },
    decoded.data,
  );
  expect(rewritten.toString('hex')).toBe(vector);
  return decoded;
}

function roundTripResponse(vector: string, apiKey: number, apiVersion: number) {
  const decoded = readResponseFrame(hex(vector), apiKey, apiVersion);
  expect(writeResponseFrame(apiKey, apiVersion, decoded.correlationId, decoded.data).toString('hex')).toBe(
    vector,
  );
  return decoded;
}

describe('request and response frames (kraft-formats.md §9)', () => {
  it('D: VoteRequest v1 decodes to the documented values and re-encodes byte for byte', () => {
    const decoded = roundTripRequest(VECTOR_D_V1);
    expect(decoded.header).toEqual({
      requestApiKey: 52,
      requestApiVersion: 1,
      correlationId: 7,
      clientId: 'raft-client-2',
    });
    const data = decoded.data as VoteRequestData;
    expect(data.clusterId).toBe(CLUSTER_ID);
    expect(data.voterId).toBe(1);
    expect(data.topics).toHaveLength(1);
    expect(data.topics[0]?.topicName).toBe(METADATA_TOPIC);
    const partition = data.topics[0]?.partitions[0];
    expect(partition?.partitionIndex).toBe(0);
    expect(partition?.replicaEpoch).toBe(5);
    expect(partition?.replicaId).toBe(2);
    expect(partition?.replicaDirectoryId.equals(DIRECTORY_J8AA)).toBe(true);
    expect(partition?.voterDirectoryId.equals(DIRECTORY_B8TR)).toBe(true);
    expect(partition?.lastOffsetEpoch).toBe(4);
    expect(partition?.lastOffset).toBe(42n);
    expect(partition?.preVote).toBe(false);
  });

  it('D: the same VoteRequest at v0 drops the ignorable v1 fields', () => {
    const v1 = readRequestFrame(hex(VECTOR_D_V1)).data as VoteRequestData;
    const v0 = writeRequestFrame(
      { apiKey: 52, apiVersion: 0, correlationId: 7, clientId: 'raft-client-2' },
      v1,
    );
    expect(v0.toString('hex')).toBe(VECTOR_D_V0);
    const decoded = roundTripRequest(VECTOR_D_V0).data as VoteRequestData;
    expect(decoded.voterId).toBe(-1);
    expect(decoded.topics[0]?.partitions[0]?.replicaDirectoryId.equals(Uuid.ZERO)).toBe(true);
  });

  it('D: PreVote cannot be sent below v2', () => {
    const data = readRequestFrame(hex(VECTOR_D_V1)).data as VoteRequestData;
    const partition = data.topics[0]?.partitions[0];
    if (partition === undefined) throw new Error('vector has a partition');
    partition.preVote = true;
    expect(() => VoteRequest.write(data, 1)).toThrow(UnsupportedVersionError);
    expect(VoteRequest.read(VoteRequest.write(data, 2), 2)).toEqual(data);
  });

  it('E: VoteResponse v1, granted with the leader unknown', () => {
    const decoded = roundTripResponse(VECTOR_E_GRANTED, 52, 1);
    expect(decoded.correlationId).toBe(7);
    expect(decoded.data).toEqual({
      errorCode: 0,
      topics: [
        {
          topicName: METADATA_TOPIC,
          partitions: [{ partitionIndex: 0, errorCode: 0, leaderId: -1, leaderEpoch: 5, voteGranted: true }],
        },
      ],
      nodeEndpoints: [],
    } satisfies VoteResponseData);
  });

  it('E: VoteResponse v1, not granted, with tagged NodeEndpoints', () => {
    const data = roundTripResponse(VECTOR_E_ENDPOINTS, 52, 1).data as VoteResponseData;
    expect(data.topics[0]?.partitions[0]).toMatchObject({ leaderId: 2, leaderEpoch: 5, voteGranted: false });
    expect(data.nodeEndpoints).toEqual([{ nodeId: 2, host: 'localhost', port: 9093 }]);
  });

  it('F: FetchRequest v17 as the raft follower sends it', () => {
    const decoded = roundTripRequest(VECTOR_F);
    expect(decoded.header.requestApiVersion).toBe(17);
    expect(decoded.header.correlationId).toBe(8);
    const data = decoded.data as FetchRequestData;
    expect(data.clusterId).toBe(CLUSTER_ID);
    expect(data.replicaId).toBe(-1);
    expect(data.replicaState).toEqual({ replicaId: 2, replicaEpoch: -1n });
    expect(data).toMatchObject({
      maxWaitMs: 500,
      minBytes: 0,
      maxBytes: 8388608,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      forgottenTopicsData: [],
      rackId: '',
    });
    const topic = data.topics[0];
    expect(topic?.topicId.equals(Uuid.METADATA_TOPIC_ID)).toBe(true);
    expect(topic?.partitions[0]).toMatchObject({
      partition: 0,
      currentLeaderEpoch: 5,
      fetchOffset: 43n,
      lastFetchedEpoch: 5,
      logStartOffset: -1n,
      partitionMaxBytes: 0,
      highWatermark: 0x7fffffffffffffffn,
    });
    expect(topic?.partitions[0]?.replicaDirectoryId.equals(DIRECTORY_J8AA)).toBe(true);
  });

  it('G: ApiVersionsRequest v4 with header v2', () => {
    const decoded = roundTripRequest(VECTOR_G);
    expect(decoded.header).toMatchObject({ requestApiKey: 18, requestApiVersion: 4, correlationId: 0 });
    expect(decoded.data).toEqual({
      clientSoftwareName: 'apache-kafka-java',
      clientSoftwareVersion: '4.0.0-SNAPSHOT',
      clusterId: null,
      nodeId: -1,
    });
  });

  it('J: ApiVersionsResponse v4 uses response header v0', () => {
    const decoded = roundTripResponse(VECTOR_J, 18, 4);
    expect(decoded.correlationId).toBe(0);
    expect(decoded.data).toMatchObject({
      errorCode: 0,
      apiKeys: [
        { apiKey: 18, minVersion: 0, maxVersion: 4 },
        { apiKey: 52, minVersion: 0, maxVersion: 1 },
      ],
      throttleTimeMs: 0,
      finalizedFeaturesEpoch: -1n,
    });
  });

  it('H: BeginQuorumEpochRequest v1 with LeaderEndpoints', () => {
    const data = roundTripRequest(VECTOR_H).data as BeginQuorumEpochRequestData;
    expect(data.voterId).toBe(2);
    expect(data.topics[0]?.partitions[0]).toMatchObject({ partitionIndex: 0, leaderId: 1, leaderEpoch: 5 });
    expect(data.topics[0]?.partitions[0]?.voterDirectoryId.equals(DIRECTORY_J8AA)).toBe(true);
    expect(data.leaderEndpoints).toEqual([{ name: 'CONTROLLER', host: 'localhost', port: 9093 }]);
  });

  it('L: BeginQuorumEpochRequest v0 uses classic encodings and header v1', () => {
    const decoded = roundTripRequest(VECTOR_L_BEGIN_V0);
    const data = decoded.data as BeginQuorumEpochRequestData;
    expect(decoded.header.clientId).toBe('raft-client-1');
    expect(data.clusterId).toBe(CLUSTER_ID);
    expect(data.topics[0]?.partitions[0]).toMatchObject({ partitionIndex: 0, leaderId: 1, leaderEpoch: 5 });
  });

  it('L: BeginQuorumEpochResponse v0 uses response header v0', () => {
    const decoded = roundTripResponse(VECTOR_L_BEGIN_RESPONSE_V0, 53, 0);
    expect(decoded.correlationId).toBe(9);
    const data = decoded.data as BeginQuorumEpochResponseData;
    expect(data.topics[0]?.partitions[0]).toEqual({
      partitionIndex: 0,
      errorCode: 0,
      leaderId: 1,
      leaderEpoch: 5,
    });
  });

  it('L: EndQuorumEpochRequest v1 with PreferredCandidates', () => {
    const data = roundTripRequest(VECTOR_L_END_V1).data as EndQuorumEpochRequestData;
    const partition = data.topics[0]?.partitions[0];
    expect(partition).toMatchObject({
      partitionIndex: 0,
      leaderId: 1,
      leaderEpoch: 5,
      preferredSuccessors: [],
    });
    expect(partition?.preferredCandidates[0]?.candidateId).toBe(2);
    expect(partition?.preferredCandidates[0]?.candidateDirectoryId.equals(DIRECTORY_J8AA)).toBe(true);
  });
});

describe('frame helpers', () => {
  it('reads the size prefix of a stream only once 4 bytes are there', () => {
    expect(readFrameSize(hex('000000'))).toBeUndefined();
    expect(readFrameSize(hex('0000002a00'))).toBe(42);
    expect(() => readFrameSize(hex('ffffffff'))).toThrow(ProtocolError);
    expect(() => readFrameSize(hex('00010000'), 0, 1024)).toThrow(/outside/);
  });

  it('peeks a response correlation id before decoding the body', () => {
    expect(peekResponseCorrelationId(hex(VECTOR_E_GRANTED))).toBe(7);
  });

  it('reads the header of a request whose version the API lacks, so it can be refused', () => {
    const frame = hex(VECTOR_G);
    frame.writeInt16BE(9, 6); // ApiVersions v9: flexible, so header v2 still parses
    const { header } = readRequestHeader(frame);
    expect(header).toMatchObject({ requestApiKey: 18, requestApiVersion: 9, clientId: 'raft-client-2' });
    expect(() => readRequestFrame(frame)).toThrow(UnsupportedVersionError);
  });

  it('rejects a frame whose size prefix lies', () => {
    const frame = hex(VECTOR_G);
    expect(() => readRequestFrame(frame.subarray(0, frame.length - 1))).toThrow(ProtocolError);
  });

  it('rejects unknown api keys with a typed error', () => {
    expect(() => readRequestHeader(hex('0000000a7fff0000000000010000'))).toThrow(UnsupportedVersionError);
  });
});

describe('zero-copy response frames', () => {
  it('references large record batches instead of copying them, and matches the copying encoder', () => {
    const records = Buffer.alloc(64 * 1024, 3);
    const fetchData = {
      throttleTimeMs: 0,
      errorCode: 0,
      sessionId: 0,
      responses: [
        {
          topic: '',
          topicId: Uuid.METADATA_TOPIC_ID,
          partitions: [
            {
              partitionIndex: 0,
              errorCode: 0,
              highWatermark: 10n,
              lastStableOffset: -1n,
              logStartOffset: 0n,
              divergingEpoch: { epoch: -1, endOffset: -1n },
              currentLeader: { leaderId: 1, leaderEpoch: 5 },
              snapshotId: { endOffset: -1n, epoch: -1 },
              abortedTransactions: [],
              preferredReadReplica: -1,
              records,
            },
          ],
        },
      ],
      nodeEndpoints: [],
    };
    const chunks = writeResponseFrameChunks(1, 17, 8, fetchData);
    expect(chunks.some((chunk) => chunk === records)).toBe(true);
    const joined = Buffer.concat(chunks);
    expect(joined.equals(writeResponseFrame(1, 17, 8, fetchData))).toBe(true);
    expect(readFrameSize(joined)).toBe(joined.length - 4);
    const small = writeResponseFrameChunks(52, 1, 7, readResponseFrame(hex(VECTOR_E_GRANTED), 52, 1).data);
    expect(Buffer.concat(small).toString('hex')).toBe(VECTOR_E_GRANTED);
  });
});

describe('frame fuzz', () => {
  it('answers 10,000 truncated and mutated frames only with typed errors', () => {
    const requests = [
      VECTOR_D_V1,
      VECTOR_D_V0,
      VECTOR_F,
      VECTOR_G,
      VECTOR_H,
      VECTOR_L_BEGIN_V0,
      VECTOR_L_END_V1,
    ].map(hex);
    let state = 12345;
    const next = (limit: number) => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state % limit;
    };
    const savedStackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      for (let run = 0; run < 10_000; run += 1) {
        const frame = Buffer.from(requests[run % requests.length] as Buffer);
        for (let flips = 1 + next(3); flips > 0; flips -= 1) frame[next(frame.length)] = next(256);
        const mutated = run % 5 === 0 ? frame.subarray(0, next(frame.length)) : frame;
        try {
          readRequestFrame(mutated);
        } catch (error) {
          expect(KRaftError.isInstance(error)).toBe(true);
        }
      }
    } finally {
      Error.stackTraceLimit = savedStackTraceLimit;
    }
  });
});
