// Each peer (etcd, ZooKeeper from Debian's packages) as 3 members on loopback under a short run of
// the workload, only where it is installed; skipped with a line saying how to install it otherwise.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PeerCluster } from './peer-cluster.js';
import { missingPeer, PEER_SYSTEMS, runPeersScenario } from './peers-scenario.js';

describe('pnpm perf peers', () => {
  for (const system of PEER_SYSTEMS) {
    const missing = missingPeer(system);
    if (missing !== undefined) process.stdout.write(`peers integration test: ${missing}\n`);
    it.skipIf(missing !== undefined)(
      `${system}: 3 members acknowledge the workload's writes, and everything started is gone after`,
      async () => {
        const baseDirectory = mkdtempSync(join(tmpdir(), 'kraft-peers-test-'));
        const result = await runPeersScenario({
          baseDirectory,
          systems: [system],
          durationMs: 3_000,
          warmupMs: 1_000,
          throughputRecordsPerSecond: 500,
          recordSizeBytes: 256,
          keepDirectory: false,
        });
        expect(result.failures).toEqual([]);
        const [run] = result.runs;
        expect(run?.skipped).toBeUndefined();
        expect(run?.figures?.committedRecords).toBeGreaterThan(0);
        expect(run?.figures?.latencyMs['p99']).toBeGreaterThan(0);
        expect(run?.figures?.failedWrites).toBe(0);
        // Members killed and their dirs removed: nothing of the run is left.
        expect(PeerCluster.active.size).toBe(0);
        expect(readdirSync(baseDirectory)).toEqual([]);
        rmSync(baseDirectory, { recursive: true, force: true });
      },
      180_000,
    );
  }
});
