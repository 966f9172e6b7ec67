import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RaftNodeQuorum } from '../raft-node/raft-node-quorum.js';
import { runRaftNodeScenario } from './raft-node-scenario.js';

describe('pnpm perf raft-node', () => {
  let baseDirectory: string;
  beforeEach(() => {
    baseDirectory = mkdtempSync(join(tmpdir(), 'kraft-raft-node-scenario-test-'));
  });
  afterEach(() => rmSync(baseDirectory, { recursive: true, force: true }));

  it('three RaftNode processes: every acknowledged offset is unique and increasing, and a kill -9 of the leader ends in a commit of a later epoch', async () => {
    const result = await runRaftNodeScenario({
      nodeCount: 3,
      trials: 1,
      recordSizeBytes: 100,
      lingerMs: 25,
      proposals: 20,
      warmupProposals: 5,
      proposers: 4,
      baseDirectory,
    });
    expect(result.failures).toEqual([]);
    expect(result.passed).toBe(true);
    expect(result.latency.map((latency) => latency.proposers)).toEqual([1, 4]);
    for (const latency of result.latency) {
      expect(latency.acknowledgedOffsets).toHaveLength(25);
      const offsets = latency.acknowledgedOffsets;
      expect(offsets.every((offset, index) => index === 0 || offset > (offsets[index - 1] as number))).toBe(
        true,
      );
      expect(Object.keys(latency.proposeMs)).toContain('p99');
      expect(latency.proposeHistogram.length).toBeGreaterThan(0);
    }
    // Both cases ran on one leader: the second case's offsets follow the first's.
    const [single, concurrent] = result.latency;
    expect(concurrent?.acknowledgedOffsets[0]).toBeGreaterThan(single?.acknowledgedOffsets.at(-1) as number);
    const [trial] = result.failover.trials;
    expect(result.failover.trials).toHaveLength(1);
    expect(trial?.newLeaderId).not.toBe(trial?.killedNodeId);
    expect(trial?.newEpoch).toBeGreaterThan(trial?.killedEpoch as number);
    expect(trial?.firstOffsetAfter).toBeGreaterThan(trial?.lastOffsetBefore as number);
    expect(result.failover.firstCommitMs.max).toBe(trial?.firstCommitMs);
    expect(readdirSync(baseDirectory)).toEqual([]);
    expect(RaftNodeQuorum.active.size).toBe(0);
  });

  it('a quorum whose nodes cannot start fails with the reason and leaves no process and no directory', async () => {
    const start = RaftNodeQuorum.start({ nodeCount: 3, config: { electionTimeoutMs: -1 }, baseDirectory });
    await expect(start).rejects.toThrow(/raft node \d exited .*electionTimeoutMs/);
    expect(readdirSync(baseDirectory)).toEqual([]);
    expect(RaftNodeQuorum.active.size).toBe(0);
  });
});
