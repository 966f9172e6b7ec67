import { createRecordsBatch, Reader, readRecordsBatch } from '@platformatic/kafka';
import { beforeAll, describe, expect, it } from 'vitest';
import { KAFKAJS_COMPRESSION, kafkajs } from '../test/helpers/kafka-clients.js';
import type { CompressionType } from './compression/compression-type.js';
import { initializeZstd } from './compression/zstd-codec.js';
import { MemoryRecords } from './memory-records.js';
import { MemoryRecordsBuilder } from './memory-records-builder.js';
import { RecordBatch } from './record-batch.js';
import { RecordsIterator } from './records-iterator.js';

const TIMESTAMP = 1_700_000_000_000;
const values = Array.from({ length: 20 }, (_, index) => Buffer.from(`value-${index}-`.repeat(10 + index)));

beforeAll(async () => {
  await initializeZstd();
});

function ourBatch(compression: CompressionType): Buffer {
  const builder = new MemoryRecordsBuilder({ baseOffset: 42, partitionLeaderEpoch: 9, compression });
  values.forEach((value, index) => {
    builder.append({
      timestamp: TIMESTAMP + index,
      key: index % 2 === 0 ? Buffer.from(`key-${index}`) : null,
      value,
      headers: index % 3 === 0 ? [{ key: 'h', value: Buffer.from(`header-${index}`) }] : [],
    });
  });
  return builder.build().buffer();
}

describe('@platformatic/kafka 1.35.0 interop', () => {
  // platformatic writes raw snappy, and lz4 frames with uncompressed blocks. Its zstd needs
  // node:zlib zstd, which Node 20 lacks ("zstd is not supported in the current Node.js version").
  const theirCodecs: CompressionType[] = ['none', 'gzip', 'snappy', 'lz4'];

  it.each(theirCodecs)('decodes a %s batch platformatic encoded', (compression) => {
    const messages = values.map((value, index) => ({
      topic: 't',
      key: Buffer.from(`key-${index}`),
      value,
      headers: new Map([[Buffer.from('h'), Buffer.from(`header-${index}`)]]),
      timestamp: BigInt(TIMESTAMP + index),
    }));
    const bytes = createRecordsBatch(messages, { compression, partitionLeaderEpoch: 7 }).buffer;
    const batch = new RecordBatch(bytes);
    expect(batch.isValid()).toBe(true);
    expect(batch.compressionType).toBe(compression);
    expect(batch.partitionLeaderEpoch).toBe(7);
    const [decoded] = [...new RecordsIterator(MemoryRecords.readableRecords(bytes))];
    expect(
      decoded?.records.map((record) => [
        record.offset,
        record.timestamp,
        record.key?.toString(),
        record.value,
      ]),
    ).toEqual(values.map((value, index) => [index, TIMESTAMP + index, `key-${index}`, value]));
    expect(decoded?.records[3]?.headers).toEqual([{ key: 'h', value: Buffer.from('header-3') }]);
  });

  // Our snappy batches use Kafka's xerial framing, which platformatic cannot read (toolchain.md
  // §2.1), and its zstd is unavailable on Node 20.
  it.each(['none', 'gzip', 'lz4'] as const)('platformatic decodes a %s batch we encoded', (compression) => {
    const decoded = readRecordsBatch(Reader.from(ourBatch(compression)));
    expect(decoded.firstOffset).toBe(42n);
    expect(decoded.partitionLeaderEpoch).toBe(9);
    expect(decoded.magic).toBe(2);
    expect(decoded.lastOffsetDelta).toBe(values.length - 1);
    expect(decoded.maxTimestamp).toBe(BigInt(TIMESTAMP + values.length - 1));
    expect(
      decoded.records.map((record) => [
        record.offsetDelta,
        record.timestampDelta,
        record.key?.toString() ?? null,
        record.value,
      ]),
    ).toEqual(
      values.map((value, index) => [index, BigInt(index), index % 2 === 0 ? `key-${index}` : null, value]),
    );
    expect(decoded.records[3]?.headers).toEqual([[Buffer.from('h'), Buffer.from('header-3')]]);
  });
});

describe('kafkajs 2.2.4 interop', () => {
  it.each(['none', 'gzip'] as const)('decodes a %s batch kafkajs encoded', async (compression) => {
    const bytes = await kafkajs.encodeBatch({
      compression: KAFKAJS_COMPRESSION[compression],
      firstOffset: 42,
      firstTimestamp: TIMESTAMP,
      maxTimestamp: TIMESTAMP + values.length - 1,
      partitionLeaderEpoch: 9,
      lastOffsetDelta: values.length - 1,
      producerEpoch: 0,
      firstSequence: 0,
      records: values.map((value, index) =>
        kafkajs.record({
          offsetDelta: index,
          timestampDelta: index,
          key: Buffer.from(`key-${index}`),
          value,
          headers: { h: Buffer.from(`header-${index}`) },
        }),
      ),
    });
    const batch = new RecordBatch(bytes);
    expect(batch.isValid()).toBe(true);
    expect(batch.baseOffset).toBe(42);
    expect(batch.lastOffset).toBe(42 + values.length - 1);
    const [decoded] = [...new RecordsIterator(MemoryRecords.readableRecords(bytes))];
    expect(
      decoded?.records.map((record) => [
        record.offset,
        record.timestamp,
        record.key?.toString(),
        record.value,
      ]),
    ).toEqual(values.map((value, index) => [42 + index, TIMESTAMP + index, `key-${index}`, value]));
    expect(decoded?.records[5]?.headers).toEqual([{ key: 'h', value: Buffer.from('header-5') }]);
  });

  it.each(['none', 'gzip'] as const)('kafkajs decodes a %s batch we encoded', async (compression) => {
    const decoded = await kafkajs.decodeBatch(ourBatch(compression));
    expect(decoded.firstOffset).toBe('42');
    expect(decoded.partitionLeaderEpoch).toBe(9);
    expect(decoded.isControlBatch).toBe(false);
    expect(
      decoded.records.map((record) => [
        record.offset,
        record.timestamp,
        record.key?.toString() ?? null,
        record.value,
      ]),
    ).toEqual(
      values.map((value, index) => [
        String(42 + index),
        String(TIMESTAMP + index),
        index % 2 === 0 ? `key-${index}` : null,
        value,
      ]),
    );
    expect(decoded.records[3]?.headers).toEqual({ h: Buffer.from('header-3') });
  });

  it('sees our control batches as control batches', async () => {
    const builder = new MemoryRecordsBuilder({ baseOffset: 3, partitionLeaderEpoch: 2, isControl: true });
    builder.append({ timestamp: TIMESTAMP, key: Buffer.from([0, 0, 0, 4]), value: Buffer.from([0, 0, 0]) });
    const decoded = await kafkajs.decodeBatch(builder.build().buffer());
    expect(decoded.isControlBatch).toBe(true);
    expect(decoded.firstOffset).toBe('3');
  });
});
