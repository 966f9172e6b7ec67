import type * as ZstdWasm from '@bokuweb/zstd-wasm';
import type * as Fzstd from 'fzstd';
import { CompressionError } from '../errors/compression-error.js';
import { codecModule } from './codec-module.js';
import { checkDecompressedSize } from './decompression-limit.js';

/**
 * zstd. Decoding is synchronous and pure JS (fzstd), after our own walk over the frame and block
 * headers bounds the output: declared content sizes, raw/RLE block sizes and at most 128 KiB per
 * compressed block must all fit within the decompression limit, and so must each frame's window,
 * before fzstd allocates anything. Encoding uses zstd compiled to WebAssembly
 * (@bokuweb/zstd-wasm), which needs one `await initializeZstd()` per process and is synchronous
 * after it; see docs/adr/0003-records-compression-codecs.md.
 */
const FRAME_MAGIC = 0xfd2fb528;
const SKIPPABLE_MAGIC_MASK = 0xfffffff0;
const SKIPPABLE_MAGIC = 0x184d2a50;
const MAX_BLOCK_SIZE_BYTES = 128 * 1024;
const BLOCK_HEADER_SIZE_BYTES = 3;
const BLOCK_TYPE_RAW = 0;
const BLOCK_TYPE_RLE = 1;
const BLOCK_TYPE_RESERVED = 3;
/** Windows up to this size are always allowed: zstd-jni's default levels use at most 8 MiB. */
const MIN_WINDOW_LIMIT_BYTES = 8 * 1024 * 1024;
const DEFAULT_LEVEL = 3;

const zstdWasm = codecModule<typeof ZstdWasm>('@bokuweb/zstd-wasm');
const fzstd = codecModule<typeof Fzstd>('fzstd');

let encoderReady = false;
let initializing: Promise<void> | undefined;

/** Loads the zstd encoder (WebAssembly). Idempotent; needed once before building zstd batches. */
export function initializeZstd(): Promise<void> {
  initializing ??= Promise.resolve()
    .then(() => zstdWasm().init())
    .then(() => {
      encoderReady = true;
    });
  return initializing;
}

/**
 * Whether {@link initializeZstd} has finished, so zstd batches can be built synchronously.
 * Decoding zstd never needs it.
 */
export function isZstdEncoderReady(): boolean {
  return encoderReady;
}

export function zstdCompress(data: Uint8Array, level = DEFAULT_LEVEL): Buffer {
  if (!encoderReady) {
    throw new CompressionError(
      'zstd: the encoder is not initialised; await initializeZstd() once at startup',
    );
  }
  const compressed = zstdWasm().compress(data, level);
  return Buffer.from(compressed.buffer, compressed.byteOffset, compressed.byteLength);
}

