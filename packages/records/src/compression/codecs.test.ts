import fc from 'fast-check';
import { compressSync as lz4CompressBlock } from 'lz4-napi';
import { compressSync as snappyCompressRaw } from 'snappy';
import { beforeAll, describe, expect, it } from 'vitest';
import { CompressionError } from '../errors/compression-error.js';
import { RecordBatchTooLargeError } from '../errors/record-batch-too-large-error.js';
import { compressRecords, decompressRecords } from './codecs.js';
import type { CompressionType } from './compression-type.js';
import { lz4Decompress } from './lz4-codec.js';
import { isXerialFramed, snappyCompress, snappyDecompress } from './snappy-codec.js';
import { initializeZstd, zstdDecompress } from './zstd-codec.js';

const MiB = 1024 * 1024;
const CODECS: CompressionType[] = ['gzip', 'snappy', 'lz4', 'zstd'];

beforeAll(async () => {
  await initializeZstd();
});

function expectTyped(body: () => unknown, type: 'limit' | 'corrupt' | 'either'): void {
  let error: unknown;
  try {
    body();
  } catch (caught) {
    error = caught;
  }
  const isLimit = RecordBatchTooLargeError.isRecordBatchTooLargeError(error);
  const isCorrupt = CompressionError.isCompressionError(error);
  if (type === 'limit') expect(isLimit, String(error)).toBe(true);
  else if (type === 'corrupt') expect(isCorrupt, String(error)).toBe(true);
  else expect(isLimit || isCorrupt, String(error)).toBe(true);
}

