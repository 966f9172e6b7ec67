import type { RecordBatch } from '@kraft/records';
import type { DecodedRecord } from './decoded-record.js';

/**
 * The text and JSON forms of a batch and its records. The text follows Kafka's DumpLogSegments
 * (`baseOffset: 0 lastOffset: 1 count: 2 ...`, then `| offset: ...` per record) so the two tools'
 * outputs read alike; the JSON form is one object per batch with its records inside.
 */
export interface BatchSummary {
  readonly baseOffset: number;
  readonly lastOffset: number;
  readonly count: number;
  readonly baseSequence: number;
  readonly lastSequence: number;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly partitionLeaderEpoch: number;
  readonly isTransactional: boolean;
  readonly isControl: boolean;
  readonly position: number;
  readonly maxTimestamp: number;
  readonly timestampType: string;
  readonly sizeInBytes: number;
  readonly magic: number;
  readonly compression: string;
  readonly crc: number;
  readonly crcValid: boolean;
}

export function summarizeBatch(batch: RecordBatch): BatchSummary {
  const baseSequence = batch.baseSequence;
  return {
    baseOffset: batch.baseOffset,
    lastOffset: batch.lastOffset,
    count: batch.recordCount,
    baseSequence,
    // Kafka: the sequence of the last record, or -1 for a batch without sequence numbers.
    lastSequence: baseSequence < 0 ? -1 : baseSequence + batch.lastOffsetDelta,
    producerId: batch.producerId,
    producerEpoch: batch.producerEpoch,
    partitionLeaderEpoch: batch.partitionLeaderEpoch,
    isTransactional: batch.isTransactional,
    isControl: batch.isControl,
    position: batch.position,
    maxTimestamp: batch.maxTimestamp,
    timestampType: batch.timestampType,
    sizeInBytes: batch.sizeInBytes,
    magic: batch.magic,
    compression: batch.compressionType,
    crc: batch.checksum,
    crcValid: batch.isValid(),
  };
}

export function batchText(batch: BatchSummary): string {
  return (
    `baseOffset: ${batch.baseOffset} lastOffset: ${batch.lastOffset} count: ${batch.count}` +
    ` baseSequence: ${batch.baseSequence} lastSequence: ${batch.lastSequence}` +
    ` producerId: ${batch.producerId} producerEpoch: ${batch.producerEpoch}` +
    ` partitionLeaderEpoch: ${batch.partitionLeaderEpoch} isTransactional: ${batch.isTransactional}` +
    ` isControl: ${batch.isControl} position: ${batch.position} ${batch.timestampType}: ${batch.maxTimestamp}` +
    ` size: ${batch.sizeInBytes} magic: ${batch.magic} compresscodec: ${batch.compression}` +
    ` crc: ${batch.crc} isvalid: ${batch.crcValid}`
  );
}

function sequenceOf(batch: BatchSummary, record: DecodedRecord): number {
  return batch.baseSequence < 0 ? -1 : batch.baseSequence + (record.offset - batch.baseOffset);
}

export function recordText(batch: BatchSummary, record: DecodedRecord): string {
  const what =
    record.control === undefined
      ? `payload: {"type":"${record.type}","version":${record.version},"data":${record.dataJson}}`
      : `${record.control}: ${record.dataJson}`;
  return (
    `| offset: ${record.offset} ${batch.timestampType}: ${record.timestamp} keySize: ${record.keySize}` +
    ` valueSize: ${record.valueSize} sequence: ${sequenceOf(batch, record)}` +
    ` headerKeys: [${record.headerKeys.join(',')}] ${what}`
  );
}

function recordJson(record: DecodedRecord): string {
  const kind =
    record.control === undefined
      ? `"type":${JSON.stringify(record.type)},"version":${record.version}`
      : `"control":${JSON.stringify(record.control)}`;
  return (
    `{"offset":${record.offset},"timestamp":${record.timestamp},"keySize":${record.keySize},` +
    `"valueSize":${record.valueSize},"headerKeys":${JSON.stringify(record.headerKeys)},${kind},` +
    `"data":${record.dataJson}}`
  );
}

export function batchJson(file: string, batch: BatchSummary, records: readonly DecodedRecord[]): string {
  const fields = Object.entries(batch).map(
    ([key, value]) =>
      `${JSON.stringify(key)}:${typeof value === 'bigint' ? value.toString() : JSON.stringify(value)}`,
  );
  return `{"file":${JSON.stringify(file)},${fields.join(',')},"records":[${records.map(recordJson).join(',')}]}`;
}
