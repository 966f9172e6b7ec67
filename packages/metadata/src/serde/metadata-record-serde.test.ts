import { ByteWriter, UnsupportedVersionError, Uuid } from '@kraft/protocol';
import { MemoryRecords, RecordsIterator } from '@kraft/records';
import { describe, expect, it } from 'vitest';
import { MetadataParseError, type MetadataParseFailure } from '../errors/metadata-parse-error.js';
import { MetadataRecordType } from '../records/metadata-record-type.js';
import { PartitionRecord } from '../records/partition-record.js';
import { type ApiMessageAndVersion, apiMessageAndVersion } from './api-message-and-version.js';
import { MetadataRecordSerde } from './metadata-record-serde.js';

const serde = MetadataRecordSerde.INSTANCE;

// kraft-formats.md §4: FeatureLevelRecord("metadata.version", 21) v0 and NoOpRecord v0, framed.
const FEATURE_LEVEL_VALUE = '010c00116d657461646174612e76657273696f6e001500';
const NO_OP_VALUE = '01140000';
// Vector A (kraft-formats.md §9): a data batch holding FeatureLevelRecord and NoOpRecord.
const VECTOR_A =
  '00000000000000050000005a0000000302fb65b0da0000000000010000018bcfe568000000018bcfe56800ffffffffffffffffffffffffffff000000023a000000012e010c00116d657461646174612e76657273696f6e001500001400000201080114000000';

function parseFailureOf(hex: string): { failure: MetadataParseFailure; position: number } {
  try {
    serde.read(Buffer.from(hex, 'hex'));
  } catch (error) {
    if (!MetadataParseError.isMetadataParseError(error)) throw error;
    return { failure: error.failure, position: error.position };
  }
  throw new Error(`${hex} decoded`);
}

