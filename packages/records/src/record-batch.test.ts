import { describe, expect, it } from 'vitest';
import {
  FEATURE_LEVEL_VALUE_HEX,
  hex,
  NO_OP_VALUE_HEX,
  TIMESTAMP_MS,
  VECTOR_A_HEX,
  VECTOR_C_FOOTER_HEX,
  VECTOR_C_HEADER_HEX,
} from '../test/helpers/vectors.js';
import { buildSnapshotFooterBatch, buildSnapshotHeaderBatch } from './control-batch-builders.js';
import { ControlRecordType } from './control-records.js';
import { CorruptRecordError } from './errors/corrupt-record-error.js';
import { MemoryRecords } from './memory-records.js';
import { MemoryRecordsBuilder } from './memory-records-builder.js';
import { RecordBatch } from './record-batch.js';
import { RecordsIterator } from './records-iterator.js';

describe('RecordBatch (kraft-formats.md §9 vector A)', () => {
  it('reads every header field of the data batch', () => {
    const batch = new RecordBatch(hex(VECTOR_A_HEX));
    expect(batch.baseOffset).toBe(5);
    expect(batch.batchLength).toBe(90);
    expect(batch.sizeInBytes).toBe(102);
    expect(batch.partitionLeaderEpoch).toBe(3);
    expect(batch.magic).toBe(2);
    expect(batch.checksum).toBe(0xfb65b0da);
    expect(batch.computeChecksum()).toBe(0xfb65b0da);
    expect(batch.attributes).toBe(0);
    expect(batch.compressionType).toBe('none');
    expect(batch.timestampType).toBe('CreateTime');
    expect(batch.isTransactional).toBe(false);
    expect(batch.isControl).toBe(false);
    expect(batch.hasDeleteHorizon).toBe(false);
    expect(batch.lastOffsetDelta).toBe(1);
    expect(batch.lastOffset).toBe(6);
    expect(batch.nextOffset).toBe(7);
    expect(batch.baseTimestamp).toBe(TIMESTAMP_MS);
    expect(batch.maxTimestamp).toBe(TIMESTAMP_MS);
    expect(batch.producerId).toBe(-1n);
    expect(batch.producerEpoch).toBe(-1);
    expect(batch.baseSequence).toBe(-1);
    expect(batch.recordCount).toBe(2);
    expect(batch.isValid()).toBe(true);
  });

  it('decodes both records', () => {
    const records = new RecordBatch(hex(VECTOR_A_HEX)).records();
    expect(records).toEqual([
      { offset: 5, timestamp: TIMESTAMP_MS, key: null, value: hex(FEATURE_LEVEL_VALUE_HEX), headers: [] },
      { offset: 6, timestamp: TIMESTAMP_MS, key: null, value: hex(NO_OP_VALUE_HEX), headers: [] },
    ]);
  });

  it('re-encodes byte-identically through MemoryRecordsBuilder', () => {
    const builder = new MemoryRecordsBuilder({ baseOffset: 5, partitionLeaderEpoch: 3 });
    builder.append({ timestamp: TIMESTAMP_MS, key: null, value: hex(FEATURE_LEVEL_VALUE_HEX) });
    builder.append({ timestamp: TIMESTAMP_MS, key: null, value: hex(NO_OP_VALUE_HEX) });
    expect(builder.build().buffer().toString('hex')).toBe(VECTOR_A_HEX);
  });

  it('detects a flipped bit through the CRC', () => {
    const bytes = hex(VECTOR_A_HEX);
    bytes[70] = (bytes[70] as number) ^ 0x01;
    const batch = new RecordBatch(bytes);
    expect(batch.isValid()).toBe(false);
    expect(() => batch.ensureValid()).toThrow(CorruptRecordError);
  });

  it('rewrites base offset and epoch in place without touching the CRC', () => {
    const batch = new RecordBatch(hex(VECTOR_A_HEX));
    batch.setBaseOffset(1000);
    batch.setPartitionLeaderEpoch(9);
    expect(batch.baseOffset).toBe(1000);
    expect(batch.lastOffset).toBe(1001);
    expect(batch.partitionLeaderEpoch).toBe(9);
    expect(batch.isValid()).toBe(true);
    expect(batch.records().map((record) => record.offset)).toEqual([1000, 1001]);
  });
});

describe('control batches (kraft-formats.md §9 vector C)', () => {
  const options = (baseOffset: number) => ({ baseOffset, partitionLeaderEpoch: 2, timestamp: TIMESTAMP_MS });

  it('builds the snapshot header batch byte-identically', () => {
    const records = buildSnapshotHeaderBatch(options(0), {
      version: 0,
      lastContainedLogTimestamp: BigInt(TIMESTAMP_MS),
    });
    expect(records.buffer().toString('hex')).toBe(VECTOR_C_HEADER_HEX);
  });

  it('builds the snapshot footer batch byte-identically', () => {
    expect(buildSnapshotFooterBatch(options(1), { version: 0 }).buffer().toString('hex')).toBe(
      VECTOR_C_FOOTER_HEX,
    );
  });

  it('decodes both batches through the iterator into control records', () => {
    const records = MemoryRecords.readableRecords(hex(VECTOR_C_HEADER_HEX + VECTOR_C_FOOTER_HEX));
    const batches = [...new RecordsIterator(records)];
    expect(batches).toHaveLength(2);
    const [header, footer] = batches;
    expect(header).toMatchObject({
      baseOffset: 0,
      lastOffset: 0,
      epoch: 2,
      isControl: true,
      records: [],
      sizeInBytes: 83,
    });
    expect(header?.controlRecords).toEqual([
      {
        type: ControlRecordType.SNAPSHOT_HEADER,
        message: { version: 0, lastContainedLogTimestamp: BigInt(TIMESTAMP_MS) },
        offset: 0,
        timestamp: TIMESTAMP_MS,
      },
    ]);
    expect(footer?.controlRecords).toEqual([
      {
        type: ControlRecordType.SNAPSHOT_FOOTER,
        message: { version: 0 },
        offset: 1,
        timestamp: TIMESTAMP_MS,
      },
    ]);
    expect(header?.appendTimestamp).toBe(TIMESTAMP_MS);
  });
});
