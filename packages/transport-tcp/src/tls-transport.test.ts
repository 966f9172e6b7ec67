import { connect as connectTcp } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import type { InboundRequest, InboundResponse } from '@kraft/protocol';
import { FetchRequest, FetchResponse, type Logger, VoteRequest, VoteResponse } from '@kraft/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchResponseWith, nextTurn, requestFrame } from '../test/socket-harness.js';
import { tlsSettingsFor, trustOnlySettings } from '../test/tls-fixtures.js';
import { kraftApiRegistry } from './api-registry.js';
import { FrameDecoder } from './frame-codec.js';
import { InboundServer } from './inbound-server.js';
import type { ChunkedRecordsSource } from './outbound-payload.js';
import {
  type ChannelMessage,
  TcpNetworkChannel,
  type TcpNetworkChannelOptions,
} from './tcp-network-channel.js';
import { TlsContext, type TlsSettings } from './tls-context.js';

const closers: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

interface LogLine {
  readonly level: 'warn' | 'debug';
  readonly fields: Record<string, unknown>;
  readonly message: string | undefined;
}

/** Records warn and debug lines; every level is enabled so fields are built. */
function recordingLogger(lines: LogLine[]): Logger {
  const ignore = (): void => {};
  const record =
    (level: LogLine['level']) =>
    (fields: unknown, message?: string): void => {
      lines.push({ level, fields: fields as Record<string, unknown>, message });
    };
  const logger: Logger = {
    trace: ignore,
    debug: record('debug'),
    info: ignore,
    warn: record('warn'),
    error: ignore,
    fatal: ignore,
    child: () => logger,
    isLevelEnabled: () => true,
  };
  return logger;
}

/** A channel serving one SSL (or PLAINTEXT, when `tls` is undefined) listener on 127.0.0.1:0. */
async function startChannel(
  nodeId: number,
  tls: TlsSettings | undefined,
  options: Partial<TcpNetworkChannelOptions> = {},
): Promise<{ channel: TcpNetworkChannel; port: number }> {
  const channel = new TcpNetworkChannel({
    nodeId,
    listeners: [
      {
        name: 'CONTROLLER',
        host: '127.0.0.1',
        port: 0,
        securityProtocol: tls === undefined ? 'PLAINTEXT' : 'SSL',
      },
    ],
    ...(tls === undefined ? {} : { tls: TlsContext.create(tls) }),
    ...options,
  });
  closers.push(() => channel.close());
  const [bound] = await channel.start();
  return { channel, port: bound!.port };
}

/** A client-only channel (no listener) connecting with `tls`. */
function clientChannel(
  tls: TlsSettings | undefined,
  options: Partial<TcpNetworkChannelOptions> = {},
): TcpNetworkChannel {
  const channel = new TcpNetworkChannel({
    nodeId: 9,
    listeners: [],
    ...(tls === undefined ? {} : { tls: TlsContext.create(tls), outboundSecurityProtocol: 'SSL' }),
    ...options,
  });
  closers.push(() => channel.close());
  return channel;
}

async function nextMessage(channel: TcpNetworkChannel): Promise<ChannelMessage> {
  for (;;) {
    await channel.waitForMessages();
    const [message] = channel.drain();
    if (message !== undefined) return message;
  }
}

async function nextRequest(channel: TcpNetworkChannel): Promise<InboundRequest> {
  const message = await nextMessage(channel);
  if (message.kind !== 'request') throw new Error(`expected a request, got a ${message.kind}`);
  return message.request;
}

async function nextResponse(channel: TcpNetworkChannel): Promise<InboundResponse> {
  const message = await nextMessage(channel);
  if (message.kind !== 'response') throw new Error(`expected a response, got a ${message.kind}`);
  return message.response;
}

function send(channel: TcpNetworkChannel, destinationId: number, apiKey: number, data: unknown): void {
  channel.send({
    correlationId: channel.newCorrelationId(),
    destinationId,
    apiKey,
    apiVersion: apiKey === 1 ? 17 : 2,
    data,
    createdTimeMs: 0,
  });
}

