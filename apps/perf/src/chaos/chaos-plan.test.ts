import { describe, expect, it } from 'vitest';
import { KV_DEFAULT_MAX_OPERATIONS_PER_KEY, planChaos } from './chaos-plan.js';

const plan = (args: string[], environment: NodeJS.ProcessEnv = {}) => planChaos(args, environment, () => 100);

describe('planChaos', () => {
  it('keeps one append run by default, as before the kv workload', () => {
    const { runs } = plan(['--seed', '7']);
    expect(runs).toEqual([
      {
        seed: 7,
        nodeCount: 3,
        workload: { kind: 'append', throughputRecordsPerSecond: 500, recordSizeBytes: 64 },
      },
    ]);
  });

  it('plans kv runs with their clients, keys and per-key bound', () => {
    const { runs } = plan(['--workload', 'kv', '--seed', '3', '--clients', '8', '--keys', '2']);
    expect(runs).toEqual([
      {
        seed: 3,
        nodeCount: 3,
        workload: { kind: 'kv', clients: 8, keys: 2, maxOperationsPerKey: KV_DEFAULT_MAX_OPERATIONS_PER_KEY },
      },
    ]);
    expect(plan(['--workload', 'kv', '--long', '--runs', '10']).runs.map((run) => run.nodeCount)).toEqual([
      3, 3, 3, 3, 5, 3, 3, 3, 3, 5,
    ]);
  });

  it('runs the CI tier as five append runs (the last with 5 nodes) and then one kv run', () => {
    const { runs } = plan(['--ci']);
    expect(runs.map((run) => [run.seed, run.nodeCount, run.workload.kind])).toEqual([
      [100, 3, 'append'],
      [101, 3, 'append'],
      [102, 3, 'append'],
      [103, 3, 'append'],
      [104, 5, 'append'],
      [105, 3, 'kv'],
    ]);
    const counted = plan(['--ci'], { KRAFT_CI_CHAOS_RUNS: '2', KRAFT_CI_CHAOS_KV_RUNS: '2' }).runs;
    expect(counted.map((run) => run.workload.kind)).toEqual(['append', 'append', 'kv', 'kv']);
    expect(plan(['--ci', '--workload', 'append']).runs.every((run) => run.workload.kind === 'append')).toBe(
      true,
    );
  });

  it('takes the planted bug for one kv run only, and never in the CI or long tiers', () => {
    expect(plan(['--workload', 'kv', '--planted-bug', 'stale-reads']).runs[0]?.workload).toMatchObject({
      plantedBug: 'stale-reads',
    });
    for (const args of [
      ['--planted-bug', 'stale-reads'],
      ['--workload', 'kv', '--planted-bug', 'stale-reads', '--ci'],
      ['--workload', 'kv', '--planted-bug', 'stale-reads', '--long'],
      ['--workload', 'kv', '--planted-bug', 'stale-reads', '--runs', '3'],
      ['--workload', 'kv', '--planted-bug', 'ack-before-commit'],
    ]) {
      expect(() => plan(args), args.join(' ')).toThrow();
    }
  });

  it("refuses one workload's options for the other and unknown workloads", () => {
    expect(() => plan(['--clients', '4'])).toThrow(/--clients needs --workload kv/);
    expect(() => plan(['--workload', 'kv', '--throughput', '100'])).toThrow(/append workload/);
    expect(() => plan(['--workload', 'bank'])).toThrow(/append or kv/);
  });
});
