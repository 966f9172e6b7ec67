/** The codec of a batch, stored in attribute bits 0-2. */
export type CompressionType = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

/** Indexed by the attribute id; ids 5-7 are unassigned and make a batch corrupt. */
export const COMPRESSION_TYPES: readonly CompressionType[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd'];

export function compressionTypeForId(id: number): CompressionType | undefined {
  return COMPRESSION_TYPES[id];
}

export function compressionTypeId(type: CompressionType): number {
  return COMPRESSION_TYPES.indexOf(type);
}

/**
 * Default bound on the inflated records of one batch: KRaft's 8 MiB batch limit plus room for
 * record framing. A batch that would inflate beyond it is refused before memory is allocated.
 */
export const DEFAULT_MAX_DECOMPRESSED_SIZE_BYTES = 8 * 1024 * 1024 + 64 * 1024;
