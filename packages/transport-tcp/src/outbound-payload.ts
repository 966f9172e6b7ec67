/**
 * Records that can be copied out in bounded chunks without loading them whole: `FileRecords`
 * (and its slices) satisfy this structurally. `readInto` copies
 * `min(target.length, sizeInBytes() - position)` bytes starting at `position` inside the records.
 */
export interface ChunkedRecordsSource {
  /** Bytes of records to send. */
  sizeInBytes(): number;
  /**
   * Copies up to `target.length` bytes from `position` (relative to these records) into
   * `target[0..]` and returns how many it copied; never reads past `sizeInBytes()`.
   */
  readInto(target: Buffer, position: number): number;
  /**
   * Optional (FileRecords has it): writes `[position, position + length)` to `destination` in
   * bounded chunks, stopping after a chunk the destination refused more of; returns bytes written.
   */
  writeTo?(destination: { write(chunk: Buffer): boolean }, position: number, length: number): number;
}

/** Records already in memory (`MemoryRecords` satisfies this structurally). */
export interface InMemoryRecordsSource {
  /** Bytes of records to send: `buffer().length`. */
  sizeInBytes(): number;
  /** The records' bytes, written to the socket by reference (not copied). */
  buffer(): Buffer;
}

/**
 * What a connection writes for one response or request:
 * - `frame`: a complete frame, size prefix included;
 * - `chunks`: a complete frame as consecutive buffers (large records referenced, not copied);
 * - `records`: `head` (size prefix + header + body up to the records bytes), then the records
 *   streamed from their source in bounded chunks, then `tail` (the rest of the body).
 */
export type OutboundPayload =
  | { readonly kind: 'frame'; readonly frame: Buffer }
  | { readonly kind: 'chunks'; readonly chunks: readonly Buffer[] }
  | {
      readonly kind: 'records';
      readonly head: Buffer;
      readonly records: ChunkedRecordsSource;
      readonly tail: Buffer;
    };

/** A non-Buffer object with a function under each of `methods`: how records arrive structurally. */
function hasMethods(value: unknown, methods: readonly string[]): boolean {
  if (typeof value !== 'object' || value === null || Buffer.isBuffer(value)) return false;
  const record = value as Record<string, unknown>;
  return methods.every((method) => typeof record[method] === 'function');
}

const CHUNKED_RECORDS_METHODS = ['readInto', 'sizeInBytes'] as const;
const IN_MEMORY_RECORDS_METHODS = ['buffer', 'sizeInBytes'] as const;

export function isChunkedRecordsSource(value: unknown): value is ChunkedRecordsSource {
  return hasMethods(value, CHUNKED_RECORDS_METHODS);
}

export function isInMemoryRecordsSource(value: unknown): value is InMemoryRecordsSource {
  return hasMethods(value, IN_MEMORY_RECORDS_METHODS);
}
