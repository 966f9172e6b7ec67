import type * as Lz4 from 'lz4-napi';
import { CompressionError } from '../errors/compression-error.js';
import { codecModule } from './codec-module.js';
import { checkDecompressedSize } from './decompression-limit.js';

/**
 * LZ4 frame format (what Kafka's KafkaLZ4BlockOutputStream writes, magic 2 with correct header
 * checksums). Encoding goes through lz4-napi's frame API. Decoding is our own bounded frame and
 * block decoder: it reads any block size (64 KiB-4 MiB), dependent or independent blocks, and an
 * optional content size, and it never grows its output beyond the decompression limit. Header,
 * block and content checksums are skipped: the batch CRC32C already covers these bytes.
 */
const FRAME_MAGIC = 0x184d2204;
const MIN_SKIPPABLE_MAGIC = 0x184d2a50;
const MAX_SKIPPABLE_MAGIC = 0x184d2a5f;
const FLG_VERSION_MASK = 0xc0;
const FLG_VERSION_01 = 0x40;
const FLG_BLOCK_CHECKSUM = 0x10;
const FLG_CONTENT_SIZE = 0x08;
const FLG_CONTENT_CHECKSUM = 0x04;
const FLG_RESERVED = 0x02;
const FLG_DICTIONARY_ID = 0x01;
const BLOCK_UNCOMPRESSED_FLAG = 0x80000000;
const MIN_MATCH_BYTES = 4;
const BLOCK_MAX_SIZES: Readonly<Record<number, number>> = {
  4: 64 * 1024,
  5: 256 * 1024,
  6: 1024 * 1024,
  7: 4 * 1024 * 1024,
};

const lz4 = codecModule<typeof Lz4>('lz4-napi');

