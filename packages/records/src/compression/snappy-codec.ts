import type * as Snappy from 'snappy';
import { CompressionError } from '../errors/compression-error.js';
import { codecModule } from './codec-module.js';
import { checkDecompressedSize } from './decompression-limit.js';

/**
 * Kafka's Java producer writes snappy through xerial's SnappyOutputStream: a 16-byte header
 * (magic, version 1, compatible version 1), then `[int32 length][raw snappy block]` chunks.
 * Readers accept that framing or a bare raw block (xerial's reader falls back the same way, and
 * librdkafka and @platformatic/kafka write raw blocks).
 */
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER = Buffer.concat([XERIAL_MAGIC, Buffer.from([0, 0, 0, 1, 0, 0, 0, 1])]);
const XERIAL_HEADER_SIZE_BYTES = 16;
/** xerial's default block size, which Kafka uses: uncompressed bytes per framed chunk. */
const XERIAL_BLOCK_SIZE_BYTES = 32 * 1024;
const MAX_LENGTH_VARINT_BYTES = 5;
const snappy = codecModule<typeof Snappy>('snappy');

export function snappyCompress(data: Uint8Array): Buffer {
  const { compressSync } = snappy();
  const chunks: Buffer[] = [XERIAL_HEADER];
  const source = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  for (let start = 0; start < source.length; start += XERIAL_BLOCK_SIZE_BYTES) {
    const block = compressSync(source.subarray(start, start + XERIAL_BLOCK_SIZE_BYTES));
    const length = Buffer.allocUnsafe(4);
    length.writeInt32BE(block.length, 0);
    chunks.push(length, block);
  }
  return Buffer.concat(chunks);
}

export function isXerialFramed(data: Uint8Array): boolean {
  if (data.length < XERIAL_HEADER_SIZE_BYTES) return false;
  for (let index = 0; index < XERIAL_MAGIC.length; index += 1) {
    if (data[index] !== XERIAL_MAGIC[index]) return false;
  }
  return true;
}

export function snappyDecompress(data: Uint8Array, maxOutputBytes: number): Buffer {
  const source = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (!isXerialFramed(source)) return decompressRawBlock(source, maxOutputBytes);
  const blocks: Buffer[] = [];
  let total = 0;
  let position = XERIAL_HEADER_SIZE_BYTES;
  while (position < source.length) {
    if (source.length - position < 4) throw new CompressionError('snappy: truncated xerial chunk length');
    const length = source.readInt32BE(position);
    position += 4;
    if (length < 0 || length > source.length - position) {
      throw new CompressionError(`snappy: xerial chunk of ${length} bytes overruns the input`);
    }
    const block = source.subarray(position, position + length);
    position += length;
    total += rawUncompressedLength(block);
    checkDecompressedSize('snappy', total, maxOutputBytes);
    blocks.push(decompressRawBlock(block, maxOutputBytes));
  }
  return blocks.length === 1 ? (blocks[0] as Buffer) : Buffer.concat(blocks, total);
}

/** The uncompressed length leads every raw block as a varint, so the bound is checked before inflating. */
function rawUncompressedLength(block: Buffer): number {
  let value = 0;
  let scale = 1;
  for (let index = 0; index < MAX_LENGTH_VARINT_BYTES && index < block.length; index += 1) {
    const byte = block[index] as number;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return value;
    scale *= 128;
  }
  throw new CompressionError('snappy: bad uncompressed length');
}

function decompressRawBlock(block: Buffer, maxOutputBytes: number): Buffer {
  checkDecompressedSize('snappy', rawUncompressedLength(block), maxOutputBytes);
  // Resolved outside the try: a codec that cannot load is not a corrupt block.
  const { uncompressSync } = snappy();
  try {
    return uncompressSync(block, { asBuffer: true }) as Buffer;
  } catch (error) {
    throw new CompressionError(`snappy: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
}