describe('MetadataRecordSerde', () => {
  it('decodes and re-encodes FeatureLevelRecord("metadata.version", 21) v0', () => {
    const record = serde.read(Buffer.from(FEATURE_LEVEL_VALUE, 'hex'));
    expect(record).toEqual({
      recordType: MetadataRecordType.FEATURE_LEVEL_RECORD,
      version: 0,
      data: { name: 'metadata.version', featureLevel: 21 },
    });
    expect(serde.serialize(record).toString('hex')).toBe(FEATURE_LEVEL_VALUE);
  });

  it('decodes and re-encodes NoOpRecord v0', () => {
    const record = serde.read(Buffer.from(NO_OP_VALUE, 'hex'));
    expect(record).toEqual({ recordType: MetadataRecordType.NO_OP_RECORD, version: 0, data: {} });
    expect(serde.serialize(record).toString('hex')).toBe(NO_OP_VALUE);
  });

  it('decodes the two records of vector A through the batch raft hands a listener', () => {
    const [batch] = new RecordsIterator(MemoryRecords.readableRecords(Buffer.from(VECTOR_A, 'hex')));
    const records = serde.readBatch(batch!);
    expect(records.map((record) => record.recordType)).toEqual([12, 20]);
  });

  it('names the offset of a record in a batch that does not decode', () => {
    const damaged = Buffer.from(VECTOR_A, 'hex');
    // The NoOpRecord's frame version (offset 6) becomes 2; the batch CRC is not checked here.
    damaged[damaged.length - 5] = 0x02;
    const [batch] = new RecordsIterator(MemoryRecords.readableRecords(damaged), { validateCrc: false });
    expect(() => serde.readBatch(batch!)).toThrow(
      'record at offset 6: metadata record frame version 2, only 1 is supported (at byte 0)',
    );
  });

  it('round-trips topic, partition, broker, config and remove-topic records', () => {
    const topicId = Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A');
    const records: ApiMessageAndVersion[] = [
      apiMessageAndVersion(MetadataRecordType.TOPIC_RECORD, 0, { name: 'events', topicId }),
      apiMessageAndVersion(MetadataRecordType.PARTITION_RECORD, 2, {
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
      }),
      apiMessageAndVersion(MetadataRecordType.CONFIG_RECORD, 0, {
        resourceType: 2,
        resourceName: 'events',
        name: 'retention.ms',
        value: null,
      }),
      apiMessageAndVersion(MetadataRecordType.REMOVE_TOPIC_RECORD, 0, { topicId }),
    ];
    for (const record of records) expect(serde.read(serde.serialize(record))).toEqual(record);
  });

  it('refuses frame version 0 and any frame version but 1', () => {
    expect(parseFailureOf('00140000')).toEqual({ failure: 'unknown-frame-version', position: 0 });
    expect(parseFailureOf('02140000')).toEqual({ failure: 'unknown-frame-version', position: 0 });
  });

  it('refuses record types no metadata record has, including the removed 6, 13 and 16', () => {
    for (const type of ['06', '0d', '10', '1e', '63']) {
      expect(parseFailureOf(`01${type}0000`)).toEqual({ failure: 'unknown-record-type', position: 3 });
    }
    expect(serde.readHeader(Buffer.from('01630000', 'hex'))).toEqual({
      frameVersion: 1,
      recordType: 0x63,
      version: 0,
      bodyOffset: 3,
    });
  });

  it('refuses a version the record type lacks', () => {
    expect(parseFailureOf('01140100')).toEqual({ failure: 'unsupported-version', position: 3 });
    expect(parseFailureOf('01030300')).toEqual({ failure: 'unsupported-version', position: 3 });
  });

  it('refuses frame fields above a Java short, as Kafka does', () => {
    // 0x8000 as an unsigned varint: 80 80 02.
    expect(parseFailureOf('0180800200')).toEqual({ failure: 'malformed', position: 1 });
  });

  it('reports a value cut anywhere as truncated, at the byte where it ran out', () => {
    const value = Buffer.from(FEATURE_LEVEL_VALUE, 'hex');
    for (let length = 0; length < value.length; length += 1) {
      const { failure } = parseFailureOf(value.subarray(0, length).toString('hex'));
      expect(failure, `cut at ${length}`).toBe('truncated');
    }
    // The int16 feature level starts at byte 20; one of its two bytes is left.
    expect(parseFailureOf(FEATURE_LEVEL_VALUE.slice(0, -4))).toEqual({ failure: 'truncated', position: 20 });
  });

  it('refuses bytes after the message', () => {
    expect(parseFailureOf(`${NO_OP_VALUE}00`)).toEqual({ failure: 'trailing-bytes', position: 4 });
  });

  it('refuses a malformed message body (null in a non-nullable string)', () => {
    // TopicRecord v0 whose name is compact-null (length varint 0).
    expect(parseFailureOf(`0102000000${'00'.repeat(16)}00`)).toMatchObject({ failure: 'malformed' });
  });

  it('refuses a declared length larger than the value before allocating for it', () => {
    // DelegationTokenRecord v0: owner "", requester "", renewers with 2^31 elements.
    const { failure } = parseFailureOf('010a00010108ffffffff07');
    expect(failure).toBe('truncated');
  });

  it('refuses to write an unknown type or a version the type lacks', () => {
    const unknown = { recordType: 6, version: 0, data: {} } as unknown as ApiMessageAndVersion;
    expect(() => serde.serialize(unknown)).toThrow(UnsupportedVersionError);
    const writer = new ByteWriter(8);
    expect(() => serde.writeTo(writer, apiMessageAndVersion(MetadataRecordType.NO_OP_RECORD, 1, {}))).toThrow(
      UnsupportedVersionError,
    );
    expect(writer.toBuffer().length).toBe(0);
  });
});

