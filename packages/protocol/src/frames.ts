import { type ApiKey, apiKeyFor } from './api-keys.js';
import { ProtocolError } from './errors/protocol-error.js';
import { UnsupportedVersionError } from './errors/unsupported-version-error.js';
import { RequestHeader, type RequestHeaderData } from './headers/request-header.js';
import { ResponseHeader } from './headers/response-header.js';
import { ByteReader } from './primitives/byte-reader.js';
import { ByteWriter } from './primitives/byte-writer.js';
import { DEFAULT_ZERO_COPY_THRESHOLD_BYTES } from './schema/message-codec.js';

const SIZE_PREFIX_BYTES = 4;
/** Kafka's default `socket.request.max.bytes` (100 MiB). */
export const DEFAULT_MAX_FRAME_BYTES = 100 * 1024 * 1024;

/** What a client puts in a request's header ({@link writeRequestFrame} picks the header version). */
export interface RequestFrameHeader {
  /** The API (`ApiKeys.VOTE.key`, ...). */
  readonly apiKey: number;
  /** The request version, already negotiated through ApiVersions. */
  readonly apiVersion: number;
  /** Chosen by the client, echoed in the response so it can match responses to requests. */
  readonly correlationId: number;
  /** Shown in the server's logs and quotas; null to send none. */
  readonly clientId: string | null;
}

/** A request frame's decoded header ({@link readRequestHeader}), before its body is decoded. */
export interface DecodedRequestHeader {
  /** The header fields: api key, api version, correlation id, client id. */
  readonly header: RequestHeaderData;
  /** The API the api key names, with its request and response codecs. */
  readonly api: ApiKey;
  /** Where the body starts in the frame. */
  readonly bodyOffset: number;
}

/** A whole decoded request frame ({@link readRequestFrame}): the header and the body's data. */
export interface DecodedRequest<T = unknown> extends DecodedRequestHeader {
  /** The request body, as the api's request codec decoded it at `header.requestApiVersion`. */
  readonly data: T;
}

/** A whole decoded response frame ({@link readResponseFrame}). */
export interface DecodedResponse<T = unknown> {
  /** The correlation id of the request this answers. */
  readonly correlationId: number;
  /** The response body, decoded at the version the request was sent with. */
  readonly data: T;
}

/**
 * Reads the int32 size at `offset` of a stream buffer: undefined while fewer than 4 bytes are
 * there; a negative or oversized size is a `ProtocolError` (the connection must be closed).
 */
export function readFrameSize(
  buffer: Buffer,
  offset = 0,
  maxFrameBytes = DEFAULT_MAX_FRAME_BYTES,
): number | undefined {
  if (buffer.length - offset < SIZE_PREFIX_BYTES) return undefined;
  const size = buffer.readInt32BE(offset);
  if (size < 0 || size > maxFrameBytes) {
    throw new ProtocolError(`frame size ${size} is outside [0, ${maxFrameBytes}]`, 'size');
  }
  return size;
}

function apiOrThrow(apiKey: number): ApiKey {
  const api = apiKeyFor(apiKey);
  if (api === undefined) throw new UnsupportedVersionError(`unknown api key ${apiKey}`);
  return api;
}

function frameReader(frame: Buffer): ByteReader {
  const size = readFrameSize(frame, 0, Number.MAX_SAFE_INTEGER);
  if (size === undefined || size !== frame.length - SIZE_PREFIX_BYTES) {
    throw new ProtocolError(`frame of ${frame.length} bytes does not match its size prefix ${size}`, 'size');
  }
  return new ByteReader(frame, SIZE_PREFIX_BYTES);
}

function finishFrame(writer: ByteWriter): Buffer {
  writer.patchInt32(0, writer.offset - SIZE_PREFIX_BYTES);
  return writer.toBuffer();
}

/**
 * Encodes a whole request frame: size, header (v1 or v2 by the API version), body.
 *
 * @throws {@link UnsupportedVersionError} for an unknown api key or a version the API lacks.
 * @throws {@link ProtocolError} for a value the body cannot encode.
 *
 * @example
 * ```ts
 * const frame = writeRequestFrame(
 *   { apiKey: ApiKeys.API_VERSIONS.key, apiVersion: 3, correlationId: 7, clientId: 'kraft' },
 *   ApiVersionsRequest.defaults({ clientSoftwareName: 'kraft', clientSoftwareVersion: '0.1.0' }),
 * );
 * readRequestFrame(frame).header.correlationId; // 7
 * ```
 */
