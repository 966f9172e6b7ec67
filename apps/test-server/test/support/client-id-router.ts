import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import type { FaultProxy } from './fault-proxy.js';

/** Kafka's raft client names itself `raft-client-<nodeId>` in every request header. */
const RAFT_CLIENT_ID_PATTERN = /^raft-client-(\d+)$/;
/**
 * Request header v1/v2 up to the client id: size int32, apiKey int16, apiVersion int16,
 * correlationId int32, clientId length int16.
 */
const CLIENT_ID_OFFSET = 14;
/** The first request (ApiVersions) is a few dozen bytes; more without a header is not a raft client. */
const MAX_HEADER_BYTES = 4096;
/** A client that connects and says nothing is dropped after this (the raft client speaks at once). */
const HEADER_TIMEOUT_MS = 10_000;

/**
 * The address a node advertises for itself (its own `controller.quorum.voters` entry) when its
 * links are proxied. A leader sends that address to its followers (BeginQuorumEpoch
 * `leaderEndpoints`, Fetch and Vote `nodeEndpoints`), and they switch their connection to it, so
 * it must not be the real listener or every fault could be bypassed. One address serves all
 * sources, so the router reads the source node from the first request's client id and hands the
 * connection to the proxy of the link `source → this node`.
 */
export class ClientIdRouter {
  private readonly server: Server;
  private readonly waiting = new Set<Socket>();

  private constructor(
    readonly destinationNodeId: number,
    private readonly linkFrom: (sourceNodeId: number) => FaultProxy | undefined,
  ) {
    this.server = createServer((socket) => this.route(socket));
  }

  static async start(
    destinationNodeId: number,
    linkFrom: (sourceNodeId: number) => FaultProxy | undefined,
  ): Promise<ClientIdRouter> {
    const router = new ClientIdRouter(destinationNodeId, linkFrom);
    router.server.listen(0, '127.0.0.1');
    await once(router.server, 'listening');
    return router;
  }

  get port(): number {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('router is not listening');
    return address.port;
  }

  async close(): Promise<void> {
    for (const socket of this.waiting) socket.destroy();
    this.waiting.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private route(socket: Socket): void {
    this.waiting.add(socket);
    const chunks: Buffer[] = [];
    let length = 0;
    const timer = setTimeout(() => drop(), HEADER_TIMEOUT_MS);
    const finish = (): void => {
      clearTimeout(timer);
      socket.off('data', onData);
      this.waiting.delete(socket);
    };
    const drop = (): void => {
      finish();
      socket.destroy();
    };
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk);
      length += chunk.length;
      const head = Buffer.concat(chunks, length);
      const sourceNodeId = readRaftClientNodeId(head);
      if (sourceNodeId === 'incomplete') {
        if (length > MAX_HEADER_BYTES) drop();
        return;
      }
      const proxy = sourceNodeId === undefined ? undefined : this.linkFrom(sourceNodeId);
      if (proxy === undefined) {
        drop();
        return;
      }
      finish();
      socket.pause();
      proxy.adopt(socket, head);
    };
    socket.on('data', onData);
    socket.on('error', () => drop());
  }
}

/** The node id in a `raft-client-<id>` request header, `undefined` for any other client. */
export function readRaftClientNodeId(head: Buffer): number | undefined | 'incomplete' {
  if (head.length < CLIENT_ID_OFFSET) return 'incomplete';
  const clientIdLength = head.readInt16BE(CLIENT_ID_OFFSET - 2);
  if (clientIdLength < 0) return undefined;
  if (head.length < CLIENT_ID_OFFSET + clientIdLength) return 'incomplete';
  const clientId = head.toString('utf8', CLIENT_ID_OFFSET, CLIENT_ID_OFFSET + clientIdLength);
  const match = RAFT_CLIENT_ID_PATTERN.exec(clientId);
  return match === null ? undefined : Number(match[1]);
}
