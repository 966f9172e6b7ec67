import { setTimeout as sleep } from 'node:timers/promises';
import type { HistoryRecorder, KvInput, KvOutput } from '@kraft/linearizability';
import { SeededRandom } from '@kraft/raft';
import type { FinalRead, ReadResult } from './kv-check.js';
import { performOperation, type Send, type Verdict } from './kv-client.js';
import type { KvClientConfig } from './kv-client-config.js';

/**
 * The kv workload's clients: each issues one operation at a time (linearizable get, put,
 * compare-and-set, delete) on a few shared keys, records it, and goes on until told to stop. Puts
 * write values no other operation writes (`<client>-<sequence>`), so a read names the write it saw.
 */

export type KvRecorder = HistoryRecorder<KvInput, KvOutput>;

export interface KvClientsOptions {
  readonly config: Pick<
    KvClientConfig,
    'origins' | 'clients' | 'keys' | 'operationTimeoutMs' | 'maxOperationsPerKey' | 'seed'
  >;
  readonly recorder: KvRecorder;
  readonly send: Send;
  /** Monotonic milliseconds, for the operations' deadlines. */
  readonly nowMs: () => number;
  /** Checked before each operation: true ends that client's loop. */
  readonly shouldStop: () => boolean;
  /** The pause after an operation that did not succeed: an election is likely under way. */
  readonly backoffMs: number;
}

export interface KvClientsSummary {
  readonly ok: number;
  readonly fail: number;
  readonly info: number;
  /** HTTP attempts in all (an operation may take a redirect or another node). */
  readonly attempts: number;
  /** Answers that say the request itself was wrong (400, 404 on a write, 405, 413): a workload bug. */
  readonly badRequests: number;
  /** Redirects to an address outside the run, refused. */
  readonly foreignRedirects: number;
  /** Every key reached `maxOperationsPerKey`, so the clients stopped before being told to. */
  readonly capped: boolean;
}

/** Attempts per operation: the first node, a redirect, and one more node after a refusal or two. */
const MAX_ATTEMPTS_PER_OPERATION = 4;
/** A plain get of one node's map after the heal: that node is up and settled, so this is generous. */
const LOCAL_READ_TIMEOUT_MS = 5_000;

interface Tally {
  ok: number;
  fail: number;
  info: number;
  attempts: number;
  badRequests: number;
  foreignRedirects: number;
  capped: boolean;
}

/** Runs every client until `shouldStop` (or every key reached its cap); resolves once all are done. */
export async function runKvClients(options: KvClientsOptions): Promise<KvClientsSummary> {
  const tally: Tally = {
    ok: 0,
    fail: 0,
    info: 0,
    attempts: 0,
    badRequests: 0,
    foreignRedirects: 0,
    capped: false,
  };
  const invocations = new Map(options.config.keys.map((key) => [key, 0]));
  await Promise.all(
    Array.from({ length: options.config.clients }, (_, clientId) =>
      runClient(options, clientId, invocations, tally),
    ),
  );
  return { ...tally };
}

function pick<T>(random: SeededRandom, values: readonly T[]): T {
  return values[random.nextInt(values.length)] as T;
}

/**
 * 30% linearizable gets, 30% puts, 30% compare-and-sets (expecting the value this client saw
 * last, so that many of them swap), 10% deletes.
 */
export function chooseOperation(
  random: SeededRandom,
  key: string,
  value: string,
  lastSeen: string | null,
): KvInput {
  const dice = random.nextInt(100);
  if (dice < 30) return { type: 'get', key };
  if (dice < 60) return { type: 'put', key, value };
  if (dice < 90) return { type: 'cas', key, expected: lastSeen, value };
  return { type: 'delete', key };
}

function complete(handle: ReturnType<KvRecorder['invoke']>, verdict: Verdict): void {
  if (verdict.kind === 'ok') handle.ok(verdict.output);
  else if (verdict.kind === 'fail') handle.fail();
  else handle.info();
}

/** What an acknowledged operation says the key holds now (as far as this client knows). */
function seenAfter(input: KvInput, output: KvOutput, before: string | null): string | null {
  switch (input.type) {
    case 'get':
      return output !== null && 'value' in output ? output.value : before;
    case 'put':
      return input.value;
    case 'delete':
      return null;
    case 'cas':
      return output !== null && 'swapped' in output && output.swapped ? input.value : before;
  }
}

