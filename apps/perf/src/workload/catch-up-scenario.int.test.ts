// `pnpm perf catch-up` end to end on a small metadata quorum: the scenario's own invariants, not
// its timings. The leader's retention runs a minute after it starts (Kafka's snapshot cleaner
// interval), so this takes a little over a minute however small the workload.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCatchUpScenario } from './catch-up-scenario.js';
import { LocalQuorum } from './local-quorum.js';

describe('pnpm perf catch-up', () => {
  const baseDirectory = mkdtempSync(join(tmpdir(), 'kraft-perf-catch-up-test-'));
  afterEach(() => rmSync(baseDirectory, { recursive: true, force: true }));

  it("a follower stopped until the leader's log start passes its end catches up through a fetched snapshot and ends with the leader's image", async () => {
    const result = await runCatchUpScenario({
      nodeCount: 3,
      warmupMs: 1_000,
      durationMs: 2_000,
      throughputRecordsPerSecond: 1_000,
      snapshotThresholdBytes: 16 * 1024,
      seed: 35,
      keepDirectory: false,
      baseDirectory,
    });
    expect(result.failures).toEqual([]);
    expect(result.passed).toBe(true);
    const catchUp = result.catchUp;
    expect(catchUp?.leaderLogStartOffset).toBeGreaterThan(catchUp?.logEndOffsetAtStop as number);
    // The snapshot path: the snapshot it installed lies above its old end, its file is there, and
    // its log now starts at or above it.
    expect(catchUp?.snapshot.offset).toBeGreaterThan(catchUp?.logEndOffsetAtStop as number);
    expect(catchUp?.snapshot.sizeInBytes).toBeGreaterThan(0);
    expect(catchUp?.logStartOffsetAfter).toBeGreaterThan(0);
    expect(catchUp?.logStartOffsetAfter).toBeGreaterThanOrEqual(catchUp?.snapshot.offset as number);
    expect(catchUp?.launchToCaughtUpMs).toBeGreaterThanOrEqual(catchUp?.open.launchToLogOpenedMs as number);
    expect(result.latencyBefore.intervals).toBeGreaterThan(0);
    expect(new Set(result.digests.map((entry) => entry.digest)).size).toBe(1);
    expect(result.digests.every((entry) => entry.digest !== '')).toBe(true);
    expect(LocalQuorum.active.size).toBe(0);
    expect(readdirSync(baseDirectory)).toEqual([]);
  });
});
