// The workload generator end to end on real test servers (ADR 0027): the metadata scenario for a
// few seconds on 3 nodes, and a short run of Kafka's raft workload. Everything the runs start
// they stop, also on failure (the runners destroy their quorums in `finally`).
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runFailoverScenario } from './failover-scenario.js';
import { runKafkaScenario } from './kafka-scenario.js';
import { runMetadataScenario } from './metadata-scenario.js';
import { runSweepScenario } from './sweep-scenario.js';

describe('pnpm perf', () => {
  it('metadata: 3 nodes end with equal image digests, and every snapshot decodes to the image the log replays to at its offset', async () => {
    const result = await runMetadataScenario({
      nodeCount: 3,
      durationMs: 4_000,
      throughputRecordsPerSecond: 1_000,
      // Small enough for several snapshots on every node in a few seconds.
      snapshotThresholdBytes: 16 * 1024,
      seed: 27,
    });
    expect(result.failures).toEqual([]);
    expect(result.passed).toBe(true);
    const digests = new Set(result.nodes.map(({ report }) => report?.digest));
    expect(digests.size).toBe(1);
    for (const { report, logCheck } of result.nodes) {
      expect(logCheck?.replayedDigest).toBe(report?.digest);
      expect(logCheck?.snapshots.length).toBeGreaterThan(0);
      expect(logCheck?.snapshots.every((snapshot) => snapshot.matches)).toBe(true);
    }
    expect(result.figures.appendedRecords).toBeGreaterThan(0);
    expect(result.figures.imageRecords).toBeGreaterThan(0);
    expect(result.figures.snapshotBytesWritten).toBeGreaterThan(0);
    expect(existsSync(result.directory)).toBe(false);
  });

  it("kafka: a short run of Kafka's raft workload reports non-zero committed throughput, latencies and process figures", async () => {
    const result = await runKafkaScenario({
      nodeCount: 3,
      durationMs: 4_000,
      warmupMs: 1_000,
      throughputRecordsPerSecond: 2_000,
      recordSizeBytes: 256,
      lingerMs: 25,
      keepDirectory: false,
    });
    expect(result.failures).toEqual([]);
    const { figures } = result;
    expect(figures.committedRecords).toBeGreaterThan(0);
    expect(figures.committedBytesPerSecond).toBe(figures.committedRecordsPerSecond * 256);
    expect(figures.latencyCount).toBeGreaterThan(0);
    expect(figures.latencyMs['p50']).toBeGreaterThan(0);
    expect(figures.latencyMs['p99']).toBeGreaterThanOrEqual(figures.latencyMs['p50'] as number);
    expect(figures.latencyMs['max']).toBeGreaterThanOrEqual(figures.latencyMs['p99'] as number);
    expect(result.usage).toHaveLength(3);
    for (const usage of result.usage) {
      expect(usage.cpuSeconds).toBeGreaterThan(0);
      expect(usage.peakRssBytes).toBeGreaterThan(16 * 1024 * 1024);
      expect(usage.writeBytes).toBeGreaterThan(0);
    }
  });

  it.each(['KILL', 'TERM'] as const)(
    'failover --signal %s: another node leads in a later epoch and commits',
    async (signal) => {
      const result = await runFailoverScenario({
        nodeCount: 3,
        trials: 1,
        throughputRecordsPerSecond: 1_000,
        recordSizeBytes: 64,
        keepDirectory: false,
        signal,
      });
      expect(result.failures).toEqual([]);
      const [trial] = result.trials;
      expect(trial?.newLeaderId).not.toBe(trial?.killedNodeId);
      expect(trial?.newEpoch).toBeGreaterThan(trial?.killedEpoch as number);
      expect(trial?.electedMs).toBeGreaterThan(0);
      expect(trial?.firstCommitMs).toBeGreaterThanOrEqual(trial?.electedMs as number);
      expect(result.startup?.launchToLeaderMs).toBeGreaterThan(0);
      expect(['built', 'source']).toContain(result.startup?.entry);
    },
  );

  it('open-loop: offered far above what commits, it commits what it can and keeps the latency distribution', async () => {
    const result = await runKafkaScenario({
      nodeCount: 3,
      durationMs: 3_000,
      warmupMs: 1_000,
      throughputRecordsPerSecond: 2_000_000,
      recordSizeBytes: 256,
      lingerMs: 25,
      keepDirectory: false,
      openLoop: true,
    });
    expect(result.failures).toEqual([]);
    expect(result.scenario).toBe('open-loop');
    const { figures } = result;
    // Far less commits than was offered: the generator was held back, not dropping records.
    expect(figures.committedRecordsPerSecond).toBeGreaterThan(0);
    expect(figures.committedRecordsPerSecond).toBeLessThan(2_000_000);
    expect(figures.latencyCount).toBeGreaterThan(0);
    expect(figures.latencyMs['max']).toBeGreaterThanOrEqual(figures.latencyMs['p50'] as number);
  });

  it('sweep: one point per (record size, throughput), each its own committed figures', async () => {
    const result = await runSweepScenario({
      nodeCount: 1,
      durationMs: 2_000,
      warmupMs: 500,
      lingerMs: 5,
      keepDirectory: false,
      throughputs: [500, 2_000],
      recordSizes: [128],
    });
    expect(result.failures).toEqual([]);
    expect(result.points.map((point) => point.options.throughputRecordsPerSecond)).toEqual([500, 2_000]);
    for (const point of result.points) expect(point.figures.committedRecords).toBeGreaterThan(0);
  });
});