describe("MetadataRecordSerde as raft's RecordSerde", () => {
  const topicId = Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A');
  const topic = apiMessageAndVersion(MetadataRecordType.TOPIC_RECORD, 0, { name: 'events', topicId });
  const manyReplicas = Array.from({ length: 30_000 }, (_, index) => index);
  // 240 KB of replica ids: the sizing writer grows, and smaller records still come out right.
  const large = apiMessageAndVersion(
    MetadataRecordType.PARTITION_RECORD,
    0,
    PartitionRecord.defaults({ topicId, replicas: manyReplicas, isr: manyReplicas }),
  );
  const noOp = apiMessageAndVersion(MetadataRecordType.NO_OP_RECORD, 0, {});

  it('sizes, then writes at an offset the same bytes as serialize, returning their count', () => {
    const target = Buffer.alloc(64, 0xee);
    const size = serde.recordSize(topic);
    expect(size).toBe(serde.serialize(topic).length);
    expect(serde.write(topic, target, 5)).toBe(size);
    expect(target.subarray(5, 5 + size).equals(serde.serialize(topic))).toBe(true);
    expect(target[4]).toBe(0xee);
    expect(target[5 + size]).toBe(0xee);
  });

  it('writes the right bytes when another record was sized in between, or none was', () => {
    const target = Buffer.alloc(64);
    serde.recordSize(topic);
    expect(serde.recordSize(noOp)).toBe(4);
    expect(serde.write(topic, target, 0)).toBe(serde.serialize(topic).length);
    expect(target.subarray(0, serde.serialize(topic).length).equals(serde.serialize(topic))).toBe(true);
    expect(serde.write(noOp, target, 0)).toBe(4);
    expect(target.subarray(0, 4).toString('hex')).toBe(NO_OP_VALUE);
  });

  it('stays right after a record larger than the sizing buffer keeps', () => {
    const target = Buffer.alloc(300_000);
    const size = serde.recordSize(large);
    expect(size).toBeGreaterThan(200_000);
    expect(serde.write(large, target, 0)).toBe(size);
    expect(serde.read(target.subarray(0, size))).toEqual(large);
    const topicSize = serde.recordSize(topic);
    serde.write(topic, target, 0);
    expect(serde.read(target.subarray(0, topicSize))).toEqual(topic);
  });

  it('lets go of a sizing buffer grown past 64 KiB once the large record is written', () => {
    const own = new MetadataRecordSerde();
    const capacity = () => own['sizingWriter'].capacityInBytes();
    own.write(topic, Buffer.alloc(64), 0);
    const small = capacity();
    const size = own.recordSize(large);
    expect(capacity()).toBeGreaterThan(64 * 1024);
    const target = Buffer.alloc(300_000);
    expect(own.write(large, target, 0)).toBe(size);
    expect(capacity()).toBe(small);
    expect(own.read(target.subarray(0, size))).toEqual(large);
  });

  it('refuses a target without room and writes nothing into it', () => {
    const size = serde.recordSize(topic);
    const target = Buffer.alloc(size + 2, 0xee);
    expect(() => serde.write(topic, target, 3)).toThrow(RangeError);
    expect(() => serde.write(topic, target, -1)).toThrow(RangeError);
    expect(target.every((byte) => byte === 0xee)).toBe(true);
    expect(serde.write(topic, target, 2)).toBe(size);
  });

  it('recovers after a record that cannot be encoded', () => {
    const badVersion = apiMessageAndVersion(MetadataRecordType.NO_OP_RECORD, 1, {});
    expect(() => serde.recordSize(badVersion)).toThrow(UnsupportedVersionError);
    const target = Buffer.alloc(4);
    expect(serde.write(noOp, target, 0)).toBe(4);
    expect(target.toString('hex')).toBe(NO_OP_VALUE);
  });
});

