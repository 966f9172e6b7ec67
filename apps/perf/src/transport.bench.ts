// Transport throughput over loopback, each figure beside a raw Node socket doing the same work in
// the same run (same process, same frame sizes), reported as a ratio:
//   - request/response round trips per second, 1 and 64 in flight (Vote v2);
//   - Fetch-response MB/s with 1 MiB of records streamed from a FileRecords slice.
// KRAFT_BENCH_MS sets the duration of each measurement (default 2000).
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  FetchRequest,
  FetchResponse,
  type FieldMap,
  type StructDeclaration,
  structDefaults,
  VoteRequest,
  VoteResponse,
  writeRequestFrame,
} from '@kraft/protocol';
import { FileRecords, MemoryRecordsBuilder } from '@kraft/records';
import { FrameDecoder, InboundServer, kraftApiRegistry, OutboundClient } from '@kraft/transport-tcp';

const DURATION_SETTING = 'KRAFT_BENCH_MS';
const DURATION_MS = Number(process.env[DURATION_SETTING] ?? 2000);
const RECORDS_BYTES = 1024 * 1024;
const apis = kraftApiRegistry();

type SendOnce = () => Promise<number>;

/**
 * The machine is shared and noisy: each figure alternates short rounds of ours and raw so both
 * see the same conditions, and reports the medians.
 */
const ROUNDS = 5;

interface DriveResult {
  readonly perSecond: number;
  readonly bytesPerSecond: number;
}

async function alternate(
  ours: SendOnce,
  raw: SendOnce,
  inFlight: number,
  figure: (result: DriveResult) => number,
): Promise<[number, number]> {
  const ourFigures: number[] = [];
  const rawFigures: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    rawFigures.push(figure(await drive(raw, inFlight, DURATION_MS / ROUNDS)));
    ourFigures.push(figure(await drive(ours, inFlight, DURATION_MS / ROUNDS)));
  }
  return [median(ourFigures), median(rawFigures)];
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** Keeps `inFlight` calls of `send` outstanding for `durationMs`; returns completions/s and bytes/s. */
async function drive(send: SendOnce, inFlight: number, durationMs: number): Promise<DriveResult> {
  const endAt = performance.now() + durationMs;
  let completed = 0;
  let bytes = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (performance.now() < endAt) {
        bytes += await send();
        completed += 1;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: completed / seconds, bytesPerSecond: bytes / seconds };
}

function elementOf(declaration: StructDeclaration<FieldMap>, name: string): StructDeclaration<FieldMap> {
  return declaration.fields[name]!.element as StructDeclaration<FieldMap>;
}

function fetchResponseWith(records: unknown): unknown {
  const topic = elementOf(FetchResponse.declaration, 'responses');
  const partition = { ...structDefaults(elementOf(topic, 'partitions')), highWatermark: 10n, records };
  return FetchResponse.defaults({
    responses: [{ ...structDefaults(topic), partitions: [partition] }],
  } as never);
}

/** A 1 MiB record batch written to a temporary file, served as a FileRecords slice. */
function fileRecordsFixture(directory: string): FileRecords {
  const builder = new MemoryRecordsBuilder({ baseOffset: 0, maxBatchSizeBytes: 2 * RECORDS_BYTES });
  const value = Buffer.alloc(1000, 7);
  while (builder.estimatedSizeInBytes() < RECORDS_BYTES - 1100)
    builder.append({ timestamp: 1_700_000_000_000, value });
  const file = FileRecords.open(join(directory, '00000000000000000000.log'));
  file.append(builder.build());
  return file;
}

