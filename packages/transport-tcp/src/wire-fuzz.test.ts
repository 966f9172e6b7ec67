import { describe, expect, it } from 'vitest';
import { percentile, startAnsweringNode, WellBehavedClient } from '../test/fuzz-target.js';
import { envNumber } from '../test/socket-harness.js';
import { runWireFuzz } from '../test/wire-fuzzer.js';

// The quick variant: a few thousand frames in-process. wire-fuzz.int.test.ts sends 100,000 from
// a separate process and holds the latency bound.
describe('wire fuzzing (quick variant)', () => {
  it('survives random and mutated frames while a well-behaved client keeps working', async () => {
    const node = await startAnsweringNode({ frameCompletionTimeoutMs: 300, connectionsMaxIdleMs: 5_000 });
    const client = new WellBehavedClient(node.port);
    try {
      await client.measure(50);
      const idle = await client.measure(300);
      const rssBefore = process.memoryUsage().rss;
      let fuzzing = true;
      const fuzz = runWireFuzz({
        port: node.port,
        frameCount: 3_000,
        seed: envNumber('KRAFT_SEED', 7),
        concurrency: 4,
        slowLorisConnections: 2,
        slowLorisIntervalMs: 20,
      }).finally(() => {
        fuzzing = false;
      });
      const underFuzz = await client.measure(50, () => !fuzzing);
      const report = await fuzz;
      const after = await client.measure(50);
      const rssGrowthMiB = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
      process.stdout.write(
        `wire fuzz (quick): ${report.framesSent} frames over ${report.connectionsOpened} connections; client p50/p99 idle ${percentile(idle, 0.5).toFixed(0)}/${percentile(idle, 0.99).toFixed(0)} µs, under fuzz ${percentile(underFuzz, 0.5).toFixed(0)}/ ${percentile(underFuzz, 0.99).toFixed(0)} µs; RSS growth ${rssGrowthMiB.toFixed(1)} MiB\n`,
      );
      expect(report.framesSent).toBeGreaterThanOrEqual(3_000);
      expect(Object.keys(report.byKind).sort()).toEqual(
        [
          'apiversions-unknown-version',
          'garbage-header',
          'huge-size',
          'mutated-body',
          'mutated-header',
          'negative-size',
          'slow-loris',
          'truncated',
          'unknown-api-key',
          'unknown-version',
          'valid',
          'wrong-cluster-id',
        ].sort(),
      );
      expect(client.failures).toEqual([]);
      expect(after).toHaveLength(50);
      expect(node.answered()).toBeGreaterThan(300);
    } finally {
      await client.close();
      await node.stop();
    }
  });
});