function sendVote(channel: TcpNetworkChannel, destinationId: number): void {
  send(channel, destinationId, 52, VoteRequest.defaults({ clusterId: 'q1Sh-9_ISia_ZGc4iNTUBQ' }));
}

/** Sends a Vote from `client` to `server` (node 2) and answers it; resolves with the error code seen. */
async function voteRoundTrip(client: TcpNetworkChannel, server: TcpNetworkChannel): Promise<number> {
  sendVote(client, 2);
  const request = await nextRequest(server);
  server.sendResponse(request, VoteResponse.defaults({ errorCode: 74 }));
  return ((await nextResponse(client)).data as { errorCode: number }).errorCode;
}

/** A FileRecords stand-in with `writeTo`, the zero-copy path. */
class WriteToRecords implements ChunkedRecordsSource {
  writeToCalls = 0;
  constructor(readonly bytes: Buffer) {}
  sizeInBytes(): number {
    return this.bytes.length;
  }
  readInto(target: Buffer, position: number): number {
    return this.bytes.copy(target, 0, position, Math.min(this.bytes.length, position + target.length));
  }
  writeTo(destination: { write(chunk: Buffer): boolean }, position: number, length: number): number {
    this.writeToCalls += 1;
    let written = 0;
    while (written < length) {
      const size = Math.min(65_536, length - written);
      destination.write(Buffer.from(this.bytes.subarray(position + written, position + written + size)));
      written += size;
    }
    return written;
  }
}

function mebibyteOfRecords(): Buffer {
  const bytes = Buffer.alloc(1024 * 1024);
  for (let index = 0; index < bytes.length; index += 1) bytes[index] = (index * 31) & 0xff;
  return bytes;
}

