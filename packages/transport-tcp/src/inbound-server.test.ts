import type { Logger } from '@kraft/protocol';
import {
  ApiKeys,
  ApiVersionsResponse,
  apiKeyFor,
  FetchResponse,
  ProtocolError,
  VoteRequest,
} from '@kraft/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import {
  fetchResponseWith,
  hex,
  RawClient,
  requestFrame,
  startTestServer,
  type TestServer,
} from '../test/socket-harness.js';
import type { InboundCall } from './inbound-call.js';
import type { ChunkedRecordsSource } from './outbound-payload.js';

let server: TestServer | undefined;
const clients: RawClient[] = [];

async function open(onCall?: (call: InboundCall) => void, config = {}): Promise<RawClient> {
  server = await startTestServer(onCall, config);
  const client = await RawClient.open(server.port);
  clients.push(client);
  return client;
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await server?.server.close();
  server = undefined;
});

function answerDefaults(call: InboundCall): void {
  call.respond(apiKeyFor(call.header.requestApiKey)!.response.defaults());
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A FileRecords stand-in: bytes served only through bounded `readInto` copies. */
class FakeFileRecords implements ChunkedRecordsSource {
  readonly bytes: Buffer;
  readCalls = 0;
  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }
  sizeInBytes(): number {
    return this.bytes.length;
  }
  readInto(target: Buffer, position: number): number {
    this.readCalls += 1;
    return this.bytes.copy(target, 0, position, Math.min(this.bytes.length, position + target.length));
  }
}

/** Adds FileRecords' `writeTo`: 64 KiB chunks, stopping after one the destination refused more of. */
class FakeFileRecordsWithWriteTo extends FakeFileRecords {
  writeToCalls = 0;
  writeTo(destination: { write(chunk: Buffer): boolean }, position: number, length: number): number {
    this.writeToCalls += 1;
    let written = 0;
    while (written < length) {
      const chunk = Buffer.from(
        this.bytes.subarray(position + written, position + written + Math.min(65_536, length - written)),
      );
      written += chunk.length;
      if (!destination.write(chunk)) break;
    }
    return written;
  }
}

/** Records warn lines; every level is enabled so the server builds its fields. */
function recordingLogger(warnings: object[]): Logger {
  const ignore = (): void => {};
  const logger: Logger = {
    trace: ignore,
    debug: ignore,
    info: ignore,
    warn: (fields) => warnings.push(fields),
    error: ignore,
    fatal: ignore,
    child: () => logger,
    isLevelEnabled: () => true,
  };
  return logger;
}