export function writeRequestFrame(header: RequestFrameHeader, data: unknown): Buffer {
  const api = apiOrThrow(header.apiKey);
  const writer = new ByteWriter();
  writer.writeInt32(0);
  const headerData: RequestHeaderData = {
    requestApiKey: header.apiKey,
    requestApiVersion: header.apiVersion,
    correlationId: header.correlationId,
    clientId: header.clientId,
  };
  RequestHeader.writeTo(writer, headerData, api.requestHeaderVersion(header.apiVersion));
  api.request.writeTo(writer, data, header.apiVersion);
  return finishFrame(writer);
}

/**
 * Decodes only the header of a size-prefixed request frame: peeks the api key and version to
 * pick the header version. It works for versions the API lacks, so a server can still answer
 * them with UNSUPPORTED_VERSION.
 */
export function readRequestHeader(frame: Buffer): DecodedRequestHeader {
  const reader = frameReader(frame);
  if (reader.remaining() < 4)
    throw new ProtocolError('frame too short for a request header', 'RequestHeader');
  const api = apiOrThrow(frame.readInt16BE(SIZE_PREFIX_BYTES));
  const apiVersion = frame.readInt16BE(SIZE_PREFIX_BYTES + 2);
  const header = RequestHeader.readFrom(reader, api.requestHeaderVersion(apiVersion));
  return { header, api, bodyOffset: reader.offset };
}

/** Decodes a whole size-prefixed request frame; bytes after the body are an error. */
export function readRequestFrame(frame: Buffer): DecodedRequest {
  const decoded = readRequestHeader(frame);
  const data = decoded.api.request.read(frame.subarray(decoded.bodyOffset), decoded.header.requestApiVersion);
  return { ...decoded, data };
}

/** Encodes a whole response frame: size, header (v0 or v1; v0 for ApiVersions), body. */
export function writeResponseFrame(
  apiKey: number,
  apiVersion: number,
  correlationId: number,
  data: unknown,
): Buffer {
  const api = apiOrThrow(apiKey);
  const writer = new ByteWriter();
  writer.writeInt32(0);
  ResponseHeader.writeTo(writer, { correlationId }, api.responseHeaderVersion(apiVersion));
  api.response.writeTo(writer, data, apiVersion);
  return finishFrame(writer);
}

/**
 * Encodes a whole response frame as chunks for a vectored socket write (`socket.cork()` +
 * `write` per chunk, or `writev`): record batches of at least `zeroCopyThresholdBytes` are
 * referenced, never copied. The first chunk is the 4-byte size prefix.
 */
export function writeResponseFrameChunks(
  apiKey: number,
  apiVersion: number,
  correlationId: number,
  data: unknown,
  zeroCopyThresholdBytes = DEFAULT_ZERO_COPY_THRESHOLD_BYTES,
): Buffer[] {
  const api = apiOrThrow(apiKey);
  const writer = new ByteWriter().gatherLargeBytes(zeroCopyThresholdBytes);
  ResponseHeader.writeTo(writer, { correlationId }, api.responseHeaderVersion(apiVersion));
  api.response.writeTo(writer, data, apiVersion);
  const size = writer.sizeInBytes();
  const sizePrefix = Buffer.allocUnsafe(SIZE_PREFIX_BYTES);
  sizePrefix.writeInt32BE(size, 0);
  return [sizePrefix, ...writer.toChunks()];
}

/** The correlation id of a size-prefixed response frame, to match it before decoding. */
export function peekResponseCorrelationId(frame: Buffer): number {
  const reader = frameReader(frame);
  return reader.readInt32();
}

/** Decodes a whole response frame; the caller knows the api and version from the correlation id. */
export function readResponseFrame(frame: Buffer, apiKey: number, apiVersion: number): DecodedResponse {
  const api = apiOrThrow(apiKey);
  const reader = frameReader(frame);
  const header = ResponseHeader.readFrom(reader, api.responseHeaderVersion(apiVersion));
  const data = api.response.read(frame.subarray(reader.offset), apiVersion);
  return { correlationId: header.correlationId, data };
}
