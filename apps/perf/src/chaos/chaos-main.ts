/** The chaos tier's entry point: the command line is read by chaos-plan.ts (see its options there and in the README). */
import { ChaosCluster, removeLeftovers } from './chaos-cluster.js';
import { type ChaosPlan, planChaos, USAGE } from './chaos-plan.js';
import { formatRunLine, formatSummaryTable } from './chaos-report.js';
import { type ChaosRunResult, injectableKinds, runChaos } from './chaos-run.js';
import type { FaultKind } from './chaos-schedule.js';
import {
  type NetworkCapabilities,
  probeCapabilities,
  removeLeftoverNamespaces,
} from './network-namespaces.js';
import { measureSilentFailover, percentile } from './silent-failover.js';

/** Lines for what this machine cannot do: the tier, or some faults, are skipped. */
function reportCapabilities(capabilities: NetworkCapabilities, kinds: readonly FaultKind[]): void {
  const skipped = kinds.filter((kind) => !injectableKinds(capabilities, [kind]).includes(kind));
  if (skipped.includes('disk-full'))
    console.log('chaos: disk-full faults skipped: cannot mount a tmpfs in a private mount namespace');
  if (skipped.includes('clock-jump'))
    console.log("chaos: clock-jump faults skipped: libfaketime is not installed (Debian's faketime package)");
}

async function runShards(work: ChaosPlan, capabilities: NetworkCapabilities): Promise<ChaosRunResult[]> {
  const results: ChaosRunResult[] = [];
  const queue = [...work.runs];
  const shard = async (): Promise<void> => {
    for (let run = queue.shift(); run !== undefined; run = queue.shift()) {
      const result = await runChaos(
        {
          seed: run.seed,
          nodeCount: run.nodeCount,
          faultWindowMs: work.faultWindowMs,
          workload: run.workload,
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
  let work: ChaosPlan;
  try {
    work = planChaos(process.argv.slice(2), process.env, () => Math.floor(Math.random() * 1_000_000));
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
  const workloads = ['append', 'kv']
    .map((kind) => [kind, work.runs.filter((run) => run.workload.kind === kind).length] as const)
    .filter(([, count]) => count > 0)
    .map(([kind, count]) => `${count} ${kind}`);
  console.log(
    `chaos: ${work.runs.length} run(s) (${workloads.join(', ')}), seeds ${seeds[0]}..${seeds.at(-1)}, ${work.faultWindowMs / 1000} s of faults each, ${work.shards} shard(s)`,
  );
  for (const run of work.runs) {
    if (run.workload.kind === 'kv' && run.workload.plantedBug !== undefined) {
      console.log(
        `chaos: PLANTED BUG ${run.workload.plantedBug} (test-only): linearizable gets skip readIndex(); the check must fail this run`,
      );
    }
  }
  const results = await runShards(work, capabilities);
  if (work.summary) console.log(formatSummaryTable(results));
  const passed = results.filter((result) => result.passed).length;
  console.log(`tests: ${passed} passed, ${results.length - passed} failed, 0 skipped`);
  return passed === results.length ? 0 : 1;
}

process.exitCode = await main();
