import { parseArgs } from 'node:util';
import type { RunWorkloadOptions } from './chaos-run.js';
import { FAULT_KINDS, type FaultKind } from './chaos-schedule.js';

/**
 * The chaos tier's command line:
 *   --ci                 the CI tier: KRAFT_CI_CHAOS_RUNS append runs (default 5, the last with 5
 *                        nodes), then KRAFT_CI_CHAOS_KV_RUNS kv runs (default 1)
 *   --long --runs N      N runs in --shards parallel shards, then a summary table
 *   --seed S --nodes N   one run (replays the schedule of a printed seed)
 *   --failover N         N trials of failover under a silent partition of the leader: p50/p99
 *   --workload kv        kv-store nodes and concurrent clients, checked for linearizability
 *                        (--clients N, --keys N, --max-ops-per-key N); the default is `append`
 *   --planted-bug stale-reads   test-only, one run with --workload kv: proves the check fails a
 *                        store whose linearizable reads skip readIndex()
 * Each run prints one PASSED/FAILED line; the output ends with `tests: N passed, N failed, N skipped`.
 */
export const USAGE =
  'usage: chaos-main.ts [--ci | --long] [--runs N] [--shards N] [--nodes N] [--seconds N] [--seed N] [--workload append|kv] [--throughput N] [--clients N] [--keys N] [--max-ops-per-key N] [--planted-bug stale-reads] [--kinds a,b] [--failover N]';

/**
 * The kv workload's defaults: 6 clients on 4 keys, so that one to three operations on a key are
 * in flight at once. At most 10,000 invocations per key: the size the checker's benchmark checks
 * in well under a second on one key (its README, "Speed"), and more than 4 minutes of faults give
 * on the 2-core machine (about 35 operations a second per key); the clients stop there.
 */
export const KV_DEFAULT_CLIENTS = 6;
export const KV_DEFAULT_KEYS = 4;
export const KV_DEFAULT_MAX_OPERATIONS_PER_KEY = 10_000;

export interface PlannedRun {
  readonly seed: number;
  readonly nodeCount: number;
  readonly workload: RunWorkloadOptions;
}

export interface ChaosPlan {
  readonly runs: readonly PlannedRun[];
  readonly shards: number;
  readonly faultWindowMs: number;
  readonly kinds: readonly FaultKind[];
  readonly summary: boolean;
  /** Trials of the silent-partition failover measurement instead of chaos runs. */
  readonly failoverTrials: number | undefined;
}

