import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../errors/protocol-error.js';
import { UnsupportedVersionError } from '../errors/unsupported-version-error.js';
import { EndQuorumEpochRequest } from '../messages/end-quorum-epoch-request.js';
import { FetchRequest } from '../messages/fetch-request.js';
import { FetchResponse } from '../messages/fetch-response.js';
import { FetchSnapshotRequest } from '../messages/fetch-snapshot-request.js';
import { QuorumStateData } from '../messages/quorum-state-data.js';
import { VoteRequest } from '../messages/vote-request.js';
import { VoteResponse } from '../messages/vote-response.js';
import { ByteWriter } from '../primitives/byte-writer.js';
import { Uuid } from '../primitives/uuid.js';
import { field, struct } from './field.js';
import type { FieldMap } from './field-declaration.js';
import { defineMessage } from './message-codec.js';

const hex = (text: string): Buffer => Buffer.from(text, 'hex');

describe('versioning rules', () => {
  it('fills absent fields with their schema defaults on read', () => {
    const data = FetchRequest.read(FetchRequest.write(FetchRequest.defaults(), 4), 4);
    expect(data).toMatchObject({
      clusterId: null,
      replicaId: -1,
      replicaState: { replicaId: -1, replicaEpoch: -1n },
      maxBytes: 0x7fffffff,
      sessionEpoch: -1,
      forgottenTopicsData: [],
      rackId: '',
    });
  });

  it('drops a non-default ignorable field at a version without it', () => {
    const data = VoteRequest.defaults({ voterId: 3 });
    expect(VoteRequest.read(VoteRequest.write(data, 0), 0).voterId).toBe(-1);
  });

  it('refuses a non-default non-ignorable field at a version without it', () => {
    const withReplicaId = FetchRequest.defaults({ replicaId: 2 });
    expect(() => FetchRequest.write(withReplicaId, 15)).toThrow(UnsupportedVersionError);
    expect(() => FetchRequest.write(withReplicaId, 14)).not.toThrow();
    const withReplicaState = FetchRequest.defaults({ replicaState: { replicaId: 2, replicaEpoch: -1n } });
    expect(() => FetchRequest.write(withReplicaState, 14)).toThrow(/replicaState/);
  });

  it('refuses a version outside the valid range', () => {
    expect(() => FetchRequest.write(FetchRequest.defaults(), 3)).toThrow(UnsupportedVersionError);
    expect(() => VoteRequest.read(hex('00'), 3)).toThrow(UnsupportedVersionError);
    expect(() => VoteRequest.read(hex('00'), -1)).toThrow(UnsupportedVersionError);
  });

  it('refuses null at a version where the field is not nullable', () => {
    const data = EndQuorumEpochRequest.defaults({
      topics: [{ topicName: null as unknown as string, partitions: [] }],
    });
    expect(() => EndQuorumEpochRequest.write(data, 1)).toThrow(UnsupportedVersionError);
  });

  it('defaults a nullable array without a null default to empty, and one with it to null', () => {
    expect(QuorumStateData.defaults().currentVoters).toEqual([]);
    const NullDefault = defineMessage({
      name: 'NullDefault',
      validVersions: '0',
      flexibleVersions: '0+',
      fields: { ids: field.array('int32', { versions: '0+', nullableVersions: '0+', default: null }) },
    });
    expect(NullDefault.defaults().ids).toBeNull();
    expect(FetchResponse.defaults().responses).toEqual([]);
    const nullVoters = QuorumStateData.defaults({ currentVoters: null });
    expect(QuorumStateData.read(QuorumStateData.write(nullVoters, 0), 0).currentVoters).toBeNull();
  });
});