describe('InboundServer', () => {
  it('samples the warnings of connections it rejects instead of logging each', async () => {
    const warnings: object[] = [];
    server = await startTestServer(undefined, {}, recordingLogger(warnings));
    for (let index = 0; index < 25; index += 1) {
      const client = await RawClient.open(server.port);
      clients.push(client);
      await client.write(hex('ffffffff'));
      await client.closed;
    }
    expect(warnings).toHaveLength(20);
    expect(warnings[0]).toMatchObject({ reason: 'invalid frame size', suppressedCloseLogs: 0 });
  });

  it('rejects a malformed body with a typed error carrying its field path and no stack trace', async () => {
    const warnings: object[] = [];
    server = await startTestServer(undefined, {}, recordingLogger(warnings));
    const client = await RawClient.open(server.port);
    clients.push(client);
    await client.write(hex('0000000c 0034 0002 00000001 ffff 00 ff'));
    await client.closed;
    const warning = warnings[0] as { cause: string; code: string };
    expect(warning.code).toBe(new ProtocolError('any').code);
    expect(warning.cause).toMatch(/^VoteRequest/);
    expect(warning).not.toHaveProperty('err');
  });

  it('still writes the answers of earlier requests when a later frame closes the connection', async () => {
    const client = await open(answerDefaults);
    await client.write(Buffer.concat([requestFrame(52, 2, 7), hex('ffffffff')]));
    expect((await client.nextFrame()).readInt32BE(0)).toBe(7);
    await client.closed;
  });

  it('closes the connection on a negative frame size', async () => {
    const client = await open();
    await client.write(hex('ffffffff'));
    await client.closed;
  });

  it('closes the connection on a frame above socket.request.max.bytes before it arrives', async () => {
    const client = await open(undefined, { socketRequestMaxBytes: 1024 });
    await client.write(hex('00000401'));
    await client.closed;
  });

  it('closes the connection on an unknown api key', async () => {
    const client = await open();
    await client.write(hex('00000008 0063 0000 00000001'));
    await client.closed;
  });

  it('closes the connection on a malformed request body', async () => {
    const client = await open(answerDefaults);
    await client.write(hex('0000000c 0034 0002 00000001 ffff 00 ff'));
    await client.closed;
    expect(server!.calls).toHaveLength(0);
  });

  it('answers an unknown ApiVersions version with a v0 UNSUPPORTED_VERSION response listing its range', async () => {
    const client = await open();
    await client.write(hex('0000000b 0012 0063 0000002a ffff 00'));
    const frame = await client.nextFrame();
    expect(frame.readInt32BE(0)).toBe(42);
    const response = ApiVersionsResponse.read(frame.subarray(4), 0);
    expect(response.errorCode).toBe(35);
    const apiVersions = ApiKeys.API_VERSIONS;
    expect(response.apiKeys).toEqual([
      { apiKey: 18, minVersion: apiVersions.lowestVersion, maxVersion: apiVersions.highestVersion },
    ]);
  });

  it('closes the connection on an unsupported version of another api', async () => {
    const client = await open();
    await client.write(hex('0000000a 0034 0063 00000001 ffff'));
    await client.closed;
  });

  it('answers ApiVersions v3 with an invalid client software name with INVALID_REQUEST', async () => {
    const client = await open();
    await client.write(
      requestFrame(18, 3, 5, { clientSoftwareName: '-bad name', clientSoftwareVersion: '1.0' }),
    );
    const frame = await client.nextFrame();
    const response = ApiVersionsResponse.read(frame.subarray(4), 3);
    expect(response.errorCode).toBe(42);
    expect(response.apiKeys).toEqual([]);
  });

  it('writes responses in request order when handlers answer out of order', async () => {
    const client = await open();
    for (let correlationId = 0; correlationId < 5; correlationId += 1) {
      await client.write(requestFrame(52, 2, correlationId, VoteRequest.defaults()));
    }
    while (server!.calls.length < 5) await sleep(1);
    for (const call of [...server!.calls].reverse()) answerDefaults(call);
    const order: number[] = [];
    for (let index = 0; index < 5; index += 1) order.push((await client.nextFrame()).readInt32BE(0));
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('stops reading at the in-flight bound and resumes as responses leave', async () => {
    const client = await open(undefined, { maxInFlightRequestsPerConnection: 2 });
    for (let correlationId = 0; correlationId < 6; correlationId += 1) {
      await client.write(requestFrame(52, 2, correlationId));
    }
    await sleep(50);
    expect(server!.calls).toHaveLength(2);
    for (let answered = 0; answered < 6; answered += 1) {
      while (server!.calls.length <= answered) await sleep(1);
      expect(server!.calls.length - answered).toBeLessThanOrEqual(2);
      answerDefaults(server!.calls[answered]!);
      expect((await client.nextFrame()).readInt32BE(0)).toBe(answered);
    }
  });

  it('closes an idle connection after connections.max.idle.ms', async () => {
    const client = await open(undefined, { connectionsMaxIdleMs: 40 });
    await client.closed;
  });

  it('cuts off a sender that does not finish a started frame in time', async () => {
    const client = await open(undefined, { frameCompletionTimeoutMs: 60, connectionsMaxIdleMs: 600_000 });
    await client.write(requestFrame(52, 2, 1).subarray(0, 10));
    await client.closed;
    expect(server!.calls).toHaveLength(0);
  });

  it('closes connections beyond the connection cap', async () => {
    const first = await open(answerDefaults, { maxConnections: 1 });
    const second = await RawClient.open(server!.port);
    clients.push(second);
    await second.closed;
    await first.write(requestFrame(52, 2, 3));
    expect((await first.nextFrame()).readInt32BE(0)).toBe(3);
  });

  for (const variant of ['readInto', 'writeTo'] as const) {
    it(`streams Fetch records through ${variant} into a frame identical to the in-memory encoding`, async () => {
      const bytes = Buffer.alloc(3_000_000, 0xab);
      bytes.writeUInt32BE(0xdeadbeef, 2_999_000);
      const records =
        variant === 'readInto' ? new FakeFileRecords(bytes) : new FakeFileRecordsWithWriteTo(bytes);
      const response = fetchResponseWith(records);
      const client = await open((call) => call.respond(response));
      await client.write(requestFrame(1, 17, 11));
      const frame = await client.nextFrame();
      if (records instanceof FakeFileRecordsWithWriteTo)
        expect(records.writeToCalls).toBeGreaterThanOrEqual(1);
      else expect(records.readCalls).toBeGreaterThan(1);
      const decoded = FetchResponse.read(frame.subarray(5), 17);
      const decodedRecords = decoded.responses[0]!.partitions[0]!.records;
      expect(decodedRecords?.equals(records.bytes)).toBe(true);
      const inMemory = FetchResponse.write(fetchResponseWith(records.bytes) as never, 17);
      expect(frame.subarray(5).equals(inMemory)).toBe(true);
    });
  }

  it('answers a burst of frames arriving in one segment, beyond one turn of processing', async () => {
    const client = await open(answerDefaults);
    const burst = Buffer.concat(
      Array.from({ length: 100 }, (_, correlationId) => requestFrame(52, 2, correlationId)),
    );
    await client.write(burst);
    for (let correlationId = 0; correlationId < 100; correlationId += 1) {
      expect((await client.nextFrame()).readInt32BE(0)).toBe(correlationId);
    }
  });

  it('pauses reading while unsent response bytes exceed the high-water mark', async () => {
    const records = new FakeFileRecords(Buffer.alloc(8 * 1024 * 1024, 1));
    const client = await open(
      (call) => {
        if (call.header.requestApiKey === 1) call.respond(fetchResponseWith(records));
      },
      { outboundHighWaterMarkBytes: 64 * 1024 },
    );
    client.socket.pause();
    await client.write(requestFrame(1, 17, 1));
    while (server!.calls.length < 1) await sleep(1);
    for (let correlationId = 2; correlationId < 12; correlationId += 1)
      await client.write(requestFrame(52, 2, correlationId));
    await sleep(50);
    expect(server!.calls).toHaveLength(1);
    client.socket.resume();
    expect((await client.nextFrame()).readInt32BE(0)).toBe(1);
    while (server!.calls.length < 11) await sleep(1);
    for (const call of server!.calls.slice(1)) answerDefaults(call);
    for (let correlationId = 2; correlationId < 12; correlationId += 1) {
      expect((await client.nextFrame()).readInt32BE(0)).toBe(correlationId);
    }
  });
});
