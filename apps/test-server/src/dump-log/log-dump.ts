import { basename } from 'node:path';
import { parseSegmentFileName, parseSnapshotFileName } from '@kraft/log';
import { MetadataParseError } from '@kraft/metadata';
import { KRaftError } from '@kraft/protocol';
import {
  CorruptRecordError,
  FileRecords,
  type FileSystem,
  type KafkaRecord,
  type RecordBatch,
} from '@kraft/records';
import { type BatchSummary, batchJson, batchText, recordText, summarizeBatch } from './batch-lines.js';
import { type DecodedRecord, decodeControl, decodeMetadata } from './decoded-record.js';
import type { DumpFormat } from './dump-log-command-line.js';
import { DumpLogError } from './dump-log-error.js';

export interface DumpFileOptions {
  readonly format: DumpFormat;
  readonly writeLine: (line: string) => void;
  readonly fileSystem?: FileSystem;
}

/** What the file name says the file is (Kafka prints it before the batches). */
function fileHeading(path: string): string {
  const name = basename(path);
  const baseOffset = parseSegmentFileName(name);
  if (baseOffset !== undefined) return `Log starting offset: ${baseOffset}`;
  const snapshot = parseSnapshotFileName(name);
  if (snapshot !== undefined) {
    return `Snapshot end offset: ${snapshot.snapshotId.offset}, epoch: ${snapshot.snapshotId.epoch}`;
  }
  return 'Not a segment or snapshot name: dumping its batches anyway';
}

/**
 * Where a record's value starts in the file, when its bytes are the file's own (an uncompressed
 * batch); undefined inside a compressed batch, whose values are inflated copies.
 */
function valuePosition(batch: RecordBatch, value: Buffer): number | undefined {
  if (batch.compressionType !== 'none' || value.buffer !== batch.bytes.buffer) return undefined;
  return batch.position + (value.byteOffset - batch.bytes.byteOffset);
}

function decodeRecord(path: string, batch: RecordBatch, record: KafkaRecord): DecodedRecord {
  if (batch.isControl) return decodeControl(record, batch.position);
  if (record.value === null) {
    throw new DumpLogError(path, batch.position, `metadata record at offset ${record.offset} has no value`);
  }
  try {
    return decodeMetadata(record, record.value);
  } catch (error) {
    if (!MetadataParseError.isMetadataParseError(error)) throw error;
    const start = valuePosition(batch, record.value);
    const where = start === undefined ? batch.position : start + error.position;
    const inCompressed = start === undefined ? ` (byte ${error.position} of its inflated value)` : '';
    throw new DumpLogError(
      path,
      where,
      `metadata record at offset ${record.offset}${inCompressed}: ${error.reason}`,
      {
        cause: error,
      },
    );
  }
}

function dumpBatch(path: string, batch: RecordBatch, options: DumpFileOptions): void {
  const summary: BatchSummary = summarizeBatch(batch);
  const writeText = options.format === 'text';
  if (writeText) options.writeLine(batchText(summary));
  if (!summary.crcValid) {
    throw new DumpLogError(
      path,
      batch.position,
      `batch at offset ${summary.baseOffset}: CRC ${summary.crc} does not match its bytes (${batch.computeChecksum()})`,
    );
  }
  const decoded: DecodedRecord[] = [];
  for (const record of batch.records()) {
    const one = decodeRecord(path, batch, record);
    if (writeText) options.writeLine(recordText(summary, one));
    else decoded.push(one);
  }
  if (!writeText) options.writeLine(batchJson(path, summary, decoded));
}

/** Any typed error of the layers below, as a DumpLogError naming the file and the byte. */
function asDumpLogError(path: string, error: unknown, position: number): unknown {
  if (DumpLogError.isDumpLogError(error)) return error;
  if (CorruptRecordError.isCorruptRecordError(error)) {
    return new DumpLogError(path, error.position, error.message, { cause: error });
  }
  if (KRaftError.isInstance(error)) return new DumpLogError(path, position, error.message, { cause: error });
  return error;
}

/**
 * Prints one segment or snapshot file batch by batch. Reads go through FileRecords, bounded by
 * the file's size: a batch is read only once its header shows it lies within the file, and a
 * partial batch or bytes after the last whole batch are an error naming their position.
 */
export function dumpLogFile(path: string, options: DumpFileOptions): void {
  if (options.format === 'text') {
    options.writeLine(`Dumping ${path}`);
    options.writeLine(fileHeading(path));
  }
  let records: FileRecords;
  try {
    records =
      options.fileSystem === undefined
        ? FileRecords.open(path, { mutable: false })
        : FileRecords.open(path, { mutable: false, fileSystem: options.fileSystem });
  } catch (error) {
    throw asDumpLogError(path, error, 0);
  }
  let position = 0;
  try {
    for (const header of records.batches()) {
      position = header.position;
      dumpBatch(path, header.load(), options);
      position = header.position + header.sizeInBytes;
    }
    const trailing = records.sizeInBytes() - position;
    if (trailing > 0) {
      throw new DumpLogError(
        path,
        position,
        `${trailing} bytes after the last whole batch (a partial batch or garbage)`,
      );
    }
  } catch (error) {
    throw asDumpLogError(path, error, position);
  } finally {
    records.close();
  }
}