describe('SSL listener and TLS client', () => {
  it('carries a request and its response over TLS, verifying the server certificate and IP SAN', async () => {
    const server = await startChannel(2, tlsSettingsFor('server'));
    const client = clientChannel(trustOnlySettings());
    client.updateEndpoint(2, { host: '127.0.0.1', port: server.port });
    expect(await voteRoundTrip(client, server.channel)).toBe(74);
    // The DNS SAN too, by name.
    const byName = clientChannel(trustOnlySettings());
    byName.updateEndpoint(2, { host: 'localhost', port: server.port });
    expect(await voteRoundTrip(byName, server.channel)).toBe(74);
  });

  it('streams a 1 MiB Fetch response from a FileRecords source over TLS, to a channel and to split request frames', async () => {
    const records = new WriteToRecords(mebibyteOfRecords());
    const server = await startChannel(2, tlsSettingsFor('server'));
    const client = clientChannel(trustOnlySettings());
    client.updateEndpoint(2, { host: '127.0.0.1', port: server.port });
    send(client, 2, 1, FetchRequest.defaults());
    server.channel.sendResponse(await nextRequest(server.channel), fetchResponseWith(records));
    const response = await nextResponse(client);
    const received = (response.data as { responses: { partitions: { records: Buffer }[] }[] }).responses[0]!
      .partitions[0]!.records;
    expect(received.equals(records.bytes)).toBe(true);
    expect(records.writeToCalls).toBeGreaterThanOrEqual(1);

    // A raw TLS client sends the request in three pieces, one per turn, and reassembles the answer.
    const socket = await new Promise<TLSSocket>((resolve, reject) => {
      const opened = connectTls(
        { host: '127.0.0.1', port: server.port, ca: tlsSettingsFor('server').trustedCertificatesPem },
        () => resolve(opened),
      );
      opened.once('error', reject);
    });
    closers.push(async () => void socket.destroy());
    const decoder = new FrameDecoder();
    const frame = new Promise<Buffer>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        decoder.push(chunk);
        const result = decoder.next();
        if (result.kind === 'frame') resolve(result.frame);
      });
    });
    const request = requestFrame(1, 17, 41, FetchRequest.defaults());
    for (const [start, end] of [
      [0, 3],
      [3, 11],
      [11, request.length],
    ] as const) {
      socket.write(request.subarray(start, end));
      await nextTurn();
    }
    server.channel.sendResponse(await nextRequest(server.channel), fetchResponseWith(records));
    const body = (await frame).subarray(4);
    expect(body.readInt32BE(0)).toBe(41);
    const decoded = FetchResponse.read(body.subarray(5), 17);
    expect(decoded.responses[0]!.partitions[0]!.records?.equals(records.bytes)).toBe(true);
  });

  it('requires a trusted client certificate under ssl.client.auth=required', async () => {
    const serverLog: LogLine[] = [];
    const server = await startChannel(2, tlsSettingsFor('server', { clientAuth: 'required' }), {
      logger: recordingLogger(serverLog),
    });
    const withCertificate = clientChannel(tlsSettingsFor('client'));
    withCertificate.updateEndpoint(2, { host: '127.0.0.1', port: server.port });
    expect(await voteRoundTrip(withCertificate, server.channel)).toBe(74);

    for (const settings of [trustOnlySettings(), tlsSettingsFor('untrusted')]) {
      const refused = clientChannel(settings);
      refused.updateEndpoint(2, { host: '127.0.0.1', port: server.port });
      sendVote(refused, 2);
      expect((await nextResponse(refused)).data).toEqual({ errorCode: 8 });
    }
    expect(
      serverLog.filter((line) => line.message === 'TLS handshake failed, closing connection'),
    ).toHaveLength(2);
    // The listener still serves the trusted client.
    expect(await voteRoundTrip(withCertificate, server.channel)).toBe(74);
  });

  it('under ssl.client.auth=requested accepts a client without a certificate and refuses an untrusted one', async () => {
    const serverLog: LogLine[] = [];
    const server = await startChannel(2, tlsSettingsFor('server', { clientAuth: 'requested' }), {
      logger: recordingLogger(serverLog),
    });
    for (const settings of [trustOnlySettings(), tlsSettingsFor('client')]) {
      const accepted = clientChannel(settings);
      accepted.updateEndpoint(2, { host: '127.0.0.1', port: server.port });
      expect(await voteRoundTrip(accepted, server.channel)).toBe(74);
    }
    const refused = clientChannel(tlsSettingsFor('untrusted'));
    refused.updateEndpoint(2, { host: '127.0.0.1', port: server.port });
    sendVote(refused, 2);
    expect((await nextResponse(refused)).data).toEqual({ errorCode: 8 });
    expect(
      serverLog.filter((line) => line.message === 'TLS handshake failed, closing connection'),
    ).toHaveLength(1);
  });

  it('reports a server certificate from an untrusted CA and retries it with backoff, without crashing', async () => {
    const server = await startChannel(2, tlsSettingsFor('untrusted'));
    const clientLog: LogLine[] = [];
    const client = clientChannel(trustOnlySettings(), {
      logger: recordingLogger(clientLog),
      config: { reconnectBackoffMs: 200, reconnectBackoffMaxMs: 400 },
    });
    client.updateEndpoint(2, { host: '127.0.0.1', port: server.port });
    const handshakeFailures = (): LogLine[] =>
      clientLog.filter(
        (line) => line.fields['reason'] === 'TLS handshake failed' && line.message !== 'connection dropped',
      );

    sendVote(client, 2);
    expect((await nextResponse(client)).data).toEqual({ errorCode: 8 });
    expect(handshakeFailures()).toHaveLength(1);
    expect(handshakeFailures()[0]).toMatchObject({ level: 'warn', message: 'cannot connect' });
    expect(handshakeFailures()[0]!.fields['code']).toMatch(/CERT|SIGNATURE|ISSUER/);
    expect(handshakeFailures()[0]!.fields).not.toHaveProperty('err');
    // In backoff: refused at once, no new connection.
    sendVote(client, 2);
    expect((await nextResponse(client)).data).toEqual({ errorCode: 8 });
    expect(handshakeFailures()).toHaveLength(1);
    // After the backoff it connects again and fails again the same way.
    await new Promise((resolve) => setTimeout(resolve, 500));
    sendVote(client, 2);
    expect((await nextResponse(client)).data).toEqual({ errorCode: 8 });
    expect(handshakeFailures()).toHaveLength(2);
    // The same failure again is no news: a debug line that counts the attempts.
    expect(handshakeFailures()[1]).toMatchObject({ level: 'debug', message: 'reconnect failed' });
    expect(handshakeFailures()[1]!.fields['failedAttempts']).toBe(2);
  });

  it('refuses a certificate for another host name under https, and accepts it with identification off', async () => {
    const server = await startChannel(2, tlsSettingsFor('wrong-host'));
    const clientLog: LogLine[] = [];
    const verifying = clientChannel(trustOnlySettings(), { logger: recordingLogger(clientLog) });
    verifying.updateEndpoint(2, { host: '127.0.0.1', port: server.port });
    sendVote(verifying, 2);
    expect((await nextResponse(verifying)).data).toEqual({ errorCode: 8 });
    const failure = clientLog.find((line) => line.fields['reason'] === 'TLS handshake failed');
    expect(failure?.fields['code']).toBe('ERR_TLS_CERT_ALTNAME_INVALID');

    const nameless = clientChannel(trustOnlySettings({ endpointIdentificationAlgorithm: '' }));
    nameless.updateEndpoint(2, { host: '127.0.0.1', port: server.port });
    expect(await voteRoundTrip(nameless, server.channel)).toBe(74);
  });

  it('fails a plaintext client to an SSL listener, and a TLS client to a plaintext one, cleanly and quickly', async () => {
    const serverLog: LogLine[] = [];
    const tlsServer = await startChannel(2, tlsSettingsFor('server'), { logger: recordingLogger(serverLog) });
    const plaintextServer = await startChannel(3, undefined);
    const plaintextClient = clientChannel(undefined);
    plaintextClient.updateEndpoint(2, { host: '127.0.0.1', port: tlsServer.port });
    const tlsClient = clientChannel(trustOnlySettings());
    tlsClient.updateEndpoint(3, { host: '127.0.0.1', port: plaintextServer.port });
    const startedMs = performance.now();
    sendVote(plaintextClient, 2);
    sendVote(tlsClient, 3);
    expect((await nextResponse(plaintextClient)).data).toEqual({ errorCode: 8 });
    expect((await nextResponse(tlsClient)).data).toEqual({ errorCode: 8 });
    // Both sides notice at once, well inside the 2 s request timeout.
    expect(performance.now() - startedMs).toBeLessThan(1_500);
    expect(serverLog.some((line) => line.message === 'TLS handshake failed, closing connection')).toBe(true);
    expect(plaintextServer.channel.drain()).toEqual([]);
  });

  it('closes a peer that never starts its handshake after connectionSetupTimeoutMs', async () => {
    const server = new InboundServer({
      listeners: [{ name: 'CONTROLLER', host: '127.0.0.1', port: 0, securityProtocol: 'SSL' }],
      apis: kraftApiRegistry(),
      handler: { handleRequest: () => {} },
      config: { connectionSetupTimeoutMs: 100 },
      tls: TlsContext.create(tlsSettingsFor('server')),
    });
    closers.push(() => server.close());
    const [bound] = await server.start();
    const silent = connectTcp({ host: '127.0.0.1', port: bound!.port });
    silent.on('error', () => {});
    closers.push(async () => void silent.destroy());
    await new Promise<void>((resolve) => silent.once('close', () => resolve()));
  });

  it('refuses an SSL listener without TLS settings with a typed error', () => {
    expect(
      () =>
        new TcpNetworkChannel({
          nodeId: 1,
          listeners: [{ name: 'CONTROLLER', host: '127.0.0.1', port: 0, securityProtocol: 'SSL' }],
        }),
    ).toThrow(/SSL needs TLS settings/);
  });
});
