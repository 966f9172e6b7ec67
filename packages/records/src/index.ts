export type { Batch } from './batch.js';
export { compressRecords, decompressRecords } from './compression/codecs.js';
export { type CompressionType, DEFAULT_MAX_DECOMPRESSED_SIZE_BYTES } from './compression/compression-type.js';
export { initializeZstd, isZstdEncoderReady } from './compression/zstd-codec.js';
export {
  buildControlBatch,
  buildKRaftVersionBatch,
  buildLeaderChangeBatch,
  buildSnapshotFooterBatch,
  buildSnapshotHeaderBatch,
  buildVotersBatch,
  type ControlBatchOptions,
} from './control-batch-builders.js';
export {
  type ControlRecord,
  type ControlRecordMessage,
  ControlRecordType,
  decodeControlRecord,
  encodeControlRecordKey,
  encodeControlRecordValue,
} from './control-records.js';
export { crc32c } from './crc32c.js';
export { CodecUnavailableError } from './errors/codec-unavailable-error.js';
export { CompressionError } from './errors/compression-error.js';
export { CorruptRecordError } from './errors/corrupt-record-error.js';
export { FileSystemError } from './errors/file-system-error.js';
export { IllegalArgumentError } from './errors/illegal-argument-error.js';
export { RecordBatchTooLargeError } from './errors/record-batch-too-large-error.js';
export { UnknownControlTypeError } from './errors/unknown-control-type-error.js';
export { FileRecordBatch } from './file-record-batch.js';
export {
  FileRecords,
  type FileRecordsOpenOptions,
  type LogOffsetPosition,
  type RecordsDestination,
} from './file-records.js';
export {
  FILE_SYSTEM_METHODS,
  type FileHandle,
  type FileLock,
  type FileSystem,
  type OpenOptions,
} from './fs/file-system.js';
export {
  type CrashMode,
  type CrashOptions,
  type FaultOperation,
  MemoryFileSystem,
} from './fs/memory-file-system.js';
export { NodeFileSystem } from './fs/node-file-system.js';
export type { KafkaRecord, RecordHeader } from './kafka-record.js';
export { MemoryRecords } from './memory-records.js';
export {
  MemoryRecordsBuilder,
  type MemoryRecordsBuilderOptions,
  type RecordInput,
} from './memory-records-builder.js';
export { type DecodeOptions, RecordBatch, RecordBatchHeader, type TimestampType } from './record-batch.js';
export {
  DEFAULT_MAX_BATCH_SIZE_BYTES,
  HEADER_SIZE_UP_TO_MAGIC,
  LOG_OVERHEAD,
  RECORD_BATCH_OVERHEAD,
} from './record-batch-layout.js';
export { type Records, RecordsIterator, type RecordsIteratorOptions } from './records-iterator.js';
export { recordsToBuffer } from './records-to-buffer.js';
