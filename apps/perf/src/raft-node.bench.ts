// Propose round-trip through RaftNode at low load, and failover time. Three RaftNodes in this one
// process (one event loop for all three: a lower bound on what three processes would see for
// CPU, the same disk and loopback TCP), each on its own temporary directory with the on-disk log
// and fsync. One proposal at a time (closed loop, 100-byte JSON values): the time from
// `propose()` to its promise resolving, i.e. appended, replicated to a majority, flushed,
// committed and applied by the leader's state machine.
//   round-trip: once with Kafka's `controller.quorum.append.linger.ms` (25 ms), once with 0.
//   failover: the leader closes; the time until another node commits a proposal.
// Env: KRAFT_BENCH_PROPOSALS (default 1000), KRAFT_BENCH_FAILOVERS (default 5),
// KRAFT_BENCH_DIR (default os.tmpdir()).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { jsonSerde, RaftNode, type RaftNodeConfig, type StateMachine } from '@kraft/raft';
import { countSetting } from './support/count-setting.js';

interface Put {
  readonly key: string;
  readonly value: string;
}

/** Bound on one election or one proposal: a stuck cluster fails the bench instead of stalling it. */
const STEP_TIMEOUT_MS = 30_000;
/** Warm-up proposals left out of the figures (JIT, first fsyncs, connection set-up). */
const WARM_UP_PROPOSALS = 50;
const VALUE = 'v'.repeat(100 - 20);

const proposals = countSetting('KRAFT_BENCH_PROPOSALS', 1000);
const failovers = countSetting('KRAFT_BENCH_FAILOVERS', 5);
const baseDirectory = mkdtempSync(join(process.env['KRAFT_BENCH_DIR'] ?? tmpdir(), 'kraft-raft-node-bench-'));

class CountingStateMachine implements StateMachine<Put> {
  applied = 0;
  apply(): void {
    this.applied += 1;
  }
  snapshot(): void {}
  restore(): void {}
}

/** Three nodes bound on port 0, then started with the voters string of the bound ports. */
async function startCluster(name: string, config: RaftNodeConfig): Promise<RaftNode<Put>[]> {
  const nodes: RaftNode<Put>[] = [];
  for (let nodeId = 1; nodeId <= 3; nodeId += 1) {
    nodes.push(
      await RaftNode.bind({
        nodeId,
        directory: join(baseDirectory, name, `node-${nodeId}`),
        listeners: 'CONTROLLER://127.0.0.1:0',
        clusterId: 'raft-node-bench',
        serde: jsonSerde<Put>(),
        stateMachine: new CountingStateMachine(),
        config,
      }),
    );
  }
  const voters = nodes.map((node, index) => `${index + 1}@127.0.0.1:${node.endpoints()[0]?.port}`).join(',');
  for (const node of nodes) await node.start(voters);
  return nodes;
}

async function leaderOf(nodes: readonly RaftNode<Put>[]): Promise<RaftNode<Put>> {
  const deadline = performance.now() + STEP_TIMEOUT_MS;
  for (;;) {
    const leader = nodes.find((node) => node.status().phase === 'running' && node.status().role === 'leader');
    if (leader !== undefined) return leader;
    if (performance.now() > deadline) throw new Error('no leader');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? Number.NaN;
}

function row(label: string, value: string): void {
  process.stdout.write(`  ${label.padEnd(56)} ${value}\n`);
}

function reportMilliseconds(label: string, samples: number[]): void {
  const sorted = [...samples].sort((left, right) => left - right);
  const format = (value: number) => value.toFixed(2).padStart(8);
  row(
    `${label} p50 / p99 / max (ms)`,
    `${format(percentile(sorted, 0.5))} ${format(percentile(sorted, 0.99))} ${format(sorted.at(-1) ?? Number.NaN)}`,
  );
}

async function measureRoundTrip(label: string, config: RaftNodeConfig): Promise<void> {
  const nodes = await startCluster(label, config);
  try {
    const leader = await leaderOf(nodes);
    const samples: number[] = [];
    for (let index = 0; index < WARM_UP_PROPOSALS + proposals; index += 1) {
      const startMs = performance.now();
      await leader.propose([{ key: `k${index}`, value: VALUE }], { timeoutMs: STEP_TIMEOUT_MS });
      if (index >= WARM_UP_PROPOSALS) samples.push(performance.now() - startMs);
    }
    reportMilliseconds(`propose round-trip, ${label}`, samples);
  } finally {
    await Promise.all(nodes.map((node) => node.close()));
  }
}

/** Closes the leader and times until another node has committed a proposal; reopens it after. */
async function measureFailover(config: RaftNodeConfig): Promise<void> {
  let nodes = await startCluster('failover', config);
  const samples: number[] = [];
  try {
    for (let round = 0; round < failovers; round += 1) {
      const leader = await leaderOf(nodes);
      await leader.propose([{ key: 'before', value: VALUE }], { timeoutMs: STEP_TIMEOUT_MS });
      const startMs = performance.now();
      await leader.close();
      const remaining = nodes.filter((node) => node !== leader);
      for (;;) {
        const next = await leaderOf(remaining);
        const committed = await next
          .propose([{ key: 'after', value: VALUE }], { timeoutMs: STEP_TIMEOUT_MS })
          .then(
            () => true,
            () => false,
          );
        if (committed) break;
      }
      samples.push(performance.now() - startMs);
      // Back to three for the next round: a fresh cluster keeps every round alike.
      await Promise.all(remaining.map((node) => node.close()));
      nodes = await startCluster(`failover-${round}`, config);
    }
    reportMilliseconds(`failover (leader closes → next commit, ${failovers} rounds)`, samples);
  } finally {
    await Promise.all(nodes.map((node) => node.close()));
  }
}

try {
  process.stdout.write(`RaftNode, 3 voters in one process, ${proposals} sequential 100-byte proposals\n`);
  await measureRoundTrip('append.linger.ms=25 (Kafka default)', {});
  await measureRoundTrip('append.linger.ms=0', { appendLingerMs: 0 });
  await measureFailover({ electionTimeoutMs: 1000, fetchTimeoutMs: 2000 });
} finally {
  rmSync(baseDirectory, { recursive: true, force: true });
}
