// Encode/decode throughput of @kraft/protocol's schema codecs on the raft hot path (Vote, Fetch
// request and Fetch response headers, whole Fetch bodies and frames) and on metadata replay and
// snapshot load (PartitionRecord, the record a million-partition image is mostly made of).
import { PartitionRecord, type PartitionRecordData } from '@kraft/metadata';
import {
  FetchRequest,
  type FetchRequestData,
  FetchResponse,
  type FetchResponseData,
  RequestHeader,
  ResponseHeader,
  readRequestFrame,
  Uuid,
  VoteRequest,
  type VoteRequestData,
  writeRequestFrame,
} from '@kraft/protocol';
import { runSuite } from './bench-report.js';

const CLUSTER_ID = 'q1Sh-9_ISia_ZGc4iNTUBQ';
const DIRECTORY_ID = Uuid.fromString('J8aAPcfLQt2bqs1JT_rMgQ');

const voteRequest: VoteRequestData = VoteRequest.defaults({
  clusterId: CLUSTER_ID,
  voterId: 1,
  topics: [
    {
      topicName: '__cluster_metadata',
      partitions: [
        {
          partitionIndex: 0,
          replicaEpoch: 5,
          replicaId: 2,
          replicaDirectoryId: DIRECTORY_ID,
          voterDirectoryId: Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A'),
          lastOffsetEpoch: 4,
          lastOffset: 42n,
          preVote: false,
        },
      ],
    },
  ],
});

const fetchRequest: FetchRequestData = FetchRequest.defaults({
  clusterId: CLUSTER_ID,
  replicaState: { replicaId: 2, replicaEpoch: -1n },
  maxWaitMs: 500,
  minBytes: 0,
  maxBytes: 8 * 1024 * 1024,
  topics: [
    {
      topic: '',
      topicId: Uuid.METADATA_TOPIC_ID,
      partitions: [
        {
          partition: 0,
          currentLeaderEpoch: 5,
          fetchOffset: 43n,
          lastFetchedEpoch: 5,
          logStartOffset: -1n,
          partitionMaxBytes: 0,
          replicaDirectoryId: DIRECTORY_ID,
          highWatermark: 0x7fffffffffffffffn,
        },
      ],
    },
  ],
});

function fetchResponse(recordsBytes: number): FetchResponseData {
  return FetchResponse.defaults({
    responses: [
      {
        topic: '',
        topicId: Uuid.METADATA_TOPIC_ID,
        partitions: [
          {
            partitionIndex: 0,
            errorCode: 0,
            highWatermark: 1000n,
            lastStableOffset: -1n,
            logStartOffset: 0n,
            divergingEpoch: { epoch: -1, endOffset: -1n },
            currentLeader: { leaderId: 1, leaderEpoch: 5 },
            snapshotId: { endOffset: -1n, epoch: -1 },
            abortedTransactions: [],
            preferredReadReplica: -1,
            records: Buffer.alloc(recordsBytes, 7),
          },
        ],
      },
    ],
  });
}

const requestHeader = {
  requestApiKey: 52,
  requestApiVersion: 2,
  correlationId: 7,
  clientId: 'raft-client-2',
};
const fetchRequestHeader = {
  requestApiKey: 1,
  requestApiVersion: 17,
  correlationId: 8,
  clientId: 'raft-client-2',
};
const voteHeaderBytes = Buffer.from(RequestHeader.write(requestHeader, 2));
const fetchHeaderBytes = Buffer.from(RequestHeader.write(fetchRequestHeader, 2));
const responseHeaderBytes = Buffer.from(ResponseHeader.write({ correlationId: 8 }, 1));
const voteBytes = Buffer.from(VoteRequest.write(voteRequest, 2));
const fetchRequestBytes = Buffer.from(FetchRequest.write(fetchRequest, 17));
const smallResponse = fetchResponse(1024);
const largeResponse = fetchResponse(1024 * 1024);
const smallResponseBytes = Buffer.from(FetchResponse.write(smallResponse, 17));
const largeResponseBytes = Buffer.from(FetchResponse.write(largeResponse, 17));
const fetchFrameHeader = { apiKey: 1, apiVersion: 17, correlationId: 8, clientId: 'raft-client-2' };
const fetchFrame = Buffer.from(writeRequestFrame(fetchFrameHeader, fetchRequest));

const partitionRecord: PartitionRecordData = PartitionRecord.defaults({
  partitionId: 17,
  topicId: Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A'),
  replicas: [1, 2, 3],
  isr: [1, 2, 3],
  leader: 1,
  leaderEpoch: 4,
  partitionEpoch: 9,
  directories: [DIRECTORY_ID, DIRECTORY_ID, DIRECTORY_ID],
});
// Version 0 predates directories (KIP-858), so its record leaves them at the default.
const partitionRecordV0: PartitionRecordData = { ...partitionRecord, directories: [] };
const partitionRecordV0Bytes = Buffer.from(PartitionRecord.write(partitionRecordV0, 0));
const partitionRecordV2Bytes = Buffer.from(PartitionRecord.write(partitionRecord, 2));

await runSuite('protocol headers', {
  'Vote request header v2 encode': () => RequestHeader.write(requestHeader, 2),
  'Vote request header v2 decode': () => RequestHeader.read(voteHeaderBytes, 2),
  'Fetch request header v2 encode': () => RequestHeader.write(fetchRequestHeader, 2),
  'Fetch request header v2 decode': () => RequestHeader.read(fetchHeaderBytes, 2),
  'Fetch response header v1 encode': () => ResponseHeader.write({ correlationId: 8 }, 1),
  'Fetch response header v1 decode': () => ResponseHeader.read(responseHeaderBytes, 1),
});

await runSuite('protocol bodies', {
  'PartitionRecord v0 encode': () => PartitionRecord.write(partitionRecordV0, 0),
  'PartitionRecord v0 decode': () => PartitionRecord.read(partitionRecordV0Bytes, 0),
  'PartitionRecord v2 encode (3 directories)': () => PartitionRecord.write(partitionRecord, 2),
  'PartitionRecord v2 decode (3 directories)': () => PartitionRecord.read(partitionRecordV2Bytes, 2),
  'VoteRequest v2 encode': () => VoteRequest.write(voteRequest, 2),
  'VoteRequest v2 decode': () => VoteRequest.read(voteBytes, 2),
  'FetchRequest v17 encode': () => FetchRequest.write(fetchRequest, 17),
  'FetchRequest v17 decode': () => FetchRequest.read(fetchRequestBytes, 17),
  'FetchRequest v17 frame encode (header+body)': () => writeRequestFrame(fetchFrameHeader, fetchRequest),
  'FetchRequest v17 frame decode (header+body)': () => readRequestFrame(fetchFrame),
  'FetchResponse v17 encode (1 KiB records)': () => FetchResponse.write(smallResponse, 17),
  'FetchResponse v17 decode (1 KiB records)': () => FetchResponse.read(smallResponseBytes, 17),
  'FetchResponse v17 encode (1 MiB records)': () => FetchResponse.write(largeResponse, 17),
  'FetchResponse v17 encode chunks (1 MiB records, zero-copy)': () =>
    FetchResponse.writeChunks(largeResponse, 17),
  'FetchResponse v17 decode (1 MiB records, zero-copy)': () => FetchResponse.read(largeResponseBytes, 17),
});
