import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientIdRouter, readRaftClientNodeId } from './client-id-router.js';
import { FaultProxy } from './fault-proxy.js';

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A target that echoes what it receives and remembers its sockets. */
async function startEchoServer(): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    socket.pipe(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return { server, port: (server.address() as { port: number }).port, sockets };
}

async function startProxy(targetPort: number): Promise<FaultProxy> {
  const proxy = await FaultProxy.start({ targetPort, name: 'test' });
  cleanups.push(() => proxy.close());
  return proxy;
}

async function openClient(port: number): Promise<{ socket: Socket; received: () => string }> {
  const socket = connect({ host: '127.0.0.1', port });
  socket.on('error', () => {});
  let text = '';
  socket.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  cleanups.push(() => {
    socket.destroy();
  });
  await once(socket, 'connect');
  return { socket, received: () => text };
}

async function waitUntil(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Resolves when the socket closes, whether or not an error came first (`once` would reject on it). */
const closed = (socket: Socket) => new Promise<void>((resolve) => socket.once('close', () => resolve()));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('FaultProxy', () => {
  it('forwards both ways until cut in reset mode, refuses new connections while cut, and forwards again after heal', async () => {
    const { port } = await startEchoServer();
    const proxy = await startProxy(port);
    const client = await openClient(proxy.port);
    client.socket.write('ping');
    await waitUntil(() => client.received() === 'ping');

    proxy.cut('reset');
    await closed(client.socket);
    const refused = connect({ host: '127.0.0.1', port: proxy.port });
    refused.on('error', () => {});
    await closed(refused);
    expect(proxy.stats().resetConnections).toBe(2);

    proxy.heal();
    const again = await openClient(proxy.port);
    again.socket.write('pong');
    await waitUntil(() => again.received() === 'pong');
    expect(proxy.stats().openConnections).toBe(1);
  });

  it('blackhole: accepts and keeps connections but forwards nothing until heal, then resumes in order', async () => {
    const { port, sockets } = await startEchoServer();
    const proxy = await startProxy(port);
    const live = await openClient(proxy.port);
    live.socket.write('a');
    await waitUntil(() => live.received() === 'a');

    proxy.cut('blackhole');
    live.socket.write('b');
    const fresh = await openClient(proxy.port);
    fresh.socket.write('c');
    await sleep(200);
    expect(live.received()).toBe('a');
    expect(fresh.received()).toBe('');
    // The new connection never reached the target.
    expect(sockets.size).toBe(1);

    proxy.heal();
    await waitUntil(() => live.received() === 'ab' && fresh.received() === 'c');
    expect(sockets.size).toBe(2);
  });

  it('delays every chunk and keeps their order', async () => {
    const { port } = await startEchoServer();
    const proxy = await startProxy(port);
    proxy.setDelay(100, 150);
    const client = await openClient(proxy.port);
    const startMs = performance.now();
    client.socket.write('1');
    await sleep(5);
    client.socket.write('2');
    await waitUntil(() => client.received() === '12');
    // Two hops of at least 100 ms each (request, then echo).
    expect(performance.now() - startMs).toBeGreaterThanOrEqual(195);
  });

  it('close() ends every connection and the listener', async () => {
    const { port, sockets } = await startEchoServer();
    const proxy = await FaultProxy.start({ targetPort: port });
    const client = await openClient(proxy.port);
    client.socket.write('x');
    await waitUntil(() => client.received() === 'x');
    await proxy.close();
    await waitUntil(() => client.socket.destroyed || client.socket.readableEnded);
    await waitUntil(() => sockets.size === 0);
    const refused = connect({ host: '127.0.0.1', port: proxy.port });
    const [error] = (await once(refused, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ECONNREFUSED');
  });
});

describe('ClientIdRouter', () => {
  /** A request header v1 prefix: size, apiKey 18 (ApiVersions), version 3, correlation id 0, client id. */
  function requestHead(clientId: string): Buffer {
    const id = Buffer.from(clientId);
    const head = Buffer.alloc(14 + id.length);
    head.writeInt32BE(10 + id.length, 0);
    head.writeInt16BE(18, 4);
    head.writeInt16BE(3, 6);
    head.writeInt32BE(0, 8);
    head.writeInt16BE(id.length, 12);
    id.copy(head, 14);
    return head;
  }

  it('reads the source node from a raft client id', () => {
    expect(readRaftClientNodeId(requestHead('raft-client-3'))).toBe(3);
    expect(readRaftClientNodeId(requestHead('raft-client-3').subarray(0, 20))).toBe('incomplete');
    expect(readRaftClientNodeId(requestHead('describe-quorum-test'))).toBeUndefined();
  });

  it('hands each connection to the link proxy of its source, bytes read so far included', async () => {
    const { port } = await startEchoServer();
    const fromTwo = await startProxy(port);
    const router = await ClientIdRouter.start(1, (source) => (source === 2 ? fromTwo : undefined));
    cleanups.push(() => router.close());

    const client = await openClient(router.port);
    const head = requestHead('raft-client-2');
    client.socket.write(head);
    await waitUntil(() => client.received().length === head.length);
    expect(fromTwo.stats().acceptedConnections).toBe(1);

    const stranger = await openClient(router.port);
    stranger.socket.write(requestHead('raft-client-9'));
    await closed(stranger.socket);
  });
});
