import type { KafkaRecord } from './kafka-record.js';
import type { DecodeOptions } from './record-batch.js';
import { RecordBatch, RecordBatchHeader } from './record-batch.js';
import { LOG_OVERHEAD } from './record-batch-layout.js';

/** Reads `size` bytes at an absolute file position; supplied by the FileRecords that found the batch. */
export type BatchLoader = (filePosition: number, size: number) => Buffer;

/**
 * A batch found in a file (Kafka's FileChannelRecordBatch): its 61-byte header is in memory, the
 * rest is read from the file only when asked (`load()`, `ensureValid()`, `records()`), so scans
 * that only need offsets and positions (index rebuilds, searches) read 61 bytes per batch.
 * `position` is the batch's absolute position in the file.
 */
export class FileRecordBatch extends RecordBatchHeader {
  private readonly loader: BatchLoader;

  constructor(header: Buffer, filePosition: number, loader: BatchLoader) {
    super(header, filePosition);
    this.loader = loader;
  }

  get sizeInBytes(): number {
    return this.batchLength + LOG_OVERHEAD;
  }

  /** Reads the whole batch into its own buffer. */
  load(): RecordBatch {
    return new RecordBatch(this.loader(this.position, this.sizeInBytes), this.position);
  }

  /**
   * Reads the whole batch from the file and checks its length, magic and CRC-32C.
   *
   * @throws {@link FileSystemError} when the read fails (an invalid batch returns false).
   */
  isValid(): boolean {
    return this.load().isValid();
  }

  /**
   * Reads the whole batch from the file and checks its length, magic and CRC-32C.
   *
   * @throws {@link CorruptRecordError} naming the failed check, with the batch's file position.
   * @throws {@link FileSystemError} when the read fails.
   */
  ensureValid(): void {
    this.load().ensureValid();
  }

  /**
   * Reads the whole batch from the file and decodes its records (inflating a compressed batch
   * within `maxDecompressedSizeBytes`). Does not check the CRC; call `ensureValid()` for that.
   *
   * @throws {@link CorruptRecordError} when a record is malformed or the bytes do not inflate.
   * @throws {@link RecordBatchTooLargeError} when the records inflate beyond the bound.
   * @throws {@link FileSystemError} when the read fails.
   */
  records(options: DecodeOptions = {}): KafkaRecord[] {
    return this.load().records(options);
  }
}
