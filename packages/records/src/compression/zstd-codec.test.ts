import { describe, expect, it } from 'vitest';
import { CompressionError } from '../errors/compression-error.js';
import { MemoryRecordsBuilder } from '../memory-records-builder.js';
import { initializeZstd, isZstdEncoderReady, zstdCompress, zstdDecompress } from './zstd-codec.js';

// Vitest isolates test files, so the encoder starts uninitialised here.
describe('zstd encoder initialisation', () => {
  it('refuses to encode before initializeZstd() with a typed error, then works', async () => {
    expect(isZstdEncoderReady()).toBe(false);
    const builder = new MemoryRecordsBuilder({ compression: 'zstd' });
    builder.append({ timestamp: 0, value: Buffer.from('x') });
    expect(() => builder.build()).toThrow(CompressionError);
    await Promise.all([initializeZstd(), initializeZstd()]);
    expect(isZstdEncoderReady()).toBe(true);
    const data = Buffer.from('zstd '.repeat(1000));
    expect(zstdDecompress(zstdCompress(data), data.length).equals(data)).toBe(true);
  });
});