async function runClient(
  options: KvClientsOptions,
  clientId: number,
  invocations: Map<string, number>,
  tally: Tally,
): Promise<void> {
  const { config, recorder } = options;
  const random = new SeededRandom(config.seed * 1_000 + clientId);
  const lastSeen = new Map<string, string | null>();
  let leader = config.origins[clientId % config.origins.length] as string;
  for (let sequence = 0; !options.shouldStop(); sequence++) {
    const open = config.keys.filter((key) => (invocations.get(key) ?? 0) < config.maxOperationsPerKey);
    if (open.length === 0) {
      tally.capped = true;
      return;
    }
    const key = pick(random, open);
    invocations.set(key, (invocations.get(key) ?? 0) + 1);
    const input = chooseOperation(random, key, `${clientId}-${sequence}`, lastSeen.get(key) ?? null);
    // Half the reads go to any node: a follower must redirect, never answer from its own map.
    const firstOrigin =
      input.type === 'get' && random.nextInt(2) === 0 ? pick(random, config.origins) : leader;
    const handle = recorder.invoke(clientId, input);
    const performed = await performOperation(input, {
      firstOrigin,
      origins: config.origins,
      deadlineMs: options.nowMs() + config.operationTimeoutMs,
      maxAttempts: MAX_ATTEMPTS_PER_OPERATION,
      send: options.send,
      nowMs: options.nowMs,
    });
    const { verdict } = performed;
    complete(handle, verdict);
    tally[verdict.kind] += 1;
    tally.attempts += performed.attempts;
    if (verdict.kind === 'fail' && verdict.badRequest === true) tally.badRequests += 1;
    if (performed.foreignRedirect) tally.foreignRedirects += 1;
    if (performed.leaderHint !== undefined) leader = performed.leaderHint;
    if (verdict.kind === 'ok') {
      lastSeen.set(key, seenAfter(input, verdict.output, lastSeen.get(key) ?? null));
      continue;
    }
    if (performed.leaderHint === undefined) leader = pick(random, config.origins);
    await sleep(options.backoffMs);
  }
}

export interface FinalReadOptions {
  readonly origins: readonly string[];
  readonly keys: readonly string[];
  readonly recorder: KvRecorder;
  /** The client id of the final reads in the history (one past the workload's clients). */
  readonly clientId: number;
  readonly send: Send;
  readonly nowMs: () => number;
  /** Each key's linearizable read is retried (as a new operation) until this has passed. */
  readonly timeoutMs: number;
  readonly retryPauseMs: number;
}

function readResult(verdict: Verdict): ReadResult | undefined {
  if (verdict.kind !== 'ok') return undefined;
  const output = verdict.output;
  return output !== null && 'value' in output ? { value: output.value } : { error: 'not a read' };
}

/**
 * After the heal: per key one linearizable get that is recorded in the history (so the last value
 * is checked too), retried as a new operation until one answers, then a plain get on every node
 * (not recorded: it reads that node's own map, which the runner compares).
 */
export async function finalReads(options: FinalReadOptions): Promise<FinalRead[]> {
  const reads: FinalRead[] = [];
  for (const key of options.keys) {
    const input: KvInput = { type: 'get', key };
    const deadlineMs = options.nowMs() + options.timeoutMs;
    let linearizable: ReadResult | undefined;
    while (linearizable === undefined && options.nowMs() < deadlineMs) {
      const handle = options.recorder.invoke(options.clientId, input);
      const performed = await performOperation(input, {
        firstOrigin: options.origins[0] as string,
        origins: options.origins,
        deadlineMs,
        maxAttempts: options.origins.length + 1,
        send: options.send,
        nowMs: options.nowMs,
      });
      complete(handle, performed.verdict);
      linearizable = readResult(performed.verdict);
      if (linearizable === undefined) await sleep(options.retryPauseMs);
    }
    const nodes: Record<string, ReadResult> = {};
    for (const origin of options.origins) nodes[origin] = await localRead(options, origin, key);
    reads.push({
      key,
      linearizable: linearizable ?? { error: `no answer within ${options.timeoutMs} ms` },
      nodes,
    });
  }
  return reads;
}

/** A plain get: this node's map, whatever its role. */
async function localRead(options: FinalReadOptions, origin: string, key: string): Promise<ReadResult> {
  const attempt = await options.send(
    origin,
    { method: 'GET', path: `/kv/${encodeURIComponent(key)}` },
    LOCAL_READ_TIMEOUT_MS,
  );
  if (attempt.kind !== 'answer') return { error: attempt.reason };
  if (attempt.status === 200) return { value: attempt.text };
  if (attempt.status === 404) return { value: null };
  return { error: `HTTP ${attempt.status}` };
}
