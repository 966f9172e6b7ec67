import { gunzipSync, gzipSync } from 'node:zlib';
import { CompressionError } from '../errors/compression-error.js';
import { checkDecompressedSize } from './decompression-limit.js';

export function gzipCompress(data: Uint8Array, level?: number): Buffer {
  return gzipSync(data, level === undefined ? {} : { level });
}

/**
 * zlib stops at `maxOutputLength` on its own (ERR_BUFFER_TOO_LARGE), so a gzip bomb never
 * allocates more than the limit. Concatenated gzip members are accepted, as Java's GZIPInputStream does.
 */
export function gzipDecompress(data: Uint8Array, maxOutputBytes: number): Buffer {
  try {
    return gunzipSync(data, { maxOutputLength: Math.max(1, maxOutputBytes) });
  } catch (error) {
    if (isBufferTooLarge(error)) checkDecompressedSize('gzip', maxOutputBytes + 1, maxOutputBytes);
    throw new CompressionError(`gzip: ${describe(error)}`, { cause: error });
  }
}

function isBufferTooLarge(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && 'code' in error && error.code === 'ERR_BUFFER_TOO_LARGE'
  );
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
