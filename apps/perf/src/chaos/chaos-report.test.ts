import { describe, expect, it } from 'vitest';
import { parseStatus } from './chaos-node.js';
import { formatRunLine, formatSummaryTable } from './chaos-report.js';
import type { ChaosRunResult } from './chaos-run.js';
import { injectableKinds } from './chaos-run.js';
import { FAULT_KINDS } from './chaos-schedule.js';
import { checkHistory } from './history-checker.js';

function result(overrides: Partial<ChaosRunResult>): ChaosRunResult {
  return {
    seed: 7,
    nodeCount: 3,
    faults: [
      { index: 0, kind: 'kill', startMs: 1000, durationMs: 2000, nodeIds: [1] },
      { index: 1, kind: 'pause', startMs: 5000, durationMs: 2000, nodeIds: [2] },
    ],
    injected: 2,
    check: checkHistory([], []),
    committedOffset: 10,
    failures: [],
    passed: true,
    durationMs: 61_400,
    directory: undefined,
    ...overrides,
  };
}

describe('chaos report', () => {
  it('prints one line a run with its faults and the Jepsen-style counts, then each failure', () => {
    expect(formatRunLine(result({}))).toBe(
      'PASSED seed 7 nodes 3: faults 2 (kill 1, pause 1); acked 0, lost 0, duplicated 0, reordered 0, misplaced 0, unexpected 0, indeterminate 0, indeterminateCommitted 0, failed 0, committed 0; committed offset 10; 61 s',
    );
    const failed = formatRunLine(
      result({ passed: false, failures: ['lost: x'], directory: '/tmp/kraftchaos-1-ab' }),
    );
    expect(failed.split('\n')).toEqual([
      expect.stringMatching(/^FAILED seed 7 nodes 3: /),
      '  lost: x',
      '  kept /tmp/kraftchaos-1-ab (configs, histories, server logs)',
    ]);
  });

  it('sums the runs per cluster size in the summary table and lists failed seeds', () => {
    const table = formatSummaryTable([
      result({}),
      result({ seed: 8, nodeCount: 5, passed: false, injected: 1 }),
    ]);
    const rows = table.split('\n');
    expect(rows[0]).toContain('| runs | passed | faults | partition-link |');
    expect(rows[2]).toMatch(/^\| 3 nodes \| 1 \| 1 \| 2 \| 0 \| 0 \| 0 \| 0 \| 1 \| 1 \|/);
    expect(rows[3]).toMatch(/^\| 5 nodes \| 1 \| 0 \| 1 \| 0 \| 0 \| 0 \| 0 \| 1 \| 0 \|/);
    expect(rows[4]).toMatch(/^\| total \| 2 \| 1 \| 3 \|/);
    expect(rows.at(-1)).toBe('failed seeds: 8');
  });

  it('draws full disks only with tmpfs and clock jumps only with libfaketime', () => {
    const none = { missing: [], tmpfs: false, faketimeLibrary: undefined };
    expect(injectableKinds(none, FAULT_KINDS)).not.toContain('disk-full');
    expect(injectableKinds(none, FAULT_KINDS)).not.toContain('clock-jump');
    const all = { missing: [], tmpfs: true, faketimeLibrary: '/usr/lib/faketime/libfaketimeMT.so.1' };
    expect(injectableKinds(all, FAULT_KINDS)).toEqual([...FAULT_KINDS]);
  });

  it("reads role, epoch, high watermark, leader and log end from the test server's stats lines", () => {
    const follower =
      'Throughput (bytes/second): 1275920.11, Records/second: 4984.06, Role: Follower, Epoch: 1, High watermark: 33315, Event loop delay p99 (ms): 4.2, Leader: 1, Log end offset: 33320';
    expect(parseStatus(follower)).toEqual({
      role: 'Follower',
      epoch: 1,
      highWatermark: 33315,
      leaderId: 1,
      logEndOffset: 33320,
    });
    const unknown =
      'Throughput (bytes/second): 0.00, Records/second: 0.00, Role: Unattached, Epoch: 4, High watermark: unknown, Leader: none, Log end offset: 0';
    expect(parseStatus(unknown)).toMatchObject({ highWatermark: undefined, leaderId: undefined });
    expect(parseStatus('{"level":30}')).toBeUndefined();
  });
});
