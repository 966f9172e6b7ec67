// Three store processes, concurrent recording clients, kill -9 of the leader: the history the
// clients saw must be linearizable. And with the stale-read bug planted, the checker must say no.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type CheckResult,
  checkOperations,
  formatCheckResult,
  HistoryRecorder,
  type KvInput,
  type KvOutput,
  type KvState,
  kvModel,
  writeHistoryFile,
} from '@kraft/linearizability';
import type { RaftNodeConfig } from '@kraft/raft';
import { afterEach, describe, expect, it } from 'vitest';
import { KvCluster, type KvClusterOptions } from '../src/kv-cluster.js';
import { type KvRecorder, type Outcome, recordedCall } from './kv-client.js';

/** Elections within a second or two on a loaded 2-core machine; snapshots every few hundred values. */
const TEST_CONFIG: RaftNodeConfig = {
  electionTimeoutMs: 800,
  fetchTimeoutMs: 1_600,
  electionBackoffMaxMs: 400,
  requestTimeoutMs: 800,
  appendLingerMs: 2,
  shutdownTimeoutMs: 1_000,
  proposeTimeoutMs: 4_000,
  snapshotEveryRecords: 250,
};
const CLIENTS = 6;
const KEYS = ['a', 'b', 'c'];
const WORKLOAD_MS = 18_000;
/** kill -9 of the leader twice, around a SIGSTOP of the leader long enough for an election. */
const FAULTS = ['kill', 'pause', 'kill'] as const;
const FAULT_GAP_MS = 2_500;
const DOWN_MS = 1_000;
const PAUSE_MS = 3_500;
const LEADER_WAIT_MS = 20_000;

let cluster: KvCluster | undefined;
let directory: string | undefined;
let keepDirectory = false;

afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
  if (directory !== undefined && !keepDirectory) rmSync(directory, { recursive: true, force: true });
  directory = undefined;
  keepDirectory = false;
});

async function startCluster(options: Partial<KvClusterOptions> = {}): Promise<KvCluster> {
  directory = mkdtempSync(join(tmpdir(), 'kraft-kv-store-test-'));
  cluster = await KvCluster.start({
    size: 3,
    baseDirectory: directory,
    config: TEST_CONFIG,
    logToFiles: true,
    // Each process compiles its TypeScript through tsx first: slow on a loaded machine.
    startTimeoutMs: 60_000,
    ...options,
  });
  return cluster;
}

const lastSeen = new Map<string, string>();

/** Random puts, deletes, compare-and-sets and linearizable gets on a few keys until `deadline`. */
async function runClient(
  running: KvCluster,
  recorder: KvRecorder,
  clientId: number,
  deadline: number,
  counts: Record<Outcome['kind'] | 'okAfterLastRestart', number>,
  lastRestart: { atMs: number },
) {
  const urls = running.members.map((member) => running.httpUrl(member));
  let leaderUrl = urls[clientId % urls.length] as string;
  let sequence = 0;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)] as T;
  while (Date.now() < deadline) {
    const key = pick(KEYS);
    const value = `${clientId}-${sequence++}`;
    const dice = Math.random();
    const input: KvInput =
      dice < 0.3
        ? { type: 'get', key }
        : dice < 0.6
          ? { type: 'put', key, value }
          : dice < 0.7
            ? { type: 'delete', key }
            : { type: 'cas', key, expected: Math.random() < 0.8 ? (lastSeen.get(key) ?? null) : null, value };
    // Reads go to any node half the time: a follower must redirect, never answer from its own map.
    const target = input.type === 'get' && Math.random() < 0.5 ? pick(urls) : leaderUrl;
    const outcome = await recordedCall(recorder, clientId, target, input);
    counts[outcome.kind] += 1;
    if (outcome.kind === 'ok' && Date.now() > lastRestart.atMs) counts.okAfterLastRestart += 1;
    if (outcome.kind === 'ok') {
      // Compare-and-sets expect a value some client saw lately, so that many of them swap.
      if (input.type === 'put') lastSeen.set(key, value);
    }
    if (outcome.kind === 'fail' && outcome.redirectTo !== undefined) leaderUrl = outcome.redirectTo;
    else if (outcome.kind !== 'ok') {
      leaderUrl = pick(urls);
      await sleep(50);
    }
  }
}

