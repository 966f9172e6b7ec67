import { CompressionError } from '../errors/compression-error.js';
import type { CompressionType } from './compression-type.js';
import { gzipCompress, gzipDecompress } from './gzip-codec.js';
import { lz4Compress, lz4Decompress } from './lz4-codec.js';
import { snappyCompress, snappyDecompress } from './snappy-codec.js';
import { zstdCompress, zstdDecompress } from './zstd-codec.js';

/** Compresses the records section of a batch with `type` (never 'none'). */
export function compressRecords(type: CompressionType, data: Uint8Array, level?: number): Buffer {
  switch (type) {
    case 'gzip':
      return gzipCompress(data, level);
    case 'snappy':
      return snappyCompress(data);
    case 'lz4':
      return lz4Compress(data);
    case 'zstd':
      return zstdCompress(data, level);
    case 'none':
      throw new CompressionError('compressRecords called for an uncompressed batch');
  }
}

/**
 * Inflates the records section of a batch, synchronously, refusing to produce more than
 * `maxOutputBytes` (typed `RecordBatchTooLargeError`); malformed input is a `CompressionError`.
 */
export function decompressRecords(type: CompressionType, data: Uint8Array, maxOutputBytes: number): Buffer {
  switch (type) {
    case 'gzip':
      return gzipDecompress(data, maxOutputBytes);
    case 'snappy':
      return snappyDecompress(data, maxOutputBytes);
    case 'lz4':
      return lz4Decompress(data, maxOutputBytes);
    case 'zstd':
      return zstdDecompress(data, maxOutputBytes);
    case 'none':
      throw new CompressionError('decompressRecords called for an uncompressed batch');
  }
}