describe('tagged fields', () => {
  it('writes a tagged field only when it differs from its default', () => {
    const plain = FetchSnapshotRequest.write(FetchSnapshotRequest.defaults(), 0);
    expect(plain.at(-1)).toBe(0); // empty tagged section
    const tagged = FetchSnapshotRequest.write(FetchSnapshotRequest.defaults({ clusterId: '' }), 0);
    expect(tagged.subarray(-4).toString('hex')).toBe('01000101'); // 1 field, tag 0, size 1, ""
  });

  it('keeps unknown tagged fields and writes them back merged in tag order', () => {
    // VoteResponse v1 body: error 0, no topics, tags: 0 (NodeEndpoints, empty list) and 7 (unknown).
    const body = hex('0000' + '01' + '02' + '000101' + '0703abcdef');
    const data = VoteResponse.read(body, 1);
    expect(data.unknownTaggedFields).toEqual([{ tag: 7, data: hex('abcdef') }]);
    expect(data.nodeEndpoints).toEqual([]);
    // NodeEndpoints is now empty, the default, so only the unknown tag is written back.
    expect(VoteResponse.write(data, 1).toString('hex')).toBe('0000010107' + '03abcdef');
    data.nodeEndpoints = [{ nodeId: 1, host: 'h', port: 1 }];
    const merged = VoteResponse.write(data, 1);
    expect(merged.toString('hex')).toBe('00000102' + '000a' + '020000000102680001' + '00' + '0703abcdef');
    expect(VoteResponse.read(merged, 1)).toEqual(data);
  });

  it("refuses a tag the struct gives a field at another version only, as Kafka's readers do", () => {
    // FetchRequest partition tag 1 (HighWatermark) exists only from v18.
    const data = FetchRequest.defaults({
      topics: [
        {
          topic: '',
          topicId: Uuid.ONE,
          partitions: [
            {
              partition: 0,
              currentLeaderEpoch: 1,
              fetchOffset: 0n,
              lastFetchedEpoch: 0,
              logStartOffset: -1n,
              partitionMaxBytes: 0,
              replicaDirectoryId: Uuid.ZERO,
              highWatermark: 10n,
            },
          ],
        },
      ],
    });
    const v18 = FetchRequest.write(data, 18);
    expect(() => FetchRequest.read(v18, 17)).toThrow('tag 1 is not valid for version 17');
    // Nor can such a tag be written back as an unknown one.
    const partition = { ...data.topics[0]!.partitions[0]!, highWatermark: 0x7fffffffffffffffn };
    partition.unknownTaggedFields = [{ tag: 1, data: hex('000000000000000a') }];
    const withRawTag = { ...data, topics: [{ ...data.topics[0]!, partitions: [partition] }] };
    expect(() => FetchRequest.write(withRawTag, 17)).toThrow(/tags the struct never declares/);
  });

  it('refuses a string over 0x7fff bytes in the compact encoding too, as Kafka does', () => {
    const long = 'x'.repeat(0x8000);
    expect(() => FetchSnapshotRequest.write(FetchSnapshotRequest.defaults({ clusterId: long }), 0)).toThrow(
      /32768 bytes exceeds 32767/,
    );
    const Named = defineMessage({
      name: 'Named',
      validVersions: '0',
      flexibleVersions: '0+',
      fields: { name: field.string({ versions: '0+' }) },
    });
    const atLimit = Named.write({ name: 'x'.repeat(0x7fff) }, 0);
    expect(Named.read(atLimit, 0).name).toHaveLength(0x7fff);
    // Compact length 0x8000 + 1 as an unsigned varint (81 80 02), 0x8000 bytes, no tags.
    const overLimit = Buffer.concat([hex('818002'), Buffer.alloc(0x8000, 0x78), hex('00')]);
    expect(() => Named.read(overLimit, 0)).toThrow(/32768 bytes exceeds 32767/);
  });

  it('rejects descending or duplicate tags and tagged fields with unread bytes', () => {
    expect(() => VoteResponse.read(hex('0000' + '01' + '02' + '0701ff' + '0301ff'), 1)).toThrow(
      /follows tag/,
    );
    expect(() => VoteResponse.read(hex('0000' + '01' + '02' + '0301ff' + '0301ff'), 1)).toThrow(
      ProtocolError,
    );
    expect(() => VoteResponse.read(hex('0000' + '01' + '01' + '000201ff'), 1)).toThrow(/unread bytes/);
  });

  it('rejects unknown tagged fields that collide with known tags on write', () => {
    const data = VoteResponse.defaults({ unknownTaggedFields: [{ tag: 0, data: hex('00') }] });
    expect(() => VoteResponse.write(data, 1)).toThrow(ProtocolError);
  });

  it('writes tagged payloads of 128 bytes and more with a multi-byte size', () => {
    const endpoints = Array.from({ length: 40 }, (_, nodeId) => ({
      nodeId,
      host: 'controller-host',
      port: 9093,
    }));
    const data = VoteResponse.defaults({ nodeEndpoints: endpoints });
    const bytes = VoteResponse.write(data, 1);
    expect(VoteResponse.read(bytes, 1)).toEqual(data);
    const many = Array.from({ length: 800 }, (_, nodeId) => ({
      nodeId,
      host: 'controller-host',
      port: 9093,
    }));
    const large = VoteResponse.defaults({ nodeEndpoints: many });
    expect(VoteResponse.read(VoteResponse.write(large, 1), 1)).toEqual(large);
  });
});

