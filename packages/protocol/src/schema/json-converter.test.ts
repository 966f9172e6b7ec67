import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../errors/protocol-error.js';
import { VoteRequest } from '../messages/vote-request.js';
import { Uuid } from '../primitives/uuid.js';
import { messageToJson, messageToJsonText } from './json-converter.js';

function voteRequest(lastOffset: bigint) {
  return VoteRequest.defaults({
    clusterId: 'q1Sh-9_ISia_ZGc4iNTUBQ',
    voterId: 1,
    topics: [
      {
        topicName: '__cluster_metadata',
        partitions: [
          {
            partitionIndex: 0,
            replicaEpoch: 5,
            replicaId: 2,
            replicaDirectoryId: Uuid.fromString('J8aAPcfLQt2bqs1JT_rMgQ'),
            voterDirectoryId: Uuid.ZERO,
            lastOffsetEpoch: 4,
            lastOffset,
            preVote: false,
          },
        ],
      },
    ],
  });
}

describe('messageToJsonText', () => {
  it('writes the same JSON as messageToJson when every int64 is a safe integer', () => {
    const data = voteRequest(42n);
    for (const version of [0, 1, 2]) {
      expect(messageToJsonText(VoteRequest, data, version)).toBe(
        JSON.stringify(messageToJson(VoteRequest, data, version)),
      );
    }
  });

  it('writes an int64 beyond a double exactly, where messageToJson refuses it', () => {
    const data = voteRequest(2n ** 62n);
    expect(() => messageToJson(VoteRequest, data, 2)).toThrow(ProtocolError);
    const text = messageToJsonText(VoteRequest, data, 2);
    expect(text).toContain('"lastOffset":4611686018427387904,');
    expect(messageToJsonText(VoteRequest, voteRequest(-(2n ** 63n)), 2)).toContain(
      '"lastOffset":-9223372036854775808,',
    );
  });
});
