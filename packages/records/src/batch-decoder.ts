import type { Batch } from './batch.js';
import { type ControlRecord, decodeControlRecord } from './control-records.js';
import type { KafkaRecord } from './kafka-record.js';
import type { RecordBatch } from './record-batch.js';

export interface BatchDecodeOptions {
  readonly validateCrc: boolean;
  readonly maxDecompressedSizeBytes: number;
}

const NO_RECORDS: readonly KafkaRecord[] = Object.freeze([]);
const NO_CONTROL_RECORDS: readonly ControlRecord[] = Object.freeze([]);

/** Validates (optionally) and decodes one batch into the `Batch` the iterator yields. */
export function decodeBatch(batch: RecordBatch, options: BatchDecodeOptions): Batch {
  if (options.validateCrc) batch.ensureValid();
  const records = batch.records({ maxDecompressedSizeBytes: options.maxDecompressedSizeBytes });
  const isControl = batch.isControl;
  const controlRecords = isControl
    ? records.map((record) => decodeControlRecord(record, batch.position))
    : NO_CONTROL_RECORDS;
  return {
    baseOffset: batch.baseOffset,
    lastOffset: batch.lastOffset,
    epoch: batch.partitionLeaderEpoch,
    appendTimestamp: batch.maxTimestamp,
    sizeInBytes: batch.sizeInBytes,
    isControl,
    position: batch.position,
    records: isControl ? NO_RECORDS : records,
    controlRecords,
  };
}
