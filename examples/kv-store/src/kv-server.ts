import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import {
  BatchAccumulatorFullError,
  IndeterminateError,
  NoLeaderError,
  NotLeaderError,
  ProposalRejectedError,
  type RaftNode,
  RaftNodeClosedError,
  RaftTimeoutError,
} from '@kraft/raft';
import type { KvCommand, KvStateMachine } from './kv-state-machine.js';

export interface KvServerOptions {
  readonly node: RaftNode<KvCommand>;
  readonly stateMachine: KvStateMachine;
  /** The HTTP base URL (`http://127.0.0.1:port`) of a node id: RaftNode knows only raft endpoints. */
  readonly httpUrlOf: (nodeId: number) => string | undefined;
  /**
   * A planted bug for the tests only: `GET ?linearizable` skips the read barrier and reads the
   * local map on any node, as a store that trusts its followers would.
   */
  readonly staleLinearizableReads?: boolean;
}

/** Keys and bodies are small: a request over these is refused before it is read any further. */
const MAX_KEY_SIZE_IN_BYTES = 256;
const MAX_BODY_SIZE_IN_BYTES = 64 * 1024;
const ROUTE = /^\/kv\/([^/]+)(\/cas)?$/;

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: object,
    readonly headers: Record<string, string> = {},
  ) {
    super(`HTTP ${status}`);
  }
}

/** The store's HTTP API on one node (see the README for the routes and status codes). */
export function createKvServer(options: KvServerOptions): Server {
  return createServer((request, response) => {
    handle(options, request, response).catch((error: unknown) => {
      const failure = error instanceof HttpError ? error : toHttpError(options, request, error);
      send(response, failure.status, failure.body, failure.headers);
    });
  });
}

async function handle(options: KvServerOptions, request: IncomingMessage, response: ServerResponse) {
  const url = new URL(request.url ?? '/', 'http://127.0.0.1');
  if (url.pathname === '/status' && request.method === 'GET')
    return send(response, 200, options.node.status());
  const match = ROUTE.exec(url.pathname);
  if (match === null) throw new HttpError(404, { error: 'no-route' });
  const key = decodeURIComponent(match[1] as string);
  if (Buffer.byteLength(key) > MAX_KEY_SIZE_IN_BYTES) throw new HttpError(400, { error: 'key-too-long' });
  const route = `${request.method} ${match[2] === undefined ? 'key' : 'cas'}`;
  const requestId = randomUUID();
  switch (route) {
    case 'GET key': {
      const linearizable = url.searchParams.has('linearizable');
      if (linearizable && options.staleLinearizableReads !== true) await options.node.readIndex();
      const value = options.stateMachine.get(key);
      return value === null ? send(response, 404, { error: 'absent' }) : send(response, 200, value);
    }
    case 'PUT key': {
      const value = await readBody(request);
      await propose(options, { type: 'put', key, value, requestId });
      return send(response, 204);
    }
    case 'DELETE key':
      await propose(options, { type: 'delete', key, requestId });
      return send(response, 204);
    case 'POST cas': {
      const body = parseCasBody(await readBody(request));
      const swapped = await propose(options, { type: 'cas', key, ...body, requestId });
      return send(response, 200, { swapped });
    }
    default:
      throw new HttpError(405, { error: 'method-not-allowed' });
  }
}

/** Proposes one command on this node (the leader) and resolves with what applying it did. */
async function propose(options: KvServerOptions, command: KvCommand): Promise<boolean> {
  const { node, stateMachine } = options;
  stateMachine.expect(command.requestId);
  let failure: unknown;
  try {
    await node.propose([command]);
  } catch (error) {
    failure = error;
  }
  // Taken on every outcome, so an abandoned request leaves nothing behind. A result means the
  // command was applied, hence committed, even if the wait itself gave up.
  const result = stateMachine.takeResult(command.requestId);
  if (result !== undefined) return result.swapped;
  if (failure !== undefined) throw failure;
  // Committed, but applied from a snapshot before this node saw the value itself.
  throw new HttpError(504, {
    error: 'indeterminate',
    message: 'committed, but whether it swapped is unknown',
  });
}

function toHttpError(options: KvServerOptions, request: IncomingMessage, error: unknown): HttpError {
  if (error instanceof NotLeaderError) {
    const leaderUrl = error.leaderId === undefined ? undefined : options.httpUrlOf(error.leaderId);
    if (leaderUrl === undefined) return new HttpError(503, { error: 'no-leader', message: error.message });
    const location = `${leaderUrl}${request.url ?? '/'}`;
    return new HttpError(307, { error: 'not-leader', leaderId: error.leaderId, location }, { location });
  }
  if (error instanceof IndeterminateError || error instanceof RaftTimeoutError) {
    const message = 'the outcome is unknown: the write may or may not have been applied';
    return new HttpError(504, { error: 'indeterminate', message, detail: error.message });
  }
  const definite = [ProposalRejectedError, BatchAccumulatorFullError, RaftNodeClosedError, NoLeaderError];
  if (definite.some((type) => error instanceof type)) {
    return new HttpError(503, { error: 'not-applied', message: (error as Error).message });
  }
  return new HttpError(500, { error: 'internal', message: String(error) });
}

async function readBody(request: IncomingMessage): Promise<string> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_SIZE_IN_BYTES) throw new HttpError(413, { error: 'body-too-large' });
  const chunks: Buffer[] = [];
  let sizeInBytes = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    sizeInBytes += chunk.length;
    if (sizeInBytes > MAX_BODY_SIZE_IN_BYTES) throw new HttpError(413, { error: 'body-too-large' });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseCasBody(text: string): { expected: string | null; value: string | null } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, { error: 'cas-body', message: 'expected JSON {"expected":..., "new":...}' });
  }
  const { expected, new: value } = (body ?? {}) as { expected?: unknown; new?: unknown };
  const isValue = (field: unknown) => field === null || typeof field === 'string';
  if (!isValue(expected) || !isValue(value)) {
    throw new HttpError(400, { error: 'cas-body', message: '"expected" and "new" are strings or null' });
  }
  return { expected: expected as string | null, value: value as string | null };
}

function send(
  response: ServerResponse,
  status: number,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  if (body === undefined) {
    response.writeHead(status, headers).end();
    return;
  }
  const isText = typeof body === 'string';
  const text = isText ? body : JSON.stringify(body);
  const contentType = isText ? 'text/plain; charset=utf-8' : 'application/json';
  response.writeHead(status, { ...headers, 'content-type': contentType }).end(text);
}