export function lz4Compress(data: Uint8Array): Buffer {
  return lz4().compressFrameSync(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
}

function fail(reason: string): never {
  throw new CompressionError(`lz4: ${reason}`);
}

/** A growable output bounded by the decompression limit. */
class BoundedOutput {
  bytes: Uint8Array;
  length = 0;

  constructor(
    initialCapacityBytes: number,
    private readonly maxOutputBytes: number,
  ) {
    this.bytes = new Uint8Array(Math.min(initialCapacityBytes, maxOutputBytes));
  }

  reserve(extraBytes: number): void {
    const needed = this.length + extraBytes;
    if (needed <= this.bytes.length) return;
    checkDecompressedSize('lz4', needed, this.maxOutputBytes);
    const grown = new Uint8Array(Math.min(this.maxOutputBytes, Math.max(needed, this.bytes.length * 2)));
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
}

export function lz4Decompress(data: Uint8Array, maxOutputBytes: number): Buffer {
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let position = 0;
  let output: BoundedOutput | undefined;
  while (position < view.length) {
    if (view.length - position < 4) fail('truncated frame magic');
    const magic = view.readUInt32LE(position);
    if (magic >= MIN_SKIPPABLE_MAGIC && magic <= MAX_SKIPPABLE_MAGIC) {
      position = skipSkippableFrame(view, position);
      continue;
    }
    if (magic !== FRAME_MAGIC) fail(`bad frame magic ${magic.toString(16)}`);
    const frame = readFrameDescriptor(view, position + 4);
    if (frame.contentSizeBytes !== undefined)
      checkDecompressedSize('lz4', frame.contentSizeBytes, maxOutputBytes);
    output ??= new BoundedOutput(
      frame.contentSizeBytes ?? Math.max(64 * 1024, view.length * 4),
      maxOutputBytes,
    );
    position = decodeBlocks(view, frame.end, frame, output);
  }
  if (output === undefined) return Buffer.alloc(0);
  return Buffer.from(output.bytes.buffer, output.bytes.byteOffset, output.length);
}

function skipSkippableFrame(view: Buffer, position: number): number {
  if (view.length - position < 8) fail('truncated skippable frame');
  const size = view.readUInt32LE(position + 4);
  if (size > view.length - position - 8) fail('skippable frame overruns the input');
  return position + 8 + size;
}

interface FrameDescriptor {
  readonly end: number;
  readonly blockMaxSizeBytes: number;
  readonly blockChecksum: boolean;
  readonly contentChecksum: boolean;
  readonly contentSizeBytes: number | undefined;
}

function readFrameDescriptor(view: Buffer, start: number): FrameDescriptor {
  if (view.length - start < 3) fail('truncated frame descriptor');
  const flags = view[start] as number;
  const blockDescriptor = view[start + 1] as number;
  if ((flags & FLG_VERSION_MASK) !== FLG_VERSION_01) fail(`unsupported frame version in flags ${flags}`);
  if ((flags & FLG_RESERVED) !== 0 || (blockDescriptor & 0x8f) !== 0)
    fail('reserved descriptor bits are set');
  if ((flags & FLG_DICTIONARY_ID) !== 0) fail('dictionaries are not supported');
  const blockMaxSizeBytes = BLOCK_MAX_SIZES[(blockDescriptor >> 4) & 0x07];
  if (blockMaxSizeBytes === undefined) fail(`bad block size code in ${blockDescriptor}`);
  let position = start + 2;
  let contentSizeBytes: number | undefined;
  if ((flags & FLG_CONTENT_SIZE) !== 0) {
    if (view.length - position < 8) fail('truncated content size');
    const high = view.readUInt32LE(position + 4);
    // Anything past 2^53 is far beyond any limit; keep it as a huge number rather than wrapping.
    contentSizeBytes =
      high > 0x1fffff ? Number.MAX_SAFE_INTEGER : high * 4294967296 + view.readUInt32LE(position);
    position += 8;
  }
  position += 1; // header checksum: the batch CRC covers these bytes
  return {
    end: position,
    blockMaxSizeBytes,
    blockChecksum: (flags & FLG_BLOCK_CHECKSUM) !== 0,
    contentChecksum: (flags & FLG_CONTENT_CHECKSUM) !== 0,
    contentSizeBytes,
  };
}

function decodeBlocks(view: Buffer, start: number, frame: FrameDescriptor, output: BoundedOutput): number {
  let position = start;
  for (;;) {
    if (view.length - position < 4) fail('truncated block size');
    const word = view.readUInt32LE(position);
    position += 4;
    if (word === 0) break;
    const size = word & 0x7fffffff;
    if (size > frame.blockMaxSizeBytes)
      fail(`block of ${size} bytes exceeds the ${frame.blockMaxSizeBytes}-byte maximum`);
    if (size > view.length - position) fail('block overruns the input');
    if ((word & BLOCK_UNCOMPRESSED_FLAG) !== 0) {
      output.reserve(size);
      output.bytes.set(view.subarray(position, position + size), output.length);
      output.length += size;
    } else {
      decodeBlock(view, position, position + size, output, frame.blockMaxSizeBytes);
    }
    position += size + (frame.blockChecksum ? 4 : 0);
  }
  position += frame.contentChecksum ? 4 : 0;
  if (position > view.length) fail('truncated checksum');
  return position;
}

/** One LZ4 block: sequences of literals then a back-reference; the last sequence has only literals. */
function decodeBlock(
  input: Buffer,
  start: number,
  end: number,
  output: BoundedOutput,
  blockMaxSizeBytes: number,
): void {
  const blockStart = output.length;
  let position = start;
  while (position < end) {
    const token = input[position] as number;
    position += 1;
    let literalLength = token >>> 4;
    if (literalLength === 15) {
      let byte = 255;
      while (byte === 255) {
        if (position >= end) fail('truncated literal length');
        byte = input[position] as number;
        position += 1;
        literalLength += byte;
      }
    }
    if (literalLength > end - position) fail('literals overrun the block');
    if (output.length - blockStart + literalLength > blockMaxSizeBytes)
      fail('block inflates past its maximum size');
    output.reserve(literalLength);
    output.bytes.set(input.subarray(position, position + literalLength), output.length);
    output.length += literalLength;
    position += literalLength;
    if (position === end) return;
    position = copyMatch(input, position, end, token, output, blockStart, blockMaxSizeBytes);
  }
  fail('block ends without literals');
}

function copyMatch(
  input: Buffer,
  start: number,
  end: number,
  token: number,
  output: BoundedOutput,
  blockStart: number,
  blockMaxSizeBytes: number,
): number {
  let position = start;
  if (end - position < 2) fail('truncated match offset');
  const offset = (input[position] as number) | ((input[position + 1] as number) << 8);
  position += 2;
  if (offset === 0 || offset > output.length) fail(`bad match offset ${offset}`);
  let matchLength = (token & 0x0f) + MIN_MATCH_BYTES;
  if ((token & 0x0f) === 15) {
    let byte = 255;
    while (byte === 255) {
      if (position >= end) fail('truncated match length');
      byte = input[position] as number;
      position += 1;
      matchLength += byte;
    }
  }
  if (output.length - blockStart + matchLength > blockMaxSizeBytes)
    fail('block inflates past its maximum size');
  output.reserve(matchLength);
  const bytes = output.bytes;
  let target = output.length;
  let source = target - offset;
  if (offset >= matchLength) {
    bytes.copyWithin(target, source, source + matchLength);
  } else {
    // Overlapping copy: the match repeats the last `offset` bytes, so copy byte by byte.
    const stop = target + matchLength;
    while (target < stop) {
      bytes[target] = bytes[source] as number;
      target += 1;
      source += 1;
    }
  }
  output.length += matchLength;
  return position;
}