describe.each(CODECS)('%s codec', (codec) => {
  it('round-trips random and repetitive data', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), fc.integer({ min: 0, max: 3 }), (bytes, repeat) => {
        const data = Buffer.concat(Array.from({ length: repeat + 1 }, () => Buffer.from(bytes)));
        const compressed = compressRecords(codec, data);
        expect(decompressRecords(codec, compressed, data.length).equals(data)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('round-trips 1 MiB spanning many blocks', () => {
    const data = Buffer.alloc(MiB);
    for (let index = 0; index < data.length; index += 1) data[index] = (index * 31 + (index >> 10)) & 0xff;
    expect(decompressRecords(codec, compressRecords(codec, data), MiB).equals(data)).toBe(true);
  });

  it('refuses to inflate past the limit (a compression bomb is a typed error)', () => {
    const bomb = compressRecords(codec, Buffer.alloc(4 * MiB));
    expect(bomb.length).toBeLessThan(MiB);
    expectTyped(() => decompressRecords(codec, bomb, MiB), 'limit');
    expect(decompressRecords(codec, bomb, 4 * MiB).length).toBe(4 * MiB);
  });

  it('gives only typed errors on truncated or mutated input', () => {
    const data = Buffer.from('kraft '.repeat(2000));
    const compressed = compressRecords(codec, data);
    fc.assert(
      fc.property(fc.nat(compressed.length - 1), fc.nat(255), fc.boolean(), (position, byte, truncate) => {
        const input = truncate ? compressed.subarray(0, position) : Buffer.from(compressed);
        if (!truncate) input[position] = byte;
        try {
          decompressRecords(codec, input, 64 * 1024);
        } catch (error) {
          expect(
            CompressionError.isCompressionError(error) ||
              RecordBatchTooLargeError.isRecordBatchTooLargeError(error),
            String(error),
          ).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('snappy framing', () => {
  it('writes xerial framing in 32 KiB chunks, as Kafka does', () => {
    const data = Buffer.alloc(100_000, 7);
    const framed = snappyCompress(data);
    expect(framed.subarray(0, 16).toString('hex')).toBe('82534e41505059000000000100000001');
    expect(isXerialFramed(framed)).toBe(true);
    let chunks = 0;
    for (let position = 16; position < framed.length; position += 4 + framed.readInt32BE(position))
      chunks += 1;
    expect(chunks).toBe(4);
  });

  it('reads a raw snappy block (librdkafka, @platformatic/kafka)', () => {
    const data = Buffer.from('raw snappy '.repeat(100));
    expect(snappyDecompress(snappyCompressRaw(data), 10_000).equals(data)).toBe(true);
  });

  it('checks each chunk against the limit before inflating it', () => {
    const framed = snappyCompress(Buffer.alloc(200_000));
    expectTyped(() => snappyDecompress(framed, 100_000), 'limit');
    expectTyped(() => snappyDecompress(snappyCompressRaw(Buffer.alloc(200_000)), 100_000), 'limit');
  });
});

describe('lz4 frames', () => {
  const frameHeader = (flags: number, blockDescriptor: number, contentSize?: number) => {
    const parts = [Buffer.from([0x04, 0x22, 0x4d, 0x18, flags, blockDescriptor])];
    if (contentSize !== undefined) {
      const size = Buffer.alloc(8);
      size.writeBigUInt64LE(BigInt(contentSize));
      parts.push(size);
    }
    parts.push(Buffer.from([0x00])); // header checksum (not checked: the batch CRC covers it)
    return Buffer.concat(parts);
  };
  const block = (bytes: Buffer, uncompressed = false) => {
    const size = Buffer.alloc(4);
    size.writeUInt32LE((bytes.length | (uncompressed ? 0x80000000 : 0)) >>> 0);
    return Buffer.concat([size, bytes]);
  };
  const END_MARK = Buffer.alloc(4);

  it.each([4, 5, 6, 7])('reads frames with block size code %i', (code) => {
    const blockSize = [0, 0, 0, 0, 64 * 1024, 256 * 1024, MiB, 4 * MiB][code] as number;
    const data = Buffer.alloc(blockSize + 1000);
    for (let index = 0; index < data.length; index += 1) data[index] = (index % 97) ^ (index >> 12);
    const blocks = [data.subarray(0, blockSize), data.subarray(blockSize)].map((chunk) =>
      block(lz4CompressBlock(chunk).subarray(4)),
    );
    const frame = Buffer.concat([frameHeader(0x60, code << 4), ...blocks, END_MARK]);
    expect(lz4Decompress(frame, 8 * MiB).equals(data)).toBe(true);
  });

  it('reads dependent blocks, uncompressed blocks, checksums and a declared content size', () => {
    // Block 2 copies 8 bytes from block 1 (offset 8, length 8), then ends with literal "x".
    const second = Buffer.from([0x04, 0x08, 0x00, 0x10, 0x78]);
    const withChecksums = 0x40 | 0x10 | 0x08 | 0x04; // block checksums, content size, content checksum
    const checksum = Buffer.alloc(4);
    const frame = Buffer.concat([
      frameHeader(withChecksums, 0x40, 17),
      block(Buffer.from('abcdefgh'), true),
      checksum,
      block(second),
      checksum,
      END_MARK,
      checksum,
    ]);
    expect(lz4Decompress(frame, 100).toString()).toBe('abcdefghabcdefghx');
  });

  it('refuses a declared content size over the limit before allocating', () => {
    const frame = Buffer.concat([frameHeader(0x68, 0x40, 2 ** 40), END_MARK]);
    expectTyped(() => lz4Decompress(frame, MiB), 'limit');
  });

  it('rejects bad magic, bad versions, oversized blocks and bad offsets', () => {
    expectTyped(() => lz4Decompress(Buffer.from('not lz4 at all'), 100), 'corrupt');
    expectTyped(() => lz4Decompress(Buffer.concat([frameHeader(0x80, 0x40), END_MARK]), 100), 'corrupt');
    const oversized = Buffer.concat([frameHeader(0x60, 0x40), block(Buffer.alloc(70_000), true), END_MARK]);
    expectTyped(() => lz4Decompress(oversized, MiB), 'corrupt');
    const badOffset = Buffer.concat([
      frameHeader(0x60, 0x40),
      block(Buffer.from([0x14, 0x61, 0x09, 0x00, 0x10, 0x78])),
      END_MARK,
    ]);
    expectTyped(() => lz4Decompress(badOffset, MiB), 'corrupt');
  });
});

describe('zstd bounds', () => {
  it('refuses a declared content size or window over the limit before decoding', () => {
    // Frame header: single segment, 4-byte content size of 64 MiB, then one empty raw last block.
    const declared = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0xa0, 0, 0, 0, 4, 0x01, 0, 0]);
    expectTyped(() => zstdDecompress(declared, MiB), 'limit');
    // Window descriptor 0xa8: 2^(10+21) = 2 GiB window, no content size.
    const window = Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa8, 0x01, 0, 0]);
    expectTyped(() => zstdDecompress(window, MiB), 'limit');
  });

  it('needs initialisation only to encode', () => {
    expect(zstdDecompress(compressRecords('zstd', Buffer.from('abc')), 10).toString()).toBe('abc');
  });
});
