import { type AddressInfo, createServer, type Socket } from 'node:net';
import type { InboundRequest, InboundResponse } from '@kraft/protocol';
import {
  ApiKeys,
  allApiKeys,
  FetchRequest,
  type Logger,
  silentLogger,
  VoteRequest,
  VoteResponse,
} from '@kraft/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchResponseWith } from '../test/socket-harness.js';
import { ApiRegistry } from './api-registry.js';
import {
  type ChannelMessage,
  TcpNetworkChannel,
  type TcpNetworkChannelOptions,
} from './tcp-network-channel.js';

const channels: TcpNetworkChannel[] = [];

afterEach(async () => {
  await Promise.all(channels.splice(0).map((channel) => channel.close()));
});

async function startChannel(
  nodeId: number,
  options: Partial<TcpNetworkChannelOptions> = {},
): Promise<{ channel: TcpNetworkChannel; port: number }> {
  const channel = new TcpNetworkChannel({
    nodeId,
    listeners: [{ name: 'CONTROLLER', host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' }],
    ...options,
  });
  channels.push(channel);
  const [bound] = await channel.start();
  return { channel, port: bound!.port };
}

async function nextMessage(channel: TcpNetworkChannel): Promise<ChannelMessage> {
  for (;;) {
    await channel.waitForMessages();
    const [message, ...rest] = channel.drain();
    expect(rest).toEqual([]);
    if (message !== undefined) return message;
  }
}

async function nextResponse(channel: TcpNetworkChannel): Promise<InboundResponse> {
  const message = await nextMessage(channel);
  if (message.kind !== 'response') throw new Error(`expected a response, got a ${message.kind}`);
  return message.response;
}

function sendVote(channel: TcpNetworkChannel, destinationId: number): number {
  const correlationId = channel.newCorrelationId();
  channel.send({
    correlationId,
    destinationId,
    apiKey: 52,
    apiVersion: 2,
    data: VoteRequest.defaults({ clusterId: 'q1Sh-9_ISia_ZGc4iNTUBQ' }),
    createdTimeMs: 0,
  });
  return correlationId;
}

interface LogLine {
  readonly level: string;
  readonly message: string | undefined;
  readonly fields: Record<string, unknown>;
}

/** A logger that records every line, with every level enabled so fields are built. */
function recordingLogger(): { lines: LogLine[]; logger: Logger } {
  const lines: LogLine[] = [];
  const record =
    (level: string) =>
    (fields: object, message?: string): void => {
      lines.push({ level, message, fields: fields as Record<string, unknown> });
    };
  const logger: Logger = {
    ...silentLogger,
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    child: () => logger,
    isLevelEnabled: () => true,
  };
  return { lines, logger };
}

/** A codec that claims a narrower version range than the real one, to stand in for an older peer. */
describe('TcpNetworkChannel', () => {
  it('delivers a request to the peer driver and its answer back with the sender correlation id', async () => {
    const a = await startChannel(1);
    const b = await startChannel(2);
    a.channel.updateEndpoint(2, { host: '127.0.0.1', port: b.port });
    const correlationId = sendVote(a.channel, 2);
    const inbound = await nextMessage(b.channel);
    expect(inbound.kind).toBe('request');
    const request = (inbound as { request: InboundRequest }).request;
    expect(request).toMatchObject({ apiKey: 52, apiVersion: 2, sourceId: -1, listenerName: 'CONTROLLER' });
    expect((request.data as { clusterId: string }).clusterId).toBe('q1Sh-9_ISia_ZGc4iNTUBQ');
    b.channel.sendResponse(request, VoteResponse.defaults({ errorCode: 74 }));
    const response = await nextResponse(a.channel);
    expect(response).toMatchObject({ correlationId, apiKey: 52, sourceId: 2 });
    expect((response.data as { errorCode: number }).errorCode).toBe(74);
  });

  it('answers a request to an unknown destination with BROKER_NOT_AVAILABLE', async () => {
    const a = await startChannel(1);
    const correlationId = sendVote(a.channel, 9);
    expect(await nextResponse(a.channel)).toMatchObject({
      correlationId,
      sourceId: 9,
      data: { errorCode: 8 },
    });
  });

  it('answers an unreachable destination with BROKER_NOT_AVAILABLE, and again at once during backoff', async () => {
    const a = await startChannel(1, {
      config: { reconnectBackoffMs: 10_000, reconnectBackoffMaxMs: 10_000 },
    });
    const b = await startChannel(2);
    await b.channel.close();
    a.channel.updateEndpoint(2, { host: '127.0.0.1', port: b.port });
    sendVote(a.channel, 2);
    expect((await nextResponse(a.channel)).data).toEqual({ errorCode: 8 });
    sendVote(a.channel, 2);
    expect((await nextResponse(a.channel)).data).toEqual({ errorCode: 8 });
  });

  it('logs a dead peer once, its retries at debug, then its return and its loss, each on one line', async () => {
    const { lines, logger } = recordingLogger();
    const a = await startChannel(1, { logger, config: { reconnectBackoffMs: 5, reconnectBackoffMaxMs: 10 } });
    const dead = await startChannel(2);
    await dead.channel.close();
    a.channel.updateEndpoint(2, { host: '127.0.0.1', port: dead.port });
    for (let attempt = 0; attempt < 5; attempt += 1) {
      sendVote(a.channel, 2);
      expect((await nextResponse(a.channel)).data).toEqual({ errorCode: 8 });
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    const warnings = () => lines.filter((line) => line.level === 'warn' || line.level === 'error');
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({
      message: 'cannot connect',
      fields: { remoteNodeId: 2, code: 'ECONNREFUSED', cause: `connect ECONNREFUSED 127.0.0.1:${dead.port}` },
    });
    for (const line of lines) expect(line.fields).not.toHaveProperty('err');
    const retries = lines.filter((line) => line.message === 'reconnect failed');
    expect(retries.length).toBeGreaterThanOrEqual(2);
    expect(retries.every((line) => line.level === 'debug')).toBe(true);

    const revived = await startChannel(2, {
      listeners: [{ name: 'CONTROLLER', host: '127.0.0.1', port: dead.port, securityProtocol: 'PLAINTEXT' }],
    });
    sendVote(a.channel, 2);
    expect((await nextMessage(revived.channel)).kind).toBe('request');
    const restored = lines.find((line) => line.message === 'connection restored');
    expect(restored).toMatchObject({ level: 'info', fields: { remoteNodeId: 2 } });
    expect(restored?.fields['failedAttempts']).toBe(retries.length + 1);

    await revived.channel.close();
    await expect.poll(() => warnings().length).toBe(2);
    expect(warnings()[1]).toMatchObject({ message: 'connection lost', fields: { remoteNodeId: 2 } });
  });

  it('logs a peer lost while this node shuts down at info, not warn', async () => {
    const { lines, logger } = recordingLogger();
    const a = await startChannel(1, { logger });
    const b = await startChannel(2);
    a.channel.updateEndpoint(2, { host: '127.0.0.1', port: b.port });
    sendVote(a.channel, 2);
    await nextMessage(b.channel);
    a.channel.beginShutdown();
    await b.channel.close();
    await expect.poll(() => lines.some((line) => line.message === 'connection lost')).toBe(true);
    expect(lines.find((line) => line.message === 'connection lost')?.level).toBe('info');
    expect(lines.filter((line) => line.level === 'warn' || line.level === 'error')).toEqual([]);
  });

  it('times out an unanswered request with REQUEST_TIMED_OUT', async () => {
    const a = await startChannel(1, { config: { requestTimeoutMs: 60 } });
    const b = await startChannel(2);
    a.channel.updateEndpoint(2, { host: '127.0.0.1', port: b.port });
    const correlationId = sendVote(a.channel, 2);
    expect((await nextMessage(b.channel)).kind).toBe('request');
    expect(await nextResponse(a.channel)).toMatchObject({ correlationId, data: { errorCode: 7 } });
  });

  it('answers UNSUPPORTED_VERSION when the peer does not serve the api', async () => {
    const a = await startChannel(1);
    const b = await startChannel(2, {
      apis: new ApiRegistry(allApiKeys().filter((api) => api !== ApiKeys.VOTE)),
    });
    a.channel.updateEndpoint(2, { host: '127.0.0.1', port: b.port });
    sendVote(a.channel, 2);
    expect((await nextResponse(a.channel)).data).toEqual({ errorCode: 35 });
  });

  it('negotiates down to an older peer: retries ApiVersions at its max and sends at the common version', async () => {
    const a = await startChannel(1);
    const b = await startChannel(2, {
      apis: new ApiRegistry(
        allApiKeys(),
        new Map([
          [ApiKeys.API_VERSIONS.key, 2],
          [ApiKeys.VOTE.key, 1],
        ]),
      ),
    });
    a.channel.updateEndpoint(2, { host: '127.0.0.1', port: b.port });
    sendVote(a.channel, 2);
    const inbound = await nextMessage(b.channel);
    const request = (inbound as { request: InboundRequest }).request;
    expect(request.apiVersion).toBe(1);
    b.channel.sendResponse(request, VoteResponse.defaults({ errorCode: 0 }));
    expect(((await nextResponse(a.channel)).data as { errorCode: number }).errorCode).toBe(0);
  });

  it('times out a request to a peer that accepts connections but never answers ApiVersions', async () => {
    const accepted: Socket[] = [];
    const silent = createServer((socket) => {
      accepted.push(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address() as AddressInfo;
    const a = await startChannel(1, { config: { requestTimeoutMs: 60 } });
    a.channel.updateEndpoint(2, { host: '127.0.0.1', port: address.port });
    const correlationId = sendVote(a.channel, 2);
    expect(await nextResponse(a.channel)).toMatchObject({ correlationId, data: { errorCode: 7 } });
    for (const socket of accepted) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('completes outstanding requests with BROKER_NOT_AVAILABLE on close', async () => {
    const a = await startChannel(1);
    const b = await startChannel(2);
    a.channel.updateEndpoint(2, { host: '127.0.0.1', port: b.port });
    sendVote(a.channel, 2);
    expect((await nextMessage(b.channel)).kind).toBe('request');
    await a.channel.close();
    expect(a.channel.drain().map((message) => message.kind === 'response' && message.response.data)).toEqual([
      { errorCode: 8 },
    ]);
  });

  it('drops the responses that close() cancels after the sink has stopped without logging an error', async () => {
    const messages: string[] = [];
    const record =
      (level: string) =>
      (_object: object, message?: string): void => {
        messages.push(`${level} ${message}`);
      };
    const logger: Logger = {
      ...silentLogger,
      debug: record('debug'),
      warn: record('warn'),
      error: record('error'),
      child: () => logger,
    };
    const a = await startChannel(1, { logger });
    const b = await startChannel(2);
    let requestArrived!: () => void;
    const arrived = new Promise<void>((resolve) => {
      requestArrived = resolve;
    });
    // b keeps the request unanswered; a's sink has stopped, as the RaftDriver has when the server closes the channel.
    b.channel.attach({
      deliverRequest: () => {
        requestArrived();
        return true;
      },
      deliverResponse: () => true,
    });
    a.channel.attach({ deliverRequest: () => false, deliverResponse: () => false });
    a.channel.updateEndpoint(2, { host: '127.0.0.1', port: b.port });
    sendVote(a.channel, 2);
    await arrived;
    await a.channel.close();
    expect(messages.filter((message) => message.startsWith('error'))).toEqual([]);
    expect(messages).toContain('debug channel closed, dropping response');
  });

  it('pushes requests and responses to an attached sink such as the RaftDriver', async () => {
    const a = await startChannel(1);
    const b = await startChannel(2);
    const received: string[] = [];
    let answered!: () => void;
    const done = new Promise<void>((resolve) => {
      answered = resolve;
    });
    b.channel.attach({
      deliverRequest: (request) => {
        received.push(`request ${request.apiKey}`);
        b.channel.sendResponse(request, VoteResponse.defaults());
        return true;
      },
      deliverResponse: () => false,
    });
    a.channel.attach({
      deliverRequest: () => false,
      deliverResponse: (response) => {
        received.push(`response ${response.apiKey}`);
        answered();
        return true;
      },
    });
    a.channel.updateEndpoint(2, { host: '127.0.0.1', port: b.port });
    sendVote(a.channel, 2);
    await done;
    expect(received).toEqual(['request 52', 'response 52']);
    expect(a.channel.queuedMessageCount() + b.channel.queuedMessageCount()).toBe(0);
  });

  it('closes the connection of a request the sink refuses; the sender sees BROKER_NOT_AVAILABLE', async () => {
    const a = await startChannel(1);
    const b = await startChannel(2);
    b.channel.attach({ deliverRequest: () => false, deliverResponse: () => true });
    a.channel.updateEndpoint(2, { host: '127.0.0.1', port: b.port });
    sendVote(a.channel, 2);
    expect((await nextResponse(a.channel)).data).toEqual({ errorCode: 8 });
  });

  it('hands received Fetch records to the driver as a view of the response frame, not a copy', async () => {
    const a = await startChannel(1);
    const b = await startChannel(2);
    a.channel.updateEndpoint(2, { host: '127.0.0.1', port: b.port });
    const records = Buffer.alloc(3 * 1024 * 1024, 3);
    a.channel.send({
      correlationId: a.channel.newCorrelationId(),
      destinationId: 2,
      apiKey: 1,
      apiVersion: 17,
      data: FetchRequest.defaults(),
      createdTimeMs: 0,
    });
    const inbound = await nextMessage(b.channel);
    b.channel.sendResponse((inbound as { request: InboundRequest }).request, fetchResponseWith(records));
    const response = await nextResponse(a.channel);
    const received = (response.data as { responses: { partitions: { records: Buffer }[] }[] }).responses[0]!
      .partitions[0]!.records;
    expect(received.equals(records)).toBe(true);
    // A copy of 3 MiB would own its memory from offset 0; a view sits after the frame's header.
    expect(received.byteOffset).toBeGreaterThan(0);
    expect(received.buffer.byteLength).toBeGreaterThan(received.length);
  });

  it('accepts a response above socket.request.max.bytes, which bounds only the requests a server reads', async () => {
    // A FetchSnapshot chunk is as large as the follower asked for; Kafka's controller client reads
    // responses with NetworkReceive.UNLIMITED. Refusing the frame would retry the same chunk forever.
    const a = await startChannel(1, { config: { socketRequestMaxBytes: 64 * 1024 } });
    const b = await startChannel(2);
    a.channel.updateEndpoint(2, { host: '127.0.0.1', port: b.port });
    const records = Buffer.alloc(1024 * 1024, 5);
    a.channel.send({
      correlationId: a.channel.newCorrelationId(),
      destinationId: 2,
      apiKey: 1,
      apiVersion: 17,
      data: FetchRequest.defaults(),
      createdTimeMs: 0,
    });
    const inbound = await nextMessage(b.channel);
    b.channel.sendResponse((inbound as { request: InboundRequest }).request, fetchResponseWith(records));
    const response = await nextResponse(a.channel);
    const received = (response.data as { responses: { partitions: { records: Buffer }[] }[] }).responses[0]
      ?.partitions[0]?.records;
    expect(received?.equals(records)).toBe(true);
  });

  it('takes endpoints from controller.quorum.voters', async () => {
    const b = await startChannel(2);
    const a = await startChannel(1, { voters: [{ nodeId: 2, host: '127.0.0.1', port: b.port }] });
    sendVote(a.channel, 2);
    const inbound = await nextMessage(b.channel);
    expect(inbound.kind).toBe('request');
  });
});
