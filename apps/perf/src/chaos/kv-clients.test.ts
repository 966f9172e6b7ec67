import { setTimeout as sleep } from 'node:timers/promises';
import { HistoryRecorder, type KvInput, type KvOutput } from '@kraft/linearizability';
import { SeededRandom } from '@kraft/raft';
import { describe, expect, it } from 'vitest';
import { checkKvHistory } from './kv-check.js';
import type { AttemptResult, HttpRequest } from './kv-client.js';
import { finalReads, runKvClients } from './kv-clients.js';

const origins = ['http://10.213.0.1:8080', 'http://10.213.0.2:8080', 'http://10.213.0.3:8080'];
const leader = origins[0] as string;

interface FakeStoreOptions {
  /** Followers answer linearizable gets from a copy of the map this many writes behind (the planted bug). */
  readonly staleFollowerReads?: number;
  /** One in this many writes is applied and then its answer is lost (the client sees a timeout). */
  readonly lostAnswerEvery?: number;
  /** One in this many requests never reaches the store (a refused connection). */
  readonly refusedEvery?: number;
}

/**
 * The store's HTTP API in memory, with the store's own semantics: node 1 leads and applies each
 * write atomically when it arrives; the others redirect (307) to it. Answers come back after a
 * random delay, so operations overlap as over a network.
 */
function fakeStore(options: FakeStoreOptions = {}) {
  const random = new SeededRandom(99);
  const map = new Map<string, string>();
  const history: Map<string, string>[] = [new Map()];
  let requests = 0;
  let writes = 0;
  const respond = async (result: AttemptResult): Promise<AttemptResult> => {
    await sleep(random.nextInt(3));
    return result;
  };
  const apply = (request: HttpRequest, key: string): AttemptResult => {
    if (request.method === 'GET') {
      const value = map.get(key);
      return value === undefined
        ? { kind: 'answer', status: 404, text: '{"error":"absent"}', location: undefined }
        : { kind: 'answer', status: 200, text: value, location: undefined };
    }
    writes += 1;
    let result: AttemptResult = { kind: 'answer', status: 204, text: '', location: undefined };
    if (request.method === 'PUT') map.set(key, request.body as string);
    if (request.method === 'DELETE') map.delete(key);
    if (request.method === 'POST') {
      const { expected, new: value } = JSON.parse(request.body as string) as {
        expected: string | null;
        new: string | null;
      };
      const swapped = (map.get(key) ?? null) === expected;
      if (swapped && value === null) map.delete(key);
      else if (swapped) map.set(key, value as string);
      result = { kind: 'answer', status: 200, text: JSON.stringify({ swapped }), location: undefined };
    }
    history.push(new Map(map));
    if (options.lostAnswerEvery !== undefined && writes % options.lostAnswerEvery === 0)
      return { kind: 'unknown', reason: 'no answer' };
    return result;
  };
  const send = async (origin: string, request: HttpRequest, _timeoutMs: number): Promise<AttemptResult> => {
    requests += 1;
    if (options.refusedEvery !== undefined && requests % options.refusedEvery === 0)
      return respond({ kind: 'not-sent', reason: 'ECONNREFUSED' });
    const key = decodeURIComponent(request.path.split('/')[2]?.split('?')[0] ?? '');
    const linearizableGet = request.method === 'GET' && request.path.endsWith('?linearizable');
    if (origin !== leader && linearizableGet && options.staleFollowerReads !== undefined) {
      const stale = history[Math.max(0, history.length - 1 - options.staleFollowerReads)] as Map<
        string,
        string
      >;
      const value = stale.get(key);
      return respond(
        value === undefined
          ? { kind: 'answer', status: 404, text: '{"error":"absent"}', location: undefined }
          : { kind: 'answer', status: 200, text: value, location: undefined },
      );
    }
    if (origin !== leader && (linearizableGet || request.method !== 'GET'))
      return respond({ kind: 'answer', status: 307, text: '', location: `${leader}${request.path}` });
    return respond(apply(request, key));
  };
  return { send, map };
}

async function runAgainst(store: ReturnType<typeof fakeStore>, operationsPerKey: number) {
  let time = 0;
  const recorder = new HistoryRecorder<KvInput, KvOutput>({ clock: () => time++ });
  const summary = await runKvClients({
    config: {
      origins,
      clients: 5,
      keys: ['k0', 'k1'],
      operationTimeoutMs: 1_000,
      maxOperationsPerKey: operationsPerKey,
      seed: 7,
    },
    recorder,
    send: store.send,
    nowMs: () => performance.now(),
    shouldStop: () => false,
    backoffMs: 0,
  });
  return { recorder, summary };
}

describe('runKvClients', () => {
  it('records a linearizable history against a correct store, redirects, lost answers and refusals included', async () => {
    const store = fakeStore({ lostAnswerEvery: 17, refusedEvery: 23 });
    const { recorder, summary } = await runAgainst(store, 150);
    const check = checkKvHistory(recorder.events());
    expect(check.keys.map((key) => key.outcome)).toEqual(['linearizable', 'linearizable']);
    // Each key stops at its cap; every operation completed one way or the other.
    expect(check.counts.operations).toBe(300);
    expect(summary.ok + summary.fail + summary.info).toBe(300);
    expect(summary.info).toBeGreaterThan(0);
    // Refused attempts went to the next node (and redirects to the leader) within their operation.
    expect(summary.attempts).toBeGreaterThan(300);
    expect(summary.badRequests + summary.foreignRedirects).toBe(0);
    expect(summary.capped).toBe(true);
    const kinds = new Set(
      recorder.events().flatMap((event) => (event.type === 'invoke' ? [event.input.type] : [])),
    );
    expect([...kinds].sort()).toEqual(['cas', 'delete', 'get', 'put']);
  });

  it('records a history the checker rejects when followers answer linearizable gets from a stale map', async () => {
    const { recorder } = await runAgainst(fakeStore({ staleFollowerReads: 5 }), 150);
    const check = checkKvHistory(recorder.events());
    expect(check.violations).toBeGreaterThan(0);
    expect(check.valid).toBe(false);
  });

  it('reads every key linearizably into the history, then each node’s own map', async () => {
    const store = fakeStore();
    store.map.set('k0', 'x');
    let time = 0;
    const recorder = new HistoryRecorder<KvInput, KvOutput>({ clock: () => time++ });
    const reads = await finalReads({
      origins,
      keys: ['k0', 'k1'],
      recorder,
      clientId: 5,
      send: store.send,
      nowMs: () => performance.now(),
      timeoutMs: 1_000,
      retryPauseMs: 0,
    });
    expect(reads.map((read) => [read.key, read.linearizable])).toEqual([
      ['k0', { value: 'x' }],
      ['k1', { value: null }],
    ]);
    // The followers' plain gets read their own map (here the fake's one map).
    expect(reads[0]?.nodes).toEqual(Object.fromEntries(origins.map((origin) => [origin, { value: 'x' }])));
    expect(checkKvHistory(recorder.events()).counts).toEqual({ operations: 2, ok: 2, fail: 0, info: 0 });
  });
});