describe('unknown tagged fields in hand-built values', () => {
  const TOPIC_ID_HEX = '6fcb514bb8784c9d95b78dc3a7ce6fd8';
  const topicId = Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A');

  function roundTrip(hex: string): ApiMessageAndVersion {
    const value = Buffer.from(hex.replace(/\s+/g, ''), 'hex');
    const record = serde.read(value);
    expect(serde.serialize(record).toString('hex')).toBe(value.toString('hex'));
    return record;
  }

  it('keeps an unknown top-level tag of TopicRecord v0 and writes it back', () => {
    const record = roundTrip(`010200 04666f6f ${TOPIC_ID_HEX} 01 05 02 abcd`);
    expect(record.data).toEqual({
      name: 'foo',
      topicId,
      unknownTaggedFields: [{ tag: 5, data: Buffer.from('abcd', 'hex') }],
    });
  });

  it('merges known and unknown tags of PartitionRecord in tag order', () => {
    const body = `00000001 ${TOPIC_ID_HEX} 0200000001 0200000001 01 01 00000001 00000002 00000003`;
    // v2 adds Directories (an empty compact array, 01) inline. Tagged: leaderRecoveryState (tag 0)
    // = 1, the ELR (tag 1) = [4], tag 7 (no field has it) = empty.
    const v2 = roundTrip(`010302 ${body} 01 03 00 01 01 01 05 0200000004 07 00`);
    expect(v2.data).toMatchObject({
      leaderRecoveryState: 1,
      eligibleLeaderReplicas: [4],
      lastKnownElr: null,
    });
    expect((v2.data as { unknownTaggedFields: unknown }).unknownTaggedFields).toEqual([
      { tag: 7, data: Buffer.alloc(0) },
    ]);
  });

  it("refuses a tag the record gives a field at a later version (Kafka: 'Tag 1 is not valid for version 0')", () => {
    const body = `00000001 ${TOPIC_ID_HEX} 0200000001 0200000001 01 01 00000001 00000002 00000003`;
    const v0 = `010300 ${body} 01 01 05 0200000004`.replace(/\s+/g, '');
    expect(parseFailureOf(v0)).toMatchObject({ failure: 'malformed' });
    expect(() => serde.read(Buffer.from(v0, 'hex'))).toThrow('tag 1 is not valid for version 0');
  });

  it('keeps an unknown tag inside a nested struct (a RegisterBrokerRecord v0 endpoint)', () => {
    const endpoint = '0261 0268 2383 0000 01 09 01 ff';
    const record = roundTrip(`010000 00000001 ${TOPIC_ID_HEX} 0000000000000007 02 ${endpoint} 01 00 01 00`);
    expect(record.data).toMatchObject({
      brokerId: 1,
      brokerEpoch: 7n,
      rack: null,
      fenced: true,
      endPoints: [
        {
          name: 'a',
          host: 'h',
          port: 0x2383,
          securityProtocol: 0,
          unknownTaggedFields: [{ tag: 9, data: Buffer.from('ff', 'hex') }],
        },
      ],
    });
  });

  it('writes a tagged field only when it differs from its default (PartitionChangeRecord)', () => {
    const unchanged = apiMessageAndVersion(MetadataRecordType.PARTITION_CHANGE_RECORD, 0, {
      partitionId: 3,
      topicId,
      isr: null,
      leader: -2,
      replicas: null,
      removingReplicas: null,
      addingReplicas: null,
      leaderRecoveryState: -1,
      directories: null,
      eligibleLeaderReplicas: null,
      lastKnownElr: null,
    });
    expect(serde.serialize(unchanged).toString('hex')).toBe(
      `010500 00000003 ${TOPIC_ID_HEX} 00`.replace(/ /g, ''),
    );
    // An empty ISR is a change (not null), and a leader of -1 is "no leader", not the default -2.
    const changed = { ...unchanged, data: { ...unchanged.data, isr: [], leader: -1 } };
    expect(serde.serialize(changed).toString('hex')).toBe(
      `010500 00000003 ${TOPIC_ID_HEX} 02 00 01 01 01 04 ffffffff`.replace(/ /g, ''),
    );
  });
});
