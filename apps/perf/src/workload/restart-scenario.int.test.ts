// `pnpm perf restart` end to end on tiny sizes: the scenario's own invariants, not its timings.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalQuorum } from './local-quorum.js';
import { runRestartScenario } from './restart-scenario.js';

describe('pnpm perf restart', () => {
  const baseDirectory = mkdtempSync(join(tmpdir(), 'kraft-perf-restart-test-'));
  afterEach(() => rmSync(baseDirectory, { recursive: true, force: true }));

  it('kill -9: every node scans its log, the quorum elects and commits again, and the restarted follower holds exactly the leader committed log', async () => {
    const logSizeBytes = 4 * 1024 * 1024;
    const result = await runRestartScenario({
      nodeCount: 3,
      logSizeBytes,
      throughputRecordsPerSecond: 2_000,
      recordSizeBytes: 256,
      signal: 'KILL',
      keepDirectory: false,
      baseDirectory,
    });
    expect(result.failures).toEqual([]);
    expect(result.passed).toBe(true);
    expect(result.build.logBytes).toBeGreaterThanOrEqual(logSizeBytes);
    const { quorumRestart, followerRestart, prefixCheck } = result;
    expect(quorumRestart?.opens.map((open) => open.clean)).toEqual([false, false, false]);
    expect(quorumRestart?.epoch).toBeGreaterThan(quorumRestart?.epochBefore as number);
    expect(quorumRestart?.launchToWorkloadCommitMs).toBeGreaterThanOrEqual(
      quorumRestart?.launchToFirstCommitMs as number,
    );
    expect(quorumRestart?.launchToFirstCommitMs).toBeGreaterThanOrEqual(
      quorumRestart?.launchToLeaderMs as number,
    );
    expect(followerRestart?.open.clean).toBe(false);
    // It missed what the leader committed while it was down, and fetched it.
    expect(followerRestart?.targetHighWatermark).toBeGreaterThan(
      followerRestart?.open.logEndOffset as number,
    );
    // The follower's log survived the kill: it reopened with what it had, then fetched the rest.
    expect(followerRestart?.open.logEndOffset).toBeGreaterThan(quorumRestart?.committedBefore as number);
    expect(followerRestart?.launchToCaughtUpMs).toBeGreaterThanOrEqual(
      followerRestart?.open.launchToLogOpenedMs as number,
    );
    expect(followerRestart?.peakRssBytes).toBeGreaterThan(0);
    expect(prefixCheck?.matches).toBe(true);
    expect(prefixCheck?.throughOffset).toBeGreaterThanOrEqual(followerRestart?.targetHighWatermark as number);
    expect(prefixCheck?.bytes).toBeGreaterThanOrEqual(logSizeBytes);
    // Torn down: no quorum left to kill, no run dir left behind.
    expect(LocalQuorum.active.size).toBe(0);
    expect(readdirSync(baseDirectory)).toEqual([]);
  });
});