describe('hostile input', () => {
  it('rejects an array count that cannot fit before allocating it', () => {
    // VoteRequest v0: clusterId null, topics count 0x7ffffffe (compact), nothing after.
    expect(() => VoteRequest.read(hex('00' + 'feffffff07'), 0)).toThrow(/cannot fit/);
  });

  it('rejects over-long varints, negative lengths and truncation with the field path', () => {
    expect(() => VoteRequest.read(hex('ffffffffff0f'), 0)).toThrow(/over-long/);
    expect(() => EndQuorumEpochRequest.read(hex('fffe'), 0)).toThrow(/negative string length/);
    try {
      // One partition whose fixed fields are complete but whose tagged section is cut short.
      VoteRequest.read(
        hex('00' + '02' + '0261' + '02' + '00000000000000050000000200000004000000000000002a' + '01'),
        0,
      );
      expect.unreachable();
    } catch (error) {
      expect(ProtocolError.isProtocolError(error)).toBe(true);
      expect((error as ProtocolError).fieldPath).toBe('VoteRequest.topics[0].partitions[0]');
    }
  });

  it('rejects null in a non-nullable field and bytes left after the message', () => {
    expect(() => VoteRequest.read(hex('00' + '02' + '00' + '01' + '00' + '00'), 0)).toThrow(
      /non-nullable string/,
    );
    expect(() => VoteRequest.read(hex('000100ff'), 0)).toThrow(/left after/);
  });

  it('turns values a field cannot hold into a ProtocolError naming the field', () => {
    const data = VoteResponse.defaults({ nodeEndpoints: [{ nodeId: 1, host: 'h', port: 70_000 }] });
    try {
      VoteResponse.write(data, 1);
      expect.unreachable();
    } catch (error) {
      expect(ProtocolError.isProtocolError(error)).toBe(true);
      expect((error as ProtocolError).fieldPath).toBe('VoteResponse.nodeEndpoints[0].port');
    }
    const wrongType = VoteRequest.defaults({ voterId: 1n as unknown as number });
    expect(() => VoteRequest.write(wrongType, 1)).toThrow(/VoteRequest\.voterId/);
  });

  it('refuses a string longer than int16 allows, classic or compact (Kafka: "too long to be serialized")', () => {
    const data = EndQuorumEpochRequest.defaults({ clusterId: 'x'.repeat(40_000) });
    for (const version of [0, 1]) {
      expect(() => EndQuorumEpochRequest.write(data, version)).toThrow(
        /EndQuorumEpochRequest.clusterId: string of 40000 bytes/,
      );
    }
  });
});

describe('the DSL', () => {
  it('rejects declarations Kafka would reject', () => {
    const taggedWithoutTag = defineMessage({
      name: 'Broken',
      validVersions: '0',
      flexibleVersions: '0+',
      fields: { value: field.int32({ versions: '0+', taggedVersions: '0+' }) },
    });
    expect(() => taggedWithoutTag.write({ value: 1 }, 0)).toThrow(/no tag/);
    const duplicateTags = defineMessage({
      name: 'Broken',
      validVersions: '0',
      flexibleVersions: '0+',
      fields: {
        first: field.int32({ versions: '0+', taggedVersions: '0+', tag: 1 }),
        second: field.int32({ versions: '0+', taggedVersions: '0+', tag: 1 }),
      },
    });
    expect(() => duplicateTags.defaults() && duplicateTags.write(duplicateTags.defaults(), 0)).toThrow(
      /twice/,
    );
  });

  it('rejects an entity type on a field of the wrong type, and accepts it on the right one', () => {
    const declare = (fields: FieldMap) =>
      defineMessage({ name: 'Entities', validVersions: '0', flexibleVersions: '0+', fields });
    expect(() => declare({ id: field.int64({ versions: '0+', entityType: 'brokerId' }) }).planFor(0)).toThrow(
      /brokerId but holds int64/,
    );
    expect(() =>
      declare({ ids: field.array('string', { versions: '0+', entityType: 'brokerId' }) }).planFor(0),
    ).toThrow(/brokerId but holds string/);
    expect(() =>
      declare({ name: field.int32({ versions: '0+', entityType: 'topicName' }) }).planFor(0),
    ).toThrow(/topicName but holds int32/);
    const valid = declare({
      brokerIds: field.array('int32', { versions: '0+', entityType: 'brokerId' }),
      topic: field.string({ versions: '0+', entityType: 'topicName', mapKey: true }),
      producerId: field.int64({ versions: '0+', entityType: 'producerId' }),
    });
    const data = valid.defaults({ brokerIds: [1], topic: 't', producerId: 7n });
    // Entity types and map keys change no byte.
    expect(valid.write(data, 0).toString('hex')).toBe('02000000010274000000000000000700');
  });

  it('builds default-filled nested data', () => {
    const Inner = struct('Inner', { id: field.int32({ versions: '0+', default: -1 }) });
    const Outer = defineMessage({
      name: 'Outer',
      validVersions: '0-1',
      flexibleVersions: '1+',
      fields: {
        inner: field.struct(Inner, { versions: '0+' }),
        list: field.array(Inner, { versions: '1+' }),
      },
    });
    expect(Outer.defaults()).toEqual({ inner: { id: -1 }, list: [] });
    expect(Outer.read(Outer.write(Outer.defaults(), 0), 0)).toEqual({ inner: { id: -1 }, list: [] });
  });
});

describe('ByteWriter size prefixes', () => {
  it.each([0, 1, 127, 128, 16383, 16384, 70000])('moves a %i-byte payload behind its varint size', (size) => {
    const writer = new ByteWriter(16);
    writer.writeInt8(0x55);
    const start = writer.reserveSizePrefix();
    writer.writeRaw(Buffer.alloc(size, 0xab));
    writer.commitSizePrefix(start);
    writer.writeInt8(0x66);
    const bytes = writer.toBuffer();
    const reference = new ByteWriter()
      .writeInt8(0x55)
      .writeUnsignedVarint(size)
      .writeRaw(Buffer.alloc(size, 0xab));
    expect(bytes.equals(Buffer.concat([reference.writeInt8(0x66).toBuffer()]))).toBe(true);
  });
});