export function zstdDecompress(data: Uint8Array, maxOutputBytes: number): Buffer {
  const upperBound = boundFrames(data, maxOutputBytes);
  // A compressed block's bound (128 KiB) can overshoot the real size, so the bound is allowed one
  // block of slack and the exact size is checked after decoding.
  checkDecompressedSize('zstd', upperBound - MAX_BLOCK_SIZE_BYTES, maxOutputBytes);
  // Resolved outside the try: a codec that cannot load is not a corrupt frame.
  const { decompress } = fzstd();
  let output: Uint8Array;
  try {
    output = decompress(data);
  } catch (error) {
    throw new CompressionError(`zstd: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  checkDecompressedSize('zstd', output.length, maxOutputBytes);
  return Buffer.from(output.buffer, output.byteOffset, output.byteLength);
}

function fail(reason: string): never {
  throw new CompressionError(`zstd: ${reason}`);
}

function readUint32LE(data: Uint8Array, position: number): number {
  return (
    ((data[position] as number) |
      ((data[position + 1] as number) << 8) |
      ((data[position + 2] as number) << 16) |
      ((data[position + 3] as number) << 24)) >>>
    0
  );
}

/** Walks every frame; returns an upper bound of the inflated size. */
function boundFrames(data: Uint8Array, maxOutputBytes: number): number {
  let position = 0;
  let bound = 0;
  if (data.length === 0) fail('empty input');
  while (position < data.length) {
    if (data.length - position < 4) fail('truncated frame magic');
    const magic = readUint32LE(data, position);
    if ((magic & SKIPPABLE_MAGIC_MASK) >>> 0 === SKIPPABLE_MAGIC) {
      if (data.length - position < 8) fail('truncated skippable frame');
      const size = readUint32LE(data, position + 4);
      if (size > data.length - position - 8) fail('skippable frame overruns the input');
      position += 8 + size;
      continue;
    }
    if (magic !== FRAME_MAGIC) fail(`bad frame magic ${magic.toString(16)}`);
    const frame = boundFrame(data, position + 4, maxOutputBytes);
    bound += frame.bound;
    position = frame.end;
  }
  return bound;
}

function boundFrame(data: Uint8Array, start: number, maxOutputBytes: number): { bound: number; end: number } {
  if (start >= data.length) fail('truncated frame header');
  const descriptor = data[start] as number;
  const singleSegment = (descriptor & 0x20) !== 0;
  const hasChecksum = (descriptor & 0x04) !== 0;
  if ((descriptor & 0x08) !== 0) fail('reserved frame header bit is set');
  const dictionaryIdBytes = [0, 1, 2, 4][descriptor & 0x03] as number;
  const sizeFieldCode = descriptor >> 6;
  const contentSizeBytes = sizeFieldCode === 0 ? (singleSegment ? 1 : 0) : 1 << sizeFieldCode;
  let position = start + 1;
  let windowSizeBytes = 0;
  if (!singleSegment) {
    if (position >= data.length) fail('truncated window descriptor');
    const windowDescriptor = data[position] as number;
    const windowBase = 2 ** (10 + (windowDescriptor >> 3));
    windowSizeBytes = windowBase + (windowBase / 8) * (windowDescriptor & 0x07);
    position += 1;
  }
  position += dictionaryIdBytes;
  if (position + contentSizeBytes > data.length) fail('truncated frame header');
  let contentSize: number | undefined;
  if (contentSizeBytes > 0) {
    contentSize = readLittleEndian(data, position, contentSizeBytes) + (contentSizeBytes === 2 ? 256 : 0);
    position += contentSizeBytes;
    checkDecompressedSize('zstd', contentSize, maxOutputBytes);
  }
  if (singleSegment) windowSizeBytes = contentSize ?? 0;
  checkDecompressedSize('zstd window', windowSizeBytes, Math.max(maxOutputBytes, MIN_WINDOW_LIMIT_BYTES));
  const blocks = boundBlocks(data, position);
  const end = blocks.end + (hasChecksum ? 4 : 0);
  if (end > data.length) fail('truncated content checksum');
  return { bound: contentSize ?? blocks.bound, end };
}

function readLittleEndian(data: Uint8Array, position: number, size: number): number {
  let value = 0;
  let scale = 1;
  for (let index = 0; index < size; index += 1) {
    value += (data[position + index] as number) * scale;
    scale *= 256;
  }
  return value;
}

function boundBlocks(data: Uint8Array, start: number): { bound: number; end: number } {
  let position = start;
  let bound = 0;
  for (;;) {
    if (data.length - position < BLOCK_HEADER_SIZE_BYTES) fail('truncated block header');
    const header = readLittleEndian(data, position, BLOCK_HEADER_SIZE_BYTES);
    position += BLOCK_HEADER_SIZE_BYTES;
    const last = (header & 1) === 1;
    const type = (header >> 1) & 0x03;
    const size = header >>> 3;
    if (type === BLOCK_TYPE_RESERVED) fail('reserved block type');
    if (size > MAX_BLOCK_SIZE_BYTES) fail(`block of ${size} bytes exceeds 128 KiB`);
    const storedBytes = type === BLOCK_TYPE_RLE ? 1 : size;
    if (storedBytes > data.length - position) fail('block overruns the input');
    bound += type === BLOCK_TYPE_RAW || type === BLOCK_TYPE_RLE ? size : MAX_BLOCK_SIZE_BYTES;
    position += storedBytes;
    if (last) return { bound, end: position };
  }
}
