import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { KvInput } from '@kraft/linearizability';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AttemptResult,
  classifyAttempt,
  type HttpRequest,
  performOperation,
  requestFor,
  sendHttp,
} from './kv-client.js';

const get: KvInput = { type: 'get', key: 'k' };
const put: KvInput = { type: 'put', key: 'k', value: '1-0' };
const remove: KvInput = { type: 'delete', key: 'k' };
const cas: KvInput = { type: 'cas', key: 'k', expected: '1-0', value: '2-0' };
const writes = [put, remove, cas];

function answer(status: number, text = '', location?: string): AttemptResult {
  return { kind: 'answer', status, text, location };
}

describe('classifyAttempt', () => {
  it('reads ok outputs: a value or absent for get, null for put and delete, swapped for cas', () => {
    expect(classifyAttempt(get, answer(200, 'v'))).toEqual({ kind: 'ok', output: { value: 'v' } });
    expect(classifyAttempt(get, answer(404, '{"error":"absent"}'))).toEqual({
      kind: 'ok',
      output: { value: null },
    });
    expect(classifyAttempt(put, answer(204))).toEqual({ kind: 'ok', output: null });
    expect(classifyAttempt(remove, answer(204))).toEqual({ kind: 'ok', output: null });
    expect(classifyAttempt(cas, answer(200, '{"swapped":false}'))).toEqual({
      kind: 'ok',
      output: { swapped: false },
    });
  });

  it('fails, and lets another node try, what the store refused before appending: 307, 503, nothing sent', () => {
    for (const input of [get, ...writes]) {
      expect(classifyAttempt(input, answer(307, '', 'http://10.213.0.2:8080/kv/k'))).toEqual({
        kind: 'fail',
        retry: true,
        redirectTo: 'http://10.213.0.2:8080/kv/k',
      });
      expect(classifyAttempt(input, answer(307))).toEqual({ kind: 'fail', retry: true });
      expect(classifyAttempt(input, answer(503, '{"error":"no-leader"}'))).toEqual({
        kind: 'fail',
        retry: true,
      });
      expect(classifyAttempt(input, { kind: 'not-sent', reason: 'ECONNREFUSED' })).toEqual({
        kind: 'fail',
        retry: true,
      });
    }
  });

  it('never fails an operation whose outcome is unknown: 504, 500, a timeout or reset after connecting', () => {
    for (const input of [get, ...writes]) {
      expect(classifyAttempt(input, answer(504, '{"error":"indeterminate"}'))).toEqual({ kind: 'info' });
      expect(classifyAttempt(input, answer(500, '{"error":"internal"}'))).toEqual({ kind: 'info' });
      expect(classifyAttempt(input, { kind: 'unknown', reason: 'ECONNRESET' })).toEqual({ kind: 'info' });
    }
    // A success code whose body does not read as the operation's output proves nothing either.
    expect(classifyAttempt(cas, answer(200, 'not json'))).toEqual({ kind: 'info' });
    expect(classifyAttempt(put, answer(200, 'v'))).toEqual({ kind: 'info' });
  });

  it('marks what says the request itself was wrong, without retrying it', () => {
    for (const status of [400, 405, 413]) {
      expect(classifyAttempt(put, answer(status))).toEqual({ kind: 'fail', retry: false, badRequest: true });
    }
    // A get's 404 is "absent" only when the store says so; another 404 is an unknown route.
    expect(classifyAttempt(get, answer(404, '{"error":"no-route"}'))).toEqual({
      kind: 'fail',
      retry: false,
      badRequest: true,
    });
  });

  it('asks for linearizable gets and sends cas as the store expects', () => {
    expect(requestFor(get)).toEqual({ method: 'GET', path: '/kv/k?linearizable' });
    expect(requestFor({ type: 'get', key: 'a b/c' }).path).toBe('/kv/a%20b%2Fc?linearizable');
    expect(requestFor(cas)).toEqual({
      method: 'POST',
      path: '/kv/k/cas',
      body: '{"expected":"1-0","new":"2-0"}',
    });
    expect(requestFor({ type: 'cas', key: 'k', expected: null, value: null }).body).toBe(
      '{"expected":null,"new":null}',
    );
  });
});

const origins = ['http://10.213.0.1:8080', 'http://10.213.0.2:8080', 'http://10.213.0.3:8080'];

