import { connect, type Socket } from 'node:net';
import type { Logger } from '@kraft/protocol';
import {
  apiKeyFor,
  FetchResponse,
  FetchSnapshotResponse,
  type FieldMap,
  type StructDeclaration,
  structDefaults,
  writeRequestFrame,
} from '@kraft/protocol';
import { kraftApiRegistry } from '../src/api-registry.js';
import { FrameDecoder } from '../src/frame-codec.js';
import type { InboundCall } from '../src/inbound-call.js';
import { InboundServer } from '../src/inbound-server.js';
import type { TransportConfig } from '../src/transport-config.js';

export function hex(text: string): Buffer {
  return Buffer.from(text.replace(/\s+/g, ''), 'hex');
}

/** A plain socket speaking raw frames, to drive the server byte by byte. */
export class RawClient {
  readonly socket: Socket;
  readonly closed: Promise<void>;
  private readonly decoder = new FrameDecoder();
  private readonly frames: Buffer[] = [];
  private waiter: ((frame: Buffer) => void) | undefined;
  private isClosed = false;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    this.closed = new Promise((resolve) => {
      socket.on('close', () => {
        this.isClosed = true;
        resolve();
      });
    });
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      this.decoder.push(chunk);
      for (;;) {
        const result = this.decoder.next();
        if (result.kind === 'incomplete') break;
        const waiter = this.waiter;
        this.waiter = undefined;
        const body = result.frame.subarray(4);
        if (waiter === undefined) this.frames.push(body);
        else waiter(body);
      }
    });
  }

  static open(port: number): Promise<RawClient> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port }, () => resolve(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  hasClosed(): boolean {
    return this.isClosed;
  }

  write(bytes: Buffer): Promise<void> {
    return new Promise((resolve) => this.socket.write(bytes, () => resolve()));
  }

  /** The next whole frame (without its size prefix). */
  nextFrame(): Promise<Buffer> {
    const frame = this.frames.shift();
    if (frame !== undefined) return Promise.resolve(frame);
    return new Promise((resolve, reject) => {
      this.waiter = resolve;
      void this.closed.then(() => {
        if (this.waiter === resolve) reject(new Error('connection closed while waiting for a frame'));
      });
    });
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** Yields to the event loop so that two writes leave as two segments. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export interface TestServer {
  readonly server: InboundServer;
  readonly port: number;
  readonly calls: InboundCall[];
}

/** An InboundServer on 127.0.0.1:0 whose handler is `onCall` (default: remember the call, never answer). */
export async function startTestServer(
  onCall?: (call: InboundCall) => void,
  config: Partial<TransportConfig> = {},
  logger?: Logger,
): Promise<TestServer> {
  const calls: InboundCall[] = [];
  const server = new InboundServer({
    listeners: [{ name: 'CONTROLLER', host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' }],
    apis: kraftApiRegistry(),
    handler: {
      handleRequest: (call) => {
        calls.push(call);
        onCall?.(call);
      },
    },
    config,
    ...(logger === undefined ? {} : { logger }),
  });
  const [bound] = await server.start();
  return { server, port: bound!.port, calls };
}

/** A whole request frame for `apiKey` at `apiVersion`, body from `data` (default-filled when omitted). */
export function requestFrame(
  apiKey: number,
  apiVersion: number,
  correlationId: number,
  data?: unknown,
  clientId = 'test-client',
): Buffer {
  const body = data ?? apiKeyFor(apiKey)!.request.defaults();
  return writeRequestFrame({ apiKey, apiVersion, correlationId, clientId }, body);
}

/** A numeric setting from the environment (`KRAFT_SEED`, `KRAFT_FUZZ_FRAMES`), or `fallback`. */
export function envNumber(name: string, fallback: number): number {
  const value = process.env[name];
  return value === undefined || value === '' ? fallback : Number(value);
}

function elementOf(declaration: StructDeclaration<FieldMap>, name: string): StructDeclaration<FieldMap> {
  return declaration.fields[name]!.element as StructDeclaration<FieldMap>;
}

/** A Fetch response for one partition carrying `records` (a Buffer or a records source). */
export function fetchResponseWith(records: unknown): unknown {
  const topicDeclaration = elementOf(FetchResponse.declaration, 'responses');
  const partition = {
    ...structDefaults(elementOf(topicDeclaration, 'partitions')),
    highWatermark: 10n,
    records,
  };
  return FetchResponse.defaults({
    responses: [{ ...structDefaults(topicDeclaration), partitions: [partition] }],
  } as never);
}

/** A FetchSnapshot response for one partition whose `unalignedRecords` is `records`. */
export function fetchSnapshotResponseWith(records: unknown): unknown {
  const topicDeclaration = elementOf(FetchSnapshotResponse.declaration, 'topics');
  const partition = {
    ...structDefaults(elementOf(topicDeclaration, 'partitions')),
    size: 300n,
    unalignedRecords: records,
  };
  return FetchSnapshotResponse.defaults({
    topics: [{ ...structDefaults(topicDeclaration), name: '__cluster_metadata', partitions: [partition] }],
  } as never);
}
