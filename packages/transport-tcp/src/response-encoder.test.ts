import { ApiKeys, ApiVersionsResponse, DEFAULT_ZERO_COPY_THRESHOLD_BYTES } from '@kraft/protocol';
import { describe, expect, it } from 'vitest';
import { fetchResponseWith, fetchSnapshotResponseWith, hex } from '../test/socket-harness.js';
import type { OutboundPayload } from './outbound-payload.js';
import { encodeResponse } from './response-encoder.js';

/** The bytes a whole-frame payload puts on the wire. */
function frameBytes(payload: OutboundPayload): Buffer {
  if (payload.kind === 'frame') return payload.frame;
  if (payload.kind === 'chunks') return Buffer.concat(payload.chunks);
  throw new Error('expected a whole-frame payload');
}

describe('encodeResponse', () => {
  it('writes §9 J (ApiVersionsResponse v4) byte for byte with a v0 response header', () => {
    const data = ApiVersionsResponse.defaults({
      apiKeys: [
        { apiKey: 18, minVersion: 0, maxVersion: 4 },
        { apiKey: 52, minVersion: 0, maxVersion: 1 },
      ],
    });
    const payload = encodeResponse(ApiKeys.API_VERSIONS, 4, 0, data);
    expect(payload.kind).toBe('frame');
    if (payload.kind === 'frame') {
      expect(payload.frame.toString('hex')).toBe(
        hex('0000001a0000000000000300120000000400003400000001000000000000').toString('hex'),
      );
    }
  });

  it('encodes MemoryRecords-like records from their buffer, identical to a plain Buffer', () => {
    const bytes = Buffer.from('000102030405060708090a', 'hex');
    const api = ApiKeys.FETCH;
    const memoryRecords = { sizeInBytes: () => bytes.length, buffer: () => bytes };
    const fromRecords = encodeResponse(api, 17, 3, fetchResponseWith(memoryRecords));
    const fromBuffer = encodeResponse(api, 17, 3, fetchResponseWith(bytes));
    expect(frameBytes(fromRecords).toString('hex')).toBe(frameBytes(fromBuffer).toString('hex'));
  });

  it('references large MemoryRecords-like records in the frame chunks instead of copying them', () => {
    const bytes = Buffer.alloc(DEFAULT_ZERO_COPY_THRESHOLD_BYTES, 3);
    const memoryRecords = { sizeInBytes: () => bytes.length, buffer: () => bytes };
    const payload = encodeResponse(ApiKeys.FETCH, 17, 3, fetchResponseWith(memoryRecords));
    if (payload.kind !== 'chunks') throw new Error('expected chunks');
    expect(payload.chunks.some((chunk) => chunk.buffer === bytes.buffer)).toBe(true);
    const plain = encodeResponse(ApiKeys.FETCH, 17, 3, fetchResponseWith(bytes));
    expect(frameBytes(payload).equals(frameBytes(plain))).toBe(true);
  });

  it('leaves file-backed records out of the body and restores the exact frame when streamed', () => {
    const bytes = Buffer.alloc(300, 9);
    const api = ApiKeys.FETCH;
    for (const version of [4, 11, 12, 17]) {
      const source = {
        sizeInBytes: () => bytes.length,
        readInto: (target: Buffer, position: number) => bytes.copy(target, 0, position),
      };
      const streamed = encodeResponse(api, version, 3, fetchResponseWith(source));
      const plain = encodeResponse(api, version, 3, fetchResponseWith(bytes));
      expect(streamed.kind).toBe('records');
      if (streamed.kind !== 'records' || plain.kind !== 'frame') continue;
      expect(streamed.head.length + streamed.tail.length).toBe(plain.frame.length - bytes.length);
      expect(Buffer.concat([streamed.head, bytes, streamed.tail]).toString('hex')).toBe(
        plain.frame.toString('hex'),
      );
    }
  });

  it('streams FetchSnapshot unaligned records the same way', () => {
    const bytes = Buffer.alloc(300, 5);
    const api = ApiKeys.FETCH_SNAPSHOT;
    for (const version of [0, 1]) {
      const source = {
        sizeInBytes: () => bytes.length,
        readInto: (target: Buffer, position: number) => bytes.copy(target, 0, position),
      };
      const streamed = encodeResponse(api, version, 4, fetchSnapshotResponseWith(source));
      const plain = encodeResponse(api, version, 4, fetchSnapshotResponseWith(bytes));
      if (streamed.kind !== 'records' || plain.kind !== 'frame')
        throw new Error('expected a streamed and a plain payload');
      expect(Buffer.concat([streamed.head, bytes, streamed.tail]).toString('hex')).toBe(
        plain.frame.toString('hex'),
      );
    }
  });
});
