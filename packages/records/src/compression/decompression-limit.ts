import { RecordBatchTooLargeError } from '../errors/record-batch-too-large-error.js';

/** Throws unless `sizeInBytes` (declared or reached) stays within `maxOutputBytes`. */
export function checkDecompressedSize(codec: string, sizeInBytes: number, maxOutputBytes: number): void {
  if (sizeInBytes > maxOutputBytes) {
    throw new RecordBatchTooLargeError(
      `${codec} records inflate to at least ${sizeInBytes} bytes, over the ${maxOutputBytes}-byte decompression limit`,
      sizeInBytes,
      maxOutputBytes,
    );
  }
}
