import { Uuid } from '@kraft/protocol';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { crc32cOracle } from '../test/helpers/crc32c-oracle.js';
import type { CompressionType } from './compression/compression-type.js';
import { initializeZstd } from './compression/zstd-codec.js';
import {
  buildControlBatch,
  buildKRaftVersionBatch,
  buildLeaderChangeBatch,
  buildVotersBatch,
} from './control-batch-builders.js';
import { ControlRecordType } from './control-records.js';
import { RecordBatchTooLargeError } from './errors/record-batch-too-large-error.js';
import type { MemoryRecords } from './memory-records.js';
import { MemoryRecordsBuilder, type RecordInput } from './memory-records-builder.js';
import type { RecordBatch } from './record-batch.js';
import { RecordsIterator } from './records-iterator.js';

beforeAll(async () => {
  await initializeZstd();
});

function onlyBatch(records: MemoryRecords): RecordBatch {
  const batches = [...records.batches()];
  expect(batches).toHaveLength(1);
  return batches[0] as RecordBatch;
}

describe('MemoryRecordsBuilder', () => {
  it('writes what KRaft writes by default: CreateTime, no compression, producer fields -1', () => {
    const builder = new MemoryRecordsBuilder({ baseOffset: 10, partitionLeaderEpoch: 4 });
    expect(builder.append({ timestamp: 5000, value: Buffer.from('a') })).toBe(10);
    expect(builder.append({ timestamp: 5000, value: Buffer.from('b') })).toBe(11);
    const batch = onlyBatch(builder.build());
    expect(batch.attributes).toBe(0);
    expect(batch.producerId).toBe(-1n);
    expect(batch.producerEpoch).toBe(-1);
    expect(batch.baseSequence).toBe(-1);
    expect(batch.baseTimestamp).toBe(5000);
    expect(batch.maxTimestamp).toBe(5000);
    expect(batch.lastOffset).toBe(11);
    expect(batch.checksum).toBe(crc32cOracle(batch.bytes.subarray(21)));
    expect(batch.records().map((record) => [record.offset, record.key, record.value?.toString()])).toEqual([
      [10, null, 'a'],
      [11, null, 'b'],
    ]);
  });

  it('sets every attribute and header field it is given', () => {
    const builder = new MemoryRecordsBuilder({
      baseOffset: 2 ** 40,
      partitionLeaderEpoch: 2,
      compression: 'gzip',
      timestampType: 'LogAppendTime',
      logAppendTime: 9_000,
      isTransactional: true,
      producerId: 77n,
      producerEpoch: 3,
      baseSequence: 12,
      deleteHorizonMs: 1_000,
    });
    builder.append({
      timestamp: 1_500,
      key: Buffer.from('k'),
      value: null,
      headers: [{ key: 'ü', value: null }],
    });
    builder.append({ timestamp: 1_200, value: Buffer.alloc(3) });
    const batch = onlyBatch(builder.build());
    expect(batch.isValid()).toBe(true);
    expect(batch.compressionType).toBe('gzip');
    expect(batch.timestampType).toBe('LogAppendTime');
    expect(batch.isTransactional).toBe(true);
    expect(batch.isControl).toBe(false);
    expect(batch.hasDeleteHorizon).toBe(true);
    expect(batch.deleteHorizonMs).toBe(1_000);
    expect(batch.maxTimestamp).toBe(9_000);
    expect(batch.producerId).toBe(77n);
    expect(batch.producerEpoch).toBe(3);
    expect(batch.baseSequence).toBe(12);
    expect(batch.baseOffset).toBe(2 ** 40);
    const records = batch.records();
    // LogAppendTime: every record reads the batch's append time.
    expect(records.map((record) => record.timestamp)).toEqual([9_000, 9_000]);
    expect(records[0]?.headers).toEqual([{ key: 'ü', value: null }]);
    expect(records[0]?.value).toBeNull();
    expect(records[0]?.key?.toString()).toBe('k');
  });

  it('keeps create-time deltas relative to the first record, negative ones included', () => {
    const builder = new MemoryRecordsBuilder();
    for (const timestamp of [1000, 900, 5000, 1000]) builder.append({ timestamp, value: null });
    const batch = onlyBatch(builder.build());
    expect(batch.baseTimestamp).toBe(1000);
    expect(batch.maxTimestamp).toBe(5000);
    expect(batch.records().map((record) => record.timestamp)).toEqual([1000, 900, 5000, 1000]);
  });

  it('enforces maxBatchSizeBytes exactly', () => {
    const record: RecordInput = { timestamp: 0, value: Buffer.alloc(100) };
    const builder = new MemoryRecordsBuilder({ maxBatchSizeBytes: 61 + 3 * 109 });
    // length varint 2 + attributes 1 + timestampDelta 1 + offsetDelta 1 + null key 1 + value length 2 + 100 + headers 1.
    expect(builder.bytesNeeded(record)).toBe(109);
    expect(builder.tryAppend(record)).toBe(true);
    expect(builder.tryAppend(record)).toBe(true);
    expect(builder.hasRoomFor(record)).toBe(true);
    builder.append(record);
    expect(builder.estimatedSizeInBytes()).toBe(61 + 3 * 109);
    expect(builder.hasRoomFor(record)).toBe(false);
    expect(builder.tryAppend(record)).toBe(false);
    expect(() => builder.append(record)).toThrow(RecordBatchTooLargeError);
    expect(builder.build().sizeInBytes()).toBe(61 + 3 * 109);
  });

  it('refuses a single record larger than the limit', () => {
    const builder = new MemoryRecordsBuilder({ maxBatchSizeBytes: 100 });
    expect(() => builder.append({ timestamp: 0, value: Buffer.alloc(100) })).toThrow(
      RecordBatchTooLargeError,
    );
  });

  it('builds empty records from an empty builder and refuses to build twice', () => {
    const builder = new MemoryRecordsBuilder();
    expect(builder.build().sizeInBytes()).toBe(0);
    expect(() => builder.build()).toThrow(/already built/);
  });

  it.each(['none', 'gzip', 'snappy', 'lz4', 'zstd'] as CompressionType[])(
    'round-trips arbitrary records with %s compression',
    (compression) => {
      const recordArbitrary = fc.record({
        timestamp: fc.integer({ min: 0, max: 2 ** 45 }),
        key: fc.option(
          fc.uint8Array({ maxLength: 30 }).map((bytes) => Buffer.from(bytes)),
          { nil: null },
        ),
        value: fc.option(
          fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
          { nil: null },
        ),
        headers: fc.array(
          fc.record({
            key: fc.string({ maxLength: 10 }),
            value: fc.option(
              fc.uint8Array({ maxLength: 20 }).map((bytes) => Buffer.from(bytes)),
              { nil: null },
            ),
          }),
          { maxLength: 3 },
        ),
      });
      fc.assert(
        fc.property(
          fc.array(recordArbitrary, { minLength: 1, maxLength: 30 }),
          fc.nat(2 ** 40),
          (inputs, baseOffset) => {
            const builder = new MemoryRecordsBuilder({ baseOffset, partitionLeaderEpoch: 1, compression });
            for (const input of inputs) builder.append(input);
            const [batch] = [...new RecordsIterator(builder.build())];
            expect(batch?.records).toEqual(
              inputs.map((input, index) => ({ ...input, offset: baseOffset + index })),
            );
            expect(batch?.lastOffset).toBe(baseOffset + inputs.length - 1);
          },
        ),
        { numRuns: 40 },
      );
    },
  );
});

