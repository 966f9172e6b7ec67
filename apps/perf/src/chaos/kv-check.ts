import {
  checkOperations,
  formatCheckResult,
  type KvInput,
  type KvOutput,
  kvModel,
  type Operation,
  operationsFromEvents,
} from '@kraft/linearizability';
import type { KvHistoryEvent } from './kv-history.js';

/**
 * The kv workload's checks: the clients' history against the key-value model, one key at a time
 * (each key is an independent register: a map is linearizable exactly when each key is), with
 * a bounded search whose running out is a failure, never a pass; and the nodes' final maps.
 */

export interface KvCheckBounds {
  /** (linearized set, state) pairs one key's search may explore. */
  readonly maxStatesPerKey: number;
  /** Wall-clock time one key's search may take. */
  readonly timeBudgetPerKeyMs: number;
}

/**
 * 5,000,000 pairs and 60 s per key: the checker's own defaults, a few seconds of search for the
 * histories the per-key cap on operations allows (its README: 10,000 operations on one key with
 * 1% unknown outcomes explore about 53,000 pairs).
 */
export const DEFAULT_KV_CHECK_BOUNDS: KvCheckBounds = {
  maxStatesPerKey: 5_000_000,
  timeBudgetPerKeyMs: 60_000,
};

export interface KvKeyCheck {
  readonly key: string;
  /** The key's operations given to the search (failed ones and unknown reads left out). */
  readonly operations: number;
  readonly outcome: 'linearizable' | 'not-linearizable' | 'unknown';
  /** Pairs explored; undefined when the search ran out of a bound. */
  readonly exploredStates: number | undefined;
  /** The checker's own account of a violation or of the bound that ran out. */
  readonly detail: string | undefined;
}

export interface KvHistoryCounts {
  /** Operations invoked. */
  readonly operations: number;
  readonly ok: number;
  /** Certainly not applied. */
  readonly fail: number;
  /** Outcome unknown (`info`), and operations never completed (their client stopped first). */
  readonly info: number;
}

export interface KvHistoryCheck {
  readonly counts: KvHistoryCounts;
  readonly keys: readonly KvKeyCheck[];
  /** Keys whose history is not linearizable. */
  readonly violations: number;
  /** Keys whose search ran out of a bound: no verdict, so the run fails. */
  readonly unknown: number;
  readonly problems: readonly string[];
  readonly valid: boolean;
}

export function countKvHistory(events: readonly KvHistoryEvent[]): KvHistoryCounts {
  let operations = 0;
  let ok = 0;
  let fail = 0;
  for (const event of events) {
    if (event.type === 'invoke') operations += 1;
    else if (event.type === 'ok') ok += 1;
    else if (event.type === 'fail') fail += 1;
  }
  // The rest completed with `info` or never completed: unknown either way.
  return { operations, ok, fail, info: operations - ok - fail };
}

/** Checks every key's operations on its own, in order of first appearance. */
export function checkKvHistory(
  events: readonly KvHistoryEvent[],
  bounds: KvCheckBounds = DEFAULT_KV_CHECK_BOUNDS,
): KvHistoryCheck {
  const byKey = new Map<string, Operation<KvInput, KvOutput>[]>();
  for (const operation of operationsFromEvents(events)) {
    const members = byKey.get(operation.input.key) ?? [];
    members.push(operation);
    byKey.set(operation.input.key, members);
  }
  const keys: KvKeyCheck[] = [];
  const problems: string[] = [];
  for (const [key, operations] of byKey) {
    const result = checkOperations(kvModel, operations, {
      maxStates: bounds.maxStatesPerKey,
      timeBudgetMs: bounds.timeBudgetPerKeyMs,
    });
    const detail = result.ok ? undefined : formatCheckResult(kvModel, result);
    keys.push({
      key,
      operations: operations.length,
      outcome: result.outcome,
      exploredStates: result.outcome === 'unknown' ? undefined : result.exploredStates,
      detail,
    });
    // The verdict's first line names the operation no order explains; the rest goes to a file.
    if (detail !== undefined) problems.push(detail.split('\n')[0] as string);
  }
  const violations = keys.filter((check) => check.outcome === 'not-linearizable').length;
  const unknown = keys.filter((check) => check.outcome === 'unknown').length;
  return {
    counts: countKvHistory(events),
    keys,
    violations,
    unknown,
    problems,
    valid: violations === 0 && unknown === 0,
  };
}

/** A read's result: the value (null when absent), or why there is none. */
export type ReadResult = { readonly value: string | null } | { readonly error: string };

/** The last reads after the heal: one linearizable get per key, then each node's own map. */
export interface FinalRead {
  readonly key: string;
  readonly linearizable: ReadResult;
  /** Keyed by the node's origin: a plain (local) get of the key on that node. */
  readonly nodes: Readonly<Record<string, ReadResult>>;
}

function describeRead(read: ReadResult | undefined): string {
  if (read === undefined) return 'no answer';
  return 'error' in read ? `error ${read.error}` : JSON.stringify(read.value);
}

/**
 * Every node's map must hold, for every key, what the linearizable read returned (the runner
 * reads only once every node applied the whole committed log, with no write in flight).
 */
export function checkFinalReads(
  reads: readonly FinalRead[],
  origins: readonly string[],
): { readonly problems: string[]; readonly equalKeys: number } {
  const problems: string[] = [];
  let equalKeys = 0;
  for (const read of reads) {
    if ('error' in read.linearizable) {
      problems.push(
        `final linearizable get of ${JSON.stringify(read.key)} failed: ${read.linearizable.error}`,
      );
      continue;
    }
    const expected = read.linearizable.value;
    const differing = origins.filter((origin) => {
      const local = read.nodes[origin];
      return local === undefined || !('value' in local) || local.value !== expected;
    });
    if (differing.length === 0) equalKeys += 1;
    for (const origin of differing) {
      problems.push(
        `final map of ${origin} holds ${describeRead(read.nodes[origin])} for ${JSON.stringify(read.key)}, the linearizable get ${JSON.stringify(expected)}`,
      );
    }
  }
  return { problems, equalKeys };
}
