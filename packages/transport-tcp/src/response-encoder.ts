import { randomBytes } from 'node:crypto';
import {
  type ApiKey,
  ApiKeys,
  ByteWriter,
  writeResponseFrame,
  writeResponseFrameChunks,
} from '@kraft/protocol';
import {
  type ChunkedRecordsSource,
  isChunkedRecordsSource,
  isInMemoryRecordsSource,
  type OutboundPayload,
} from './outbound-payload.js';

const SIZE_PREFIX_BYTES = 4;

/** Fetch and FetchSnapshot carry records; only their responses are searched for a records source. */
const RECORDS_BEARING_API_KEYS: ReadonlySet<number> = new Set([
  ApiKeys.FETCH.key,
  ApiKeys.FETCH_SNAPSHOT.key,
]);

/** Raft responses nest records at most topics → partitions → field; a bound keeps the walk cheap. */
const MAX_RECORDS_SEARCH_DEPTH = 6;

/**
 * Stand-in written where file-backed records go, then located in the encoded body so the real
 * records can be streamed from the file instead of copied into the body. 16 random bytes per
 * process: a collision with other body bytes is checked for and falls back to a copy.
 */
const RECORDS_MARKER = randomBytes(16);

type PathSegment = string | number;

/**
 * Encodes a response frame with `@kraft/protocol`'s frame writers. Records given in memory are
 * referenced by the frame's chunks, not copied; records given as a chunked source (a
 * `FileRecords` slice) are left out of the encoded body and streamed from their source when the
 * frame is written.
 */
export function encodeResponse(
  api: ApiKey,
  apiVersion: number,
  correlationId: number,
  data: unknown,
): OutboundPayload {
  if (RECORDS_BEARING_API_KEYS.has(api.key)) {
    const found = findRecordsSource(data, 0);
    if (found !== undefined) {
      const { path, source } = found;
      if (isInMemoryRecordsSource(source))
        return encodeWithRecords(api, apiVersion, correlationId, data, path, source.buffer());
      if (isChunkedRecordsSource(source))
        return encodeWithStreamedRecords(api, apiVersion, correlationId, data, path, source);
    }
  }
  return { kind: 'frame', frame: writeResponseFrame(api.key, apiVersion, correlationId, data) };
}

/** The frame as chunks that reference `records` (when large enough) instead of copying it. */
function encodeWithRecords(
  api: ApiKey,
  apiVersion: number,
  correlationId: number,
  data: unknown,
  path: readonly PathSegment[],
  records: Buffer,
): OutboundPayload {
  const withRecords = replaceAt(data, path, 0, records);
  return {
    kind: 'chunks',
    chunks: writeResponseFrameChunks(api.key, apiVersion, correlationId, withRecords),
  };
}

/**
 * Encodes the frame with a marker where the records go, then cuts it there: `head` ends with the
 * records' real length prefix (the frame size patched to count the records), `tail` is the rest.
 */
function encodeWithStreamedRecords(
  api: ApiKey,
  apiVersion: number,
  correlationId: number,
  data: unknown,
  path: readonly PathSegment[],
  records: ChunkedRecordsSource,
): OutboundPayload {
  const compact = api.isFlexible(apiVersion);
  const frame = writeResponseFrame(
    api.key,
    apiVersion,
    correlationId,
    replaceAt(data, path, 0, RECORDS_MARKER),
  );
  const markerAt = frame.indexOf(RECORDS_MARKER);
  const markerPrefixBytes = compact ? 1 : 4;
  const prefixStart = markerAt - markerPrefixBytes;
  if (
    markerAt < 0 ||
    frame.indexOf(RECORDS_MARKER, markerAt + 1) >= 0 ||
    !hasMarkerLengthPrefix(frame, prefixStart, compact)
  ) {
    const copy = Buffer.allocUnsafe(records.sizeInBytes());
    records.readInto(copy, 0);
    return encodeWithRecords(api, apiVersion, correlationId, data, path, copy);
  }
  const recordsSize = records.sizeInBytes();
  const lengthPrefix = new ByteWriter(8);
  if (compact) lengthPrefix.writeUnsignedVarint(recordsSize + 1);
  else lengthPrefix.writeInt32(recordsSize);
  const lengthBytes = lengthPrefix.toBuffer();
  const tail = frame.subarray(markerAt + RECORDS_MARKER.length);
  const head = Buffer.allocUnsafe(prefixStart + lengthBytes.length);
  lengthBytes.copy(head, frame.copy(head, 0, 0, prefixStart));
  head.writeInt32BE(head.length - SIZE_PREFIX_BYTES + recordsSize + tail.length, 0);
  return { kind: 'records', head, records, tail };
}

function hasMarkerLengthPrefix(frame: Buffer, prefixStart: number, compact: boolean): boolean {
  if (prefixStart < SIZE_PREFIX_BYTES) return false;
  return compact
    ? frame[prefixStart] === RECORDS_MARKER.length + 1
    : frame.readInt32BE(prefixStart) === RECORDS_MARKER.length;
}

interface FoundRecordsSource {
  /** Keys and indexes from the response data down to the source, outermost first. */
  readonly path: PathSegment[];
  readonly source: unknown;
}

/** The first records source (not a Buffer) inside plain objects and arrays, and the path to it. */
function findRecordsSource(value: unknown, depth: number): FoundRecordsSource | undefined {
  if (
    depth > MAX_RECORDS_SEARCH_DEPTH ||
    typeof value !== 'object' ||
    value === null ||
    Buffer.isBuffer(value)
  ) {
    return undefined;
  }
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index += 1) {
      const found = findRecordsSource(value[index], depth + 1);
      if (found !== undefined) {
        found.path.unshift(index);
        return found;
      }
    }
    return undefined;
  }
  for (const [key, child] of Object.entries(value)) {
    if (isChunkedRecordsSource(child) || isInMemoryRecordsSource(child))
      return { path: [key], source: child };
    const found = findRecordsSource(child, depth + 1);
    if (found !== undefined) {
      found.path.unshift(key);
      return found;
    }
  }
  return undefined;
}

/** A copy of `value` with the leaf at `path` replaced; only the objects on the path are copied. */
function replaceAt(
  value: unknown,
  path: readonly PathSegment[],
  depth: number,
  replacement: unknown,
): unknown {
  if (depth === path.length) return replacement;
  const segment = path[depth]!;
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[segment as number] = replaceAt(value[segment as number], path, depth + 1, replacement);
    return copy;
  }
  const record = value as Record<string, unknown>;
  return { ...record, [segment]: replaceAt(record[segment as string], path, depth + 1, replacement) };
}