async function ourTransport(
  records: FileRecords,
): Promise<{ close: () => Promise<void>; vote: SendOnce; fetch: SendOnce }> {
  const voteResponse = VoteResponse.defaults();
  const slice = records.slice(0, records.sizeInBytes());
  const server = new InboundServer({
    listeners: [{ name: 'CONTROLLER', host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' }],
    apis,
    handler: {
      handleRequest: (call) =>
        call.respond(call.header.requestApiKey === 1 ? fetchResponseWith(slice) : voteResponse),
    },
  });
  const [bound] = await server.start();
  const client = new OutboundClient({
    apis,
    clientId: 'raft-client-2',
    config: { requestTimeoutMs: 60_000 },
  });
  client.updateEndpoint(1, { host: '127.0.0.1', port: bound!.port });
  const voteData = VoteRequest.defaults({ clusterId: 'q1Sh-9_ISia_ZGc4iNTUBQ' });
  const fetchData = FetchRequest.defaults();
  const send = (apiKey: number, maxVersion: number, data: unknown): Promise<unknown> =>
    new Promise((resolve) =>
      client.send(1, { apiKey, maxVersion, data, deadlineMs: Number.MAX_SAFE_INTEGER, complete: resolve }),
    );
  return {
    vote: async () => {
      await send(52, 2, voteData);
      return 0;
    },
    fetch: async () => {
      const response = (await send(1, 17, fetchData)) as {
        responses: { partitions: { records: Buffer | null }[] }[];
      };
      return response.responses[0]?.partitions[0]?.records?.length ?? 0;
    },
    close: async () => {
      client.close();
      await server.close();
    },
  };
}

/** `body` behind its 4-byte size prefix, as the bare-socket side frames its bytes. */
function sizePrefixed(body: Buffer): Buffer {
  const prefix = Buffer.allocUnsafe(4);
  prefix.writeInt32BE(body.length, 0);
  return Buffer.concat([prefix, body]);
}

/** The same exchanges over a bare socket: size-prefixed frames of the same sizes, no codecs. */
async function rawSockets(requestBytes: number, responseBytes: number, fetchResponseBytes: number) {
  const smallResponse = sizePrefixed(Buffer.alloc(responseBytes, 1));
  const bigResponse = sizePrefixed(Buffer.alloc(fetchResponseBytes, 2));
  const server: Server = createServer({ noDelay: true }, (socket) => {
    const decoder = new FrameDecoder();
    socket.on('data', (chunk: Buffer) => {
      decoder.push(chunk);
      for (let result = decoder.next(); result.kind === 'frame'; result = decoder.next()) {
        socket.write(result.frame[4] === 1 ? bigResponse : smallResponse);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const socket: Socket = await new Promise((resolve) => {
    const opened = connect({ host: '127.0.0.1', port, noDelay: true }, () => resolve(opened));
  });
  const waiting: Array<(frame: Buffer) => void> = [];
  const decoder = new FrameDecoder();
  socket.on('data', (chunk: Buffer) => {
    decoder.push(chunk);
    for (let result = decoder.next(); result.kind === 'frame'; result = decoder.next())
      waiting.shift()?.(result.frame);
  });
  const exchange = (kind: number): Promise<number> =>
    new Promise((resolve) => {
      waiting.push((frame) => resolve(frame.length - 4));
      const request = Buffer.alloc(requestBytes, 0);
      request[0] = kind;
      socket.write(sizePrefixed(request));
    });
  return {
    vote: async () => {
      await exchange(0);
      return 0;
    },
    fetch: async () => (await exchange(1)) - 64,
    close: async () => {
      socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function voteRequestFrameBytes(): number {
  const header = { apiKey: 52, apiVersion: 2, correlationId: 0, clientId: 'raft-client-2' };
  return writeRequestFrame(header, VoteRequest.defaults({ clusterId: 'q1Sh-9_ISia_ZGc4iNTUBQ' })).length - 4;
}

function row(name: string, ours: number, raw: number, unit: string): void {
  process.stdout.write(
    `  ${name.padEnd(34)} ours ${ours.toFixed(0).padStart(10)} ${unit.padEnd(6)} raw ${raw.toFixed(0).padStart(10)} ${unit.padEnd(6)} ratio ${(ours / raw).toFixed(2)}\n`,
  );
}

const directory = mkdtempSync(join(tmpdir(), 'kraft-transport-bench-'));
try {
  const records = fileRecordsFixture(directory);
  const ours = await ourTransport(records);
  const voteResponseBytes = 5 + VoteResponse.write(VoteResponse.defaults(), 2).length;
  const raw = await rawSockets(voteRequestFrameBytes(), voteResponseBytes, records.sizeInBytes() + 64);
  // Warm both paths (JIT, connection, ApiVersions) before measuring.
  for (let index = 0; index < 2000; index += 1) {
    await ours.vote();
    await raw.vote();
  }
  process.stdout.write(
    `transport over loopback (${ROUNDS} alternating rounds of ${DURATION_MS / ROUNDS} ms per side, same process; medians, ratio = ours / raw socket)\n`,
  );
  for (const inFlight of [1, 64]) {
    const [ourRate, rawRate] = await alternate(ours.vote, raw.vote, inFlight, (result) => result.perSecond);
    row(`Vote round trips, ${inFlight} in flight`, ourRate, rawRate, 'req/s');
  }
  const [ourBytes, rawBytes] = await alternate(
    ours.fetch,
    raw.fetch,
    4,
    (result) => result.bytesPerSecond / 1e6,
  );
  row('Fetch response, 1 MiB records, 4 in flight', ourBytes, rawBytes, 'MB/s');
  await ours.close();
  await raw.close();
  records.close();
} finally {
  rmSync(directory, { recursive: true, force: true });
}