/** A scripted send: each attempt takes the next result, and records where it went. */
function scripted(results: AttemptResult[]) {
  const sent: string[] = [];
  const send = async (origin: string, _request: HttpRequest, _timeoutMs: number) => {
    sent.push(origin);
    const next = results.shift();
    if (next === undefined) throw new Error('no more scripted results');
    return next;
  };
  return { sent, send };
}

function options(send: ReturnType<typeof scripted>['send'], overrides: { deadlineMs?: number } = {}) {
  let now = 0;
  return {
    firstOrigin: origins[0] as string,
    origins,
    deadlineMs: overrides.deadlineMs ?? 10_000,
    maxAttempts: 4,
    send,
    nowMs: () => now++,
  };
}

describe('performOperation', () => {
  it('follows a 307 to the leader it names and remembers that leader', async () => {
    const { sent, send } = scripted([answer(307, '', 'http://10.213.0.3:8080/kv/k'), answer(204)]);
    const performed = await performOperation(put, options(send));
    expect(sent).toEqual([origins[0], origins[2]]);
    expect(performed).toEqual({
      verdict: { kind: 'ok', output: null },
      attempts: 2,
      leaderHint: origins[2],
      foreignRedirect: false,
    });
  });

  it('tries the next node after a refusal, and stops at the first unknown outcome', async () => {
    const { sent, send } = scripted([
      { kind: 'not-sent', reason: 'ECONNREFUSED' },
      answer(503),
      { kind: 'unknown', reason: 'no answer' },
      answer(204),
    ]);
    const performed = await performOperation(put, options(send));
    // Never a fourth attempt: the third may have applied the put.
    expect(sent).toEqual([origins[0], origins[1], origins[2]]);
    expect(performed.verdict).toEqual({ kind: 'info' });
  });

  it('refuses a redirect outside the run and fails the operation unsent there', async () => {
    const { sent, send } = scripted([answer(307, '', 'http://192.0.2.7:8080/kv/k')]);
    const performed = await performOperation(put, options(send));
    expect(sent).toEqual([origins[0]]);
    expect(performed.verdict.kind).toBe('fail');
    expect(performed.foreignRedirect).toBe(true);
  });

  it('fails after its attempts or its deadline when every node refused', async () => {
    const refusals = () => Array.from({ length: 10 }, () => answer(503));
    const bounded = scripted(refusals());
    expect((await performOperation(put, options(bounded.send))).verdict.kind).toBe('fail');
    expect(bounded.sent).toHaveLength(4);
    const late = scripted(refusals());
    expect((await performOperation(put, options(late.send, { deadlineMs: 2 }))).attempts).toBeLessThan(4);
  });
});

describe('sendHttp', () => {
  let server: Server | undefined;
  const sockets = new Set<Socket>();
  afterEach(async () => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    if (server !== undefined) await new Promise((resolve) => server?.close(resolve));
    server = undefined;
  });

  async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
    server = createServer(handler);
    server.on('connection', (socket) => sockets.add(socket));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('returns the status, body and location of an answer', async () => {
    const origin = await listen((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => response.writeHead(307, { location: `${request.url}#${body}` }).end('moved'));
    });
    expect(await sendHttp(origin, { method: 'PUT', path: '/kv/k', body: 'v' }, 5_000)).toEqual({
      kind: 'answer',
      status: 307,
      text: 'moved',
      location: '/kv/k#v',
    });
  });

  it('reports not-sent when no connection could be made', async () => {
    const origin = await listen(() => {});
    await new Promise((resolve) => server?.close(resolve));
    server = undefined;
    expect(await sendHttp(origin, { method: 'PUT', path: '/kv/k', body: 'v' }, 5_000)).toMatchObject({
      kind: 'not-sent',
      reason: 'ECONNREFUSED',
    });
  });

  it('reports unknown when the server took the request and then went silent or closed', async () => {
    const silent = await listen(() => {});
    expect(await sendHttp(silent, { method: 'PUT', path: '/kv/k', body: 'v' }, 300)).toMatchObject({
      kind: 'unknown',
    });
    await new Promise((resolve) => server?.close(resolve));
    for (const socket of sockets) socket.destroy();
    const closing = await listen((request) => request.socket.destroy());
    expect(await sendHttp(closing, { method: 'PUT', path: '/kv/k', body: 'v' }, 5_000)).toMatchObject({
      kind: 'unknown',
    });
  });
});
