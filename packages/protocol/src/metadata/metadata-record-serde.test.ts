import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../errors/protocol-error.js';
import { UnsupportedVersionError } from '../errors/unsupported-version-error.js';
import { Uuid } from '../primitives/uuid.js';
import {
  type MetadataRecord,
  MetadataRecordType,
  readMetadataRecord,
  readMetadataRecordHeader,
  writeMetadataRecord,
} from './metadata-record-serde.js';

const FEATURE_LEVEL_VALUE = '010c00116d657461646174612e76657273696f6e001500';
const NO_OP_VALUE = '01140000';
// Vector A (kraft-formats.md §9): a data batch holding FeatureLevelRecord and NoOpRecord.
const VECTOR_A =
  '00000000000000050000005a0000000302fb65b0da0000000000010000018bcfe568000000018bcfe56800ffffffffffffffffffffffffffff000000023a000000012e010c00116d657461646174612e76657273696f6e001500001400000201080114000000';

describe('metadata record frame', () => {
  it('decodes and re-encodes FeatureLevelRecord("metadata.version", 21) v0', () => {
    const record = readMetadataRecord(Buffer.from(FEATURE_LEVEL_VALUE, 'hex'));
    expect(record).toEqual({
      recordType: MetadataRecordType.FEATURE_LEVEL_RECORD,
      version: 0,
      data: { name: 'metadata.version', featureLevel: 21 },
    });
    expect(writeMetadataRecord(record).toString('hex')).toBe(FEATURE_LEVEL_VALUE);
  });

  it('decodes and re-encodes NoOpRecord v0', () => {
    const record = readMetadataRecord(Buffer.from(NO_OP_VALUE, 'hex'));
    expect(record).toEqual({ recordType: 20, version: 0, data: {} });
    expect(writeMetadataRecord(record).toString('hex')).toBe(NO_OP_VALUE);
  });

  it('finds both record values inside the batch of vector A', () => {
    const batch = Buffer.from(VECTOR_A, 'hex');
    expect(batch.subarray(67, 67 + 23).toString('hex')).toBe(FEATURE_LEVEL_VALUE);
    expect(readMetadataRecord(batch.subarray(67, 67 + 23)).recordType).toBe(12);
    expect(readMetadataRecord(batch.subarray(batch.length - 5, batch.length - 1)).recordType).toBe(20);
  });

  it('round-trips topic, partition, broker, config and remove-topic records', () => {
    const topicId = Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A');
    const records: MetadataRecord[] = [
      { recordType: 2, version: 0, data: { name: 'events', topicId } },
      {
        recordType: 3,
        version: 2,
        data: {
          partitionId: 0,
          topicId,
          replicas: [1, 2, 3],
          isr: [1, 2],
          removingReplicas: [],
          addingReplicas: [],
          leader: 1,
          leaderRecoveryState: 0,
          leaderEpoch: 4,
          partitionEpoch: 7,
          directories: [Uuid.ZERO, topicId, Uuid.ZERO],
          eligibleLeaderReplicas: [3],
          lastKnownElr: null,
        },
      },
      {
        recordType: 4,
        version: 0,
        data: { resourceType: 2, resourceName: 'events', name: 'retention.ms', value: null },
      },
      { recordType: 9, version: 0, data: { topicId } },
    ];
    for (const record of records) {
      expect(readMetadataRecord(writeMetadataRecord(record))).toEqual(record);
    }
  });

  it('rejects frame version 0, unknown types and trailing bytes with typed errors', () => {
    expect(() => readMetadataRecord(Buffer.from('00140000', 'hex'))).toThrow(ProtocolError);
    expect(() => readMetadataRecord(Buffer.from('01630000', 'hex'))).toThrow(UnsupportedVersionError);
    expect(readMetadataRecordHeader(Buffer.from('01630000', 'hex'))).toMatchObject({
      recordType: 0x63,
      version: 0,
    });
    expect(() => readMetadataRecord(Buffer.from('0114000000', 'hex'))).toThrow(/left after/);
  });
});