function positiveInteger(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got '${text}'`);
  return value;
}

type Values = Readonly<Record<string, string | boolean | undefined>>;

function text(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

function appendWorkload(values: Values): RunWorkloadOptions {
  return {
    kind: 'append',
    throughputRecordsPerSecond: positiveInteger(text(values, 'throughput'), '--throughput', 500),
    recordSizeBytes: 64,
  };
}

function kvWorkload(values: Values): RunWorkloadOptions {
  const plantedBug = text(values, 'planted-bug');
  if (plantedBug !== undefined && plantedBug !== 'stale-reads')
    throw new Error(`--planted-bug knows only stale-reads, got '${plantedBug}'`);
  return {
    kind: 'kv',
    clients: positiveInteger(text(values, 'clients'), '--clients', KV_DEFAULT_CLIENTS),
    keys: positiveInteger(text(values, 'keys'), '--keys', KV_DEFAULT_KEYS),
    maxOperationsPerKey: positiveInteger(
      text(values, 'max-ops-per-key'),
      '--max-ops-per-key',
      KV_DEFAULT_MAX_OPERATIONS_PER_KEY,
    ),
    ...(plantedBug === undefined ? {} : { plantedBug }),
  };
}

/** The options of one workload may not be given for the other, nor the planted bug outside one run. */
function checkWorkloadOptions(values: Values, workload: string | undefined): void {
  if (workload !== undefined && workload !== 'append' && workload !== 'kv')
    throw new Error(`--workload is append or kv, got '${workload}'`);
  if (workload !== 'kv') {
    for (const name of ['clients', 'keys', 'max-ops-per-key', 'planted-bug']) {
      if (text(values, name) !== undefined) throw new Error(`--${name} needs --workload kv`);
    }
  }
  if (workload === 'kv' && text(values, 'throughput') !== undefined)
    throw new Error('--throughput is for the append workload');
  const planted = text(values, 'planted-bug') !== undefined;
  if (planted && (values['ci'] === true || values['long'] === true || text(values, 'runs') !== undefined))
    throw new Error('--planted-bug is test-only: one run, never with --ci, --long or --runs');
}

/** The workloads of the runs, in order: the CI tier adds its kv runs after the append runs. */
function runWorkloads(values: Values, environment: NodeJS.ProcessEnv): RunWorkloadOptions[] {
  const workload = text(values, 'workload');
  const defaultRuns = values['ci']
    ? positiveInteger(environment['KRAFT_CI_CHAOS_RUNS'], 'KRAFT_CI_CHAOS_RUNS', 5)
    : values['long']
      ? 200
      : 1;
  const runCount = positiveInteger(text(values, 'runs'), '--runs', defaultRuns);
  const chosen = workload === 'kv' ? kvWorkload(values) : appendWorkload(values);
  const runs = Array.from({ length: runCount }, () => chosen);
  if (values['ci'] && workload === undefined) {
    const kvRuns = positiveInteger(environment['KRAFT_CI_CHAOS_KV_RUNS'], 'KRAFT_CI_CHAOS_KV_RUNS', 1);
    runs.push(...Array.from({ length: kvRuns }, () => kvWorkload(values)));
  }
  return runs;
}

/**
 * The runs and settings a command line asks for. `randomSeed` gives the base seed when `--seed`
 * is absent; the seed of run i is base + i, so each printed seed replays its own run.
 */
export function planChaos(
  args: readonly string[],
  environment: NodeJS.ProcessEnv,
  randomSeed: () => number,
): ChaosPlan {
  const { values } = parseArgs({
    args: [...args],
    options: {
      ci: { type: 'boolean' },
      long: { type: 'boolean' },
      runs: { type: 'string' },
      shards: { type: 'string' },
      nodes: { type: 'string' },
      seconds: { type: 'string' },
      seed: { type: 'string' },
      throughput: { type: 'string' },
      workload: { type: 'string' },
      clients: { type: 'string' },
      keys: { type: 'string' },
      'max-ops-per-key': { type: 'string' },
      'planted-bug': { type: 'string' },
      kinds: { type: 'string' },
      failover: { type: 'string' },
    },
    strict: true,
  });
  checkWorkloadOptions(values, values.workload);
  const baseSeed = values.seed === undefined ? randomSeed() : Number(values.seed);
  if (!Number.isSafeInteger(baseSeed)) throw new Error(`--seed must be an integer, got '${values.seed}'`);
  const nodes = values.nodes === undefined ? undefined : positiveInteger(values.nodes, '--nodes', 3);
  const workloads = runWorkloads(values, environment);
  const lastAppend = workloads.map((workload) => workload.kind).lastIndexOf('append');
  const runs = workloads.map((workload, index) => ({
    seed: baseSeed + index,
    // The CI tier's last append run has 5 nodes; the long tier makes every fifth run a 5-node one.
    nodeCount: nodes ?? ((values.ci && index === lastAppend) || (values.long && index % 5 === 4) ? 5 : 3),
    workload,
  }));
  const kinds = (values.kinds?.split(',') ?? [...FAULT_KINDS]) as FaultKind[];
  const unknown = kinds.filter((kind) => !FAULT_KINDS.includes(kind));
  if (unknown.length > 0)
    throw new Error(`unknown fault kinds ${unknown.join(', ')}; known: ${FAULT_KINDS.join(', ')}`);
  return {
    runs,
    shards: positiveInteger(values.shards, '--shards', values.long ? 2 : 1),
    faultWindowMs:
      positiveInteger(values.seconds ?? environment['KRAFT_CHAOS_SECONDS'], '--seconds', 60) * 1000,
    kinds,
    summary: values.long === true,
    failoverTrials:
      values.failover === undefined ? undefined : positiveInteger(values.failover, '--failover', 50),
  };
}
