import { DEFAULT_MAX_FRAME_BYTES, invariant, readFrameSize } from '@kraft/protocol';

/** Bytes of the big-endian int32 size prefix in front of every request and response. */
const SIZE_PREFIX_BYTES = 4;

/**
 * What {@link FrameDecoder.next} returns: a whole frame (size prefix included, often a zero-copy
 * view of a socket chunk), or `incomplete` until more bytes arrive.
 */
export type FrameDecodeResult =
  | { readonly kind: 'frame'; readonly frame: Buffer }
  | { readonly kind: 'incomplete' };

const INCOMPLETE: FrameDecodeResult = { kind: 'incomplete' };

/** Holds a size prefix split across chunks while it is checked; shared, as it is used synchronously. */
const PREFIX_SCRATCH = Buffer.alloc(SIZE_PREFIX_BYTES);

/** Consumed chunks are dropped from the front of the list in batches, not one `shift()` at a time. */
const COMPACT_AFTER_CONSUMED_CHUNKS = 32;

/**
 * Incremental decoder for size-prefixed frames over socket chunks. Chunks are kept as they
 * arrive; a frame that lies inside one chunk comes back as a zero-copy view of it, and a frame
 * spread over several chunks is joined once, when its last byte has arrived. The size prefix is
 * checked (`@kraft/protocol`'s `readFrameSize`) before anything is allocated for the frame. Frames
 * come back with their size prefix, as `@kraft/protocol`'s frame readers take them.
 */
export class FrameDecoder {
  private readonly maxFrameSizeBytes: number;
  private readonly chunks: Buffer[] = [];
  private headChunkIndex = 0;
  private headChunkOffset = 0;
  private buffered = 0;
  /** Bytes of the frame being received, prefix included, or -1 while its prefix is incomplete. */
  private expectedFrameBytes = -1;

  constructor(maxFrameSizeBytes: number = DEFAULT_MAX_FRAME_BYTES) {
    invariant(
      Number.isSafeInteger(maxFrameSizeBytes) && maxFrameSizeBytes >= 0 && maxFrameSizeBytes <= 0x7fffffff,
      () => `maxFrameSizeBytes ${maxFrameSizeBytes} out of [0, 2^31)`,
    );
    this.maxFrameSizeBytes = maxFrameSizeBytes;
  }

  /** Adds bytes read from the socket; call `next()` until it answers `incomplete`. */
  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
  }

  /** Bytes received and not yet returned as part of a frame. */
  bufferedBytes(): number {
    return this.buffered;
  }

  /** True when part of a frame (even one byte of its prefix) has arrived. */
  isMidFrame(): boolean {
    return this.buffered > 0;
  }

  /**
   * The next whole frame (size prefix included), or `incomplete`. Throws `ProtocolError` for a
   * negative or oversized prefix; the decoder is then unusable and the connection must be closed.
   */
  next(): FrameDecodeResult {
    if (this.expectedFrameBytes < 0) {
      if (this.buffered < SIZE_PREFIX_BYTES) return INCOMPLETE;
      this.expectedFrameBytes = SIZE_PREFIX_BYTES + this.peekFrameSize();
    }
    if (this.buffered < this.expectedFrameBytes) return INCOMPLETE;
    const frame = this.take(this.expectedFrameBytes);
    this.expectedFrameBytes = -1;
    return { kind: 'frame', frame };
  }

  /** The checked size of the next frame, read without consuming its prefix. */
  private peekFrameSize(): number {
    const head = this.chunks[this.headChunkIndex]!;
    if (head.length - this.headChunkOffset >= SIZE_PREFIX_BYTES)
      return readFrameSize(head, this.headChunkOffset, this.maxFrameSizeBytes)!;
    let filled = 0;
    for (let index = this.headChunkIndex; filled < SIZE_PREFIX_BYTES; index += 1) {
      const chunk = this.chunks[index]!;
      const start = index === this.headChunkIndex ? this.headChunkOffset : 0;
      filled += chunk.copy(
        PREFIX_SCRATCH,
        filled,
        start,
        Math.min(chunk.length, start + SIZE_PREFIX_BYTES - filled),
      );
    }
    return readFrameSize(PREFIX_SCRATCH, 0, this.maxFrameSizeBytes)!;
  }

  /** Removes `size` (> 0, at most `buffered`) bytes from the front: a view when they sit in one chunk, else one copy. */
  private take(size: number): Buffer {
    const head = this.chunks[this.headChunkIndex]!;
    if (head.length - this.headChunkOffset >= size) {
      const view = head.subarray(this.headChunkOffset, this.headChunkOffset + size);
      this.advance(size);
      return view;
    }
    const joined = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const chunk = this.chunks[this.headChunkIndex]!;
      const copied = chunk.copy(
        joined,
        filled,
        this.headChunkOffset,
        Math.min(chunk.length, this.headChunkOffset + size - filled),
      );
      filled += copied;
      this.advance(copied);
    }
    return joined;
  }

  private advance(size: number): void {
    this.buffered -= size;
    this.headChunkOffset += size;
    const head = this.chunks[this.headChunkIndex];
    if (head !== undefined && this.headChunkOffset === head.length) {
      this.chunks[this.headChunkIndex] = EMPTY_CHUNK;
      this.headChunkIndex += 1;
      this.headChunkOffset = 0;
      if (this.headChunkIndex === this.chunks.length) {
        this.chunks.length = 0;
        this.headChunkIndex = 0;
      } else if (this.headChunkIndex >= COMPACT_AFTER_CONSUMED_CHUNKS) {
        this.chunks.splice(0, this.headChunkIndex);
        this.headChunkIndex = 0;
      }
    }
  }
}

const EMPTY_CHUNK = Buffer.alloc(0);