async function checkAndKeep(recorder: KvRecorder): Promise<CheckResult<KvState, KvInput, KvOutput>> {
  const result = checkOperations(kvModel, recorder.operations(), { timeBudgetMs: 30_000 });
  if (result.outcome !== 'linearizable' && directory !== undefined) {
    const path = join(directory, 'history.jsonl');
    await writeHistoryFile(path, recorder.events());
    keepDirectory = true;
    console.error(
      `kv-store history saved to ${path} (node logs beside it)\n${formatCheckResult(kvModel, result)}`,
    );
  }
  return result;
}

describe('kv-store on three processes', () => {
  it('stays linearizable while the leader is killed with SIGKILL (and restarted) or frozen with SIGSTOP', async () => {
    const running = await startCluster();
    const recorder: KvRecorder = new HistoryRecorder<KvInput, KvOutput>();
    const counts = { ok: 0, fail: 0, info: 0, okAfterLastRestart: 0 };
    const lastRestart = { atMs: Number.POSITIVE_INFINITY };
    await running.waitForLeader(LEADER_WAIT_MS);
    const deadline = Date.now() + WORKLOAD_MS;
    const clients = Array.from({ length: CLIENTS }, (_, clientId) =>
      runClient(running, recorder, clientId, deadline, counts, lastRestart),
    );
    const faults: string[] = [];
    for (const fault of FAULTS) {
      await sleep(FAULT_GAP_MS);
      const leader = await running.waitForLeader(LEADER_WAIT_MS);
      faults.push(`${fault} ${leader}`);
      if (fault === 'kill') {
        await running.kill(leader);
        await sleep(DOWN_MS);
        await running.restart(leader);
      } else {
        // A frozen leader (a long GC pause, a stopped VM): the others elect a new one meanwhile.
        running.pause(leader);
        await sleep(PAUSE_MS);
        running.resume(leader);
      }
      lastRestart.atMs = Date.now();
    }
    await Promise.all(clients);

    const result = await checkAndKeep(recorder);
    expect(result.outcome, formatCheckResult(kvModel, result)).toBe('linearizable');
    expect(faults).toHaveLength(FAULTS.length);
    // Enough completed operations on both sides of the kills for the check to mean something.
    expect(counts.ok).toBeGreaterThan(100);
    expect(counts.okAfterLastRestart).toBeGreaterThan(10);
    console.log(
      `kv-store: operations ${JSON.stringify(counts)} in ${WORKLOAD_MS} ms, faults: ${faults.join(', ')}`,
    );
  });

  it('catches the planted bug: linearizable reads served by a deposed leader without readIndex', async () => {
    const { staleRead, result } = await readFromDeposedLeader(true);
    expect(staleRead.kind).toBe('ok');
    expect(result.outcome, formatCheckResult(kvModel, result)).toBe('not-linearizable');
  });

  it('refuses the same read without the planted bug: the deposed leader cannot confirm it leads', async () => {
    const { staleRead, result } = await readFromDeposedLeader(false);
    expect(staleRead.kind).toBe('fail');
    expect(result.outcome, formatCheckResult(kvModel, result)).toBe('linearizable');
  });
});

/**
 * put 'old' on the leader, freeze the leader (SIGSTOP: it keeps its sockets and its map), let the
 * other two elect a leader and put 'new' there, then read from the frozen one and let it run.
 */
async function readFromDeposedLeader(staleLinearizableReads: boolean) {
  const running = await startCluster({ staleLinearizableReads });
  const recorder: KvRecorder = new HistoryRecorder<KvInput, KvOutput>();
  const oldLeader = await running.waitForLeader(LEADER_WAIT_MS);
  const oldLeaderUrl = running.httpUrl(running.member(oldLeader));
  expect((await recordedCall(recorder, 0, oldLeaderUrl, { type: 'put', key: 'k', value: 'old' })).kind).toBe(
    'ok',
  );
  running.pause(oldLeader);
  const newLeader = await running.waitForLeader(LEADER_WAIT_MS);
  const newLeaderUrl = running.httpUrl(running.member(newLeader));
  expect((await recordedCall(recorder, 0, newLeaderUrl, { type: 'put', key: 'k', value: 'new' })).kind).toBe(
    'ok',
  );
  // Invoked after 'new' was acknowledged. The deposed leader takes it as soon as it runs again,
  // at least a round trip to the new leader before it could have applied 'new'.
  const staleRead = recordedCall(recorder, 1, oldLeaderUrl, { type: 'get', key: 'k' });
  await sleep(300);
  running.resume(oldLeader);
  return { staleRead: await staleRead, result: checkOperations(kvModel, recorder.operations()) };
}
