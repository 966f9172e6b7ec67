import { crc32c as nativeCrc32c } from '@node-rs/crc32';

/**
 * CRC-32C (Castagnoli) of `bytes`, optionally continuing from `previous`. Native (SSE4.2 or
 * PCLMULQDQ) through @node-rs/crc32: 7-12 GB/s on large inputs, one call per batch.
 */
export function crc32c(bytes: Uint8Array, previous?: number): number {
  return nativeCrc32c(bytes, previous) >>> 0;
}
