import type { Batch } from './batch.js';
import { type ControlRecord, decodeControlRecord } from './control-records.js';
import type { KafkaRecord } from './kafka-record.js';
import type { RecordBatch } from './record-batch.js';

export interface BatchDecodeOptions {
  readonly validateCrc: boolean;
  readonly maxDecompressedSizeBytes: number;
  /** False: a data batch comes back with no records, neither checked nor decoded. */
  readonly decodeDataRecords: boolean;
}

const NO_RECORDS: readonly KafkaRecord[] = Object.freeze([]);
const NO_CONTROL_RECORDS: readonly ControlRecord[] = Object.freeze([]);

/** Validates (optionally) and decodes one batch into the `Batch` the iterator yields. */
export function decodeBatch(batch: RecordBatch, options: BatchDecodeOptions): Batch {
  const isControl = batch.isControl;
  if (!isControl && !options.decodeDataRecords) return batchOf(batch, NO_RECORDS, NO_CONTROL_RECORDS);
  if (options.validateCrc) batch.ensureValid();
  const records = batch.records({ maxDecompressedSizeBytes: options.maxDecompressedSizeBytes });
  const controlRecords = isControl
    ? records.map((record) => decodeControlRecord(record, batch.position))
    : NO_CONTROL_RECORDS;
  return batchOf(batch, isControl ? NO_RECORDS : records, controlRecords);
}

function batchOf(
  batch: RecordBatch,
  records: readonly KafkaRecord[],
  controlRecords: readonly ControlRecord[],
): Batch {
  return {
    baseOffset: batch.baseOffset,
    lastOffset: batch.lastOffset,
    epoch: batch.partitionLeaderEpoch,
    appendTimestamp: batch.maxTimestamp,
    sizeInBytes: batch.sizeInBytes,
    isControl: batch.isControl,
    position: batch.position,
    records,
    controlRecords,
  };
}