describe('control batch builders', () => {
  const options = { baseOffset: 20, partitionLeaderEpoch: 5, timestamp: 1234 };
  const voters = {
    version: 0,
    voters: [
      {
        voterId: 1,
        voterDirectoryId: Uuid.fromString('b8tRS7h4TJ2Vt43Dp85v2A'),
        endpoints: [{ name: 'CONTROLLER', host: 'localhost', port: 9093 }],
        kRaftVersionFeature: { minSupportedVersion: 0, maxSupportedVersion: 1 },
      },
    ],
  };
  const leaderChange = {
    version: 0,
    leaderId: 1,
    voters: [
      { voterId: 1, voterDirectoryId: Uuid.ZERO },
      { voterId: 2, voterDirectoryId: Uuid.ZERO },
    ],
    grantingVoters: [{ voterId: 1, voterDirectoryId: Uuid.ZERO }],
  };

  it('writes a new leader epoch batch with LeaderChange, KRaftVersion and Voters in one control batch', () => {
    const records = buildControlBatch(options, [
      { type: ControlRecordType.LEADER_CHANGE, message: leaderChange },
      { type: ControlRecordType.KRAFT_VERSION, message: { version: 0, kRaftVersion: 1 } },
      { type: ControlRecordType.KRAFT_VOTERS, message: voters },
    ]);
    const batch = onlyBatch(records);
    expect(batch.isControl).toBe(true);
    expect(batch.attributes).toBe(0x20);
    expect(batch.partitionLeaderEpoch).toBe(5);
    const [decoded] = [...new RecordsIterator(records)];
    expect(decoded?.records).toEqual([]);
    expect(decoded?.controlRecords).toEqual([
      { type: ControlRecordType.LEADER_CHANGE, message: leaderChange, offset: 20, timestamp: 1234 },
      {
        type: ControlRecordType.KRAFT_VERSION,
        message: { version: 0, kRaftVersion: 1 },
        offset: 21,
        timestamp: 1234,
      },
      { type: ControlRecordType.KRAFT_VOTERS, message: voters, offset: 22, timestamp: 1234 },
    ]);
    // Keys are (version 0, type).
    expect(batch.records().map((record) => record.key?.toString('hex'))).toEqual([
      '00000002',
      '00000005',
      '00000006',
    ]);
  });

  it('has one builder per control type', () => {
    const types = [
      [buildLeaderChangeBatch(options, leaderChange), ControlRecordType.LEADER_CHANGE],
      [buildKRaftVersionBatch(options, { version: 0, kRaftVersion: 0 }), ControlRecordType.KRAFT_VERSION],
      [buildVotersBatch(options, voters), ControlRecordType.KRAFT_VOTERS],
    ] as const;
    for (const [records, type] of types) {
      const [decoded] = [...new RecordsIterator(records)];
      expect(decoded?.controlRecords.map((record) => record.type)).toEqual([type]);
    }
  });
});
