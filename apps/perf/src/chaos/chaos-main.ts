import { parseArgs } from 'node:util';
import { ChaosCluster, removeLeftovers } from './chaos-cluster.js';
import { formatRunLine, formatSummaryTable } from './chaos-report.js';
import { type ChaosRunResult, injectableKinds, runChaos } from './chaos-run.js';
import { FAULT_KINDS, type FaultKind } from './chaos-schedule.js';
import {
  type NetworkCapabilities,
  probeCapabilities,
  removeLeftoverNamespaces,
} from './network-namespaces.js';
import { measureSilentFailover, percentile } from './silent-failover.js';

/**
 * The chaos tier's command line:
 *   --ci                 the CI tier: KRAFT_CI_CHAOS_RUNS runs (default 5), the last with 5 nodes
 *   --long --runs N      N runs in --shards parallel shards, then a summary table
 *   --seed S --nodes N   one run (replays the schedule of a printed seed)
 *   --failover N         N trials of failover under a silent partition of the leader: p50/p99
 * Each run prints one PASSED/FAILED line; the output ends with `tests: N passed, N failed, N skipped`.
 */
const USAGE =
  'usage: chaos-main.ts [--ci | --long] [--runs N] [--shards N] [--nodes N] [--seconds N] [--seed N] [--throughput N] [--kinds a,b] [--failover N]';

interface Plan {
  readonly runs: { readonly seed: number; readonly nodeCount: number }[];
  readonly shards: number;
  readonly faultWindowMs: number;
  readonly throughput: number;
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

function plan(args: readonly string[]): Plan {
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
      kinds: { type: 'string' },
      failover: { type: 'string' },
    },
    strict: true,
  });
  const environment = process.env;
  const defaultRuns = values.ci
    ? positiveInteger(environment['KRAFT_CI_CHAOS_RUNS'], 'KRAFT_CI_CHAOS_RUNS', 5)
    : values.long
      ? 200
      : 1;
  const runCount = positiveInteger(values.runs, '--runs', defaultRuns);
  // The seed of run i is base + i, so each printed seed replays its own run.
  const baseSeed = values.seed === undefined ? Math.floor(Math.random() * 1_000_000) : Number(values.seed);
  const nodes = values.nodes === undefined ? undefined : positiveInteger(values.nodes, '--nodes', 3);
  const runs = Array.from({ length: runCount }, (_, index) => ({
    seed: baseSeed + index,
    // The CI tier ends with a 5-node run; the long tier makes every fifth run a 5-node one.
    nodeCount: nodes ?? ((values.ci && index === runCount - 1) || (values.long && index % 5 === 4) ? 5 : 3),
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
    throughput: positiveInteger(values.throughput, '--throughput', 500),
    kinds,
    summary: values.long === true,
    failoverTrials:
      values.failover === undefined ? undefined : positiveInteger(values.failover, '--failover', 50),
  };
}

/** Lines for what this machine cannot do: the tier, or some faults, are skipped. */
function reportCapabilities(capabilities: NetworkCapabilities, kinds: readonly FaultKind[]): void {
  const skipped = kinds.filter((kind) => !injectableKinds(capabilities, [kind]).includes(kind));
  if (skipped.includes('disk-full'))
    console.log('chaos: disk-full faults skipped: cannot mount a tmpfs in a private mount namespace');
  if (skipped.includes('clock-jump'))
    console.log("chaos: clock-jump faults skipped: libfaketime is not installed (Debian's faketime package)");
}

async function runShards(work: Plan, capabilities: NetworkCapabilities): Promise<ChaosRunResult[]> {
  const results: ChaosRunResult[] = [];
  const queue = [...work.runs];
  const shard = async (): Promise<void> => {
    for (let run = queue.shift(); run !== undefined; run = queue.shift()) {
      const result = await runChaos(
        {
          seed: run.seed,
          nodeCount: run.nodeCount,
          faultWindowMs: work.faultWindowMs,
          throughputRecordsPerSecond: work.throughput,
          recordSizeBytes: 64,
          capabilities,
          log: (line) => console.log(line),
        },
        work.kinds,
      );
      results.push(result);
      console.log(formatRunLine(result));
    }
  };
  await Promise.all(Array.from({ length: Math.min(work.shards, work.runs.length) }, shard));
  return results;
}

function destroyActiveClustersAndExit(signal: NodeJS.Signals): void {
  for (const cluster of [...ChaosCluster.active]) cluster.destroy();
  console.log(`chaos: stopped by ${signal}; every namespace and process of the run removed`);
  process.exit(signal === 'SIGINT' ? 130 : 143);
}

async function failover(trials: number, capabilities: NetworkCapabilities): Promise<number> {
  const timesMs = await measureSilentFailover(trials, capabilities, (line) => console.log(line));
  const figure = (rank: number) => `${percentile(timesMs, rank).toFixed(0)} ms`;
  console.log(
    `failover under a silent partition of the leader: ${timesMs.length} trials, p50 ${figure(50)}, p99 ${figure(99)}, min ${figure(0)}, max ${figure(100)}`,
  );
  return 0;
}

async function main(): Promise<number> {
  let work: Plan;
  try {
    work = plan(process.argv.slice(2));
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const capabilities = probeCapabilities();
  if (capabilities.missing.length > 0) {
    console.log(`chaos tier skipped: this machine lacks ${capabilities.missing.join(', ')}`);
    console.log(`tests: 0 passed, 0 failed, ${work.runs.length} skipped`);
    return 0;
  }
  for (const removed of removeLeftovers(removeLeftoverNamespaces))
    console.log(`chaos: removed leftover ${removed}`);
  reportCapabilities(capabilities, work.kinds);
  process.on('SIGINT', destroyActiveClustersAndExit);
  process.on('SIGTERM', destroyActiveClustersAndExit);
  process.on('exit', () => {
    for (const cluster of ChaosCluster.active) cluster.destroy();
  });
  if (work.failoverTrials !== undefined) return failover(work.failoverTrials, capabilities);
  const seeds = work.runs.map((run) => run.seed);
  console.log(
    `chaos: ${work.runs.length} run(s), seeds ${seeds[0]}..${seeds.at(-1)}, ${work.faultWindowMs / 1000} s of faults each, ${work.shards} shard(s)`,
  );
  const results = await runShards(work, capabilities);
  if (work.summary) console.log(formatSummaryTable(results));
  const passed = results.filter((result) => result.passed).length;
  console.log(`tests: ${passed} passed, ${results.length - passed} failed, 0 skipped`);
  return passed === results.length ? 0 : 1;
}

process.exitCode = await main();
