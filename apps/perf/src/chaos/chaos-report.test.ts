import { describe, expect, it } from 'vitest';
import { parseStatus } from './chaos-node.js';
import { formatRunLine, formatSummaryTable } from './chaos-report.js';
import type { ChaosRunResult } from './chaos-run.js';
import { injectableKinds } from './chaos-run.js';
import { FAULT_KINDS } from './chaos-schedule.js';
import { checkHistory } from './history-checker.js';
import { checkKvHistory } from './kv-check.js';
import type { KvHistoryEvent } from './kv-history.js';

function result(overrides: Partial<ChaosRunResult>): ChaosRunResult {
  return {
    seed: 7,
    nodeCount: 3,
    workload: 'append',
    faults: [
      { index: 0, kind: 'kill', startMs: 1000, durationMs: 2000, nodeIds: [1] },
      { index: 1, kind: 'pause', startMs: 5000, durationMs: 2000, nodeIds: [2] },
    ],
    injected: 2,
    check: checkHistory([], []),
    kv: undefined,
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

  it("prints a kv run's operations, each key's verdict, the violations and the final maps", () => {
    const events: KvHistoryEvent[] = [
      { type: 'invoke', id: 0, clientId: 0, time: 1, input: { type: 'put', key: 'k0', value: '0-0' } },
      { type: 'ok', id: 0, clientId: 0, time: 2, output: null },
      { type: 'invoke', id: 1, clientId: 1, time: 3, input: { type: 'get', key: 'k1' } },
      { type: 'fail', id: 1, clientId: 1, time: 4 },
      { type: 'invoke', id: 2, clientId: 2, time: 5, input: { type: 'put', key: 'k1', value: '2-0' } },
      { type: 'info', id: 2, clientId: 2, time: 6 },
    ];
    const kv = {
      clients: { ok: 1, fail: 1, info: 1, attempts: 4, badRequests: 0, foreignRedirects: 0, capped: false },
      check: checkKvHistory(events),
      finalMaps: { keys: 2, equal: 2 },
      snapshots: { files: 4, nodes: 3, highestEndOffset: 1000 },
      restores: 2,
      highestLogStartOffset: 800,
      plantedBug: undefined,
    };
    expect(formatRunLine(result({ workload: 'kv', check: undefined, kv }))).toBe(
      'PASSED seed 7 nodes 3 kv: faults 2 (kill 1, pause 1); ops 3 (ok 1, fail 1, info 1); keys 2: k0 1 ops linearizable, k1 1 ops linearizable (2 states); violations 0, unknown 0; final maps equal (2 keys, 3 nodes); snapshots 4 on 3 nodes (newest at 1000), 2 restores, log start up to 800; committed offset 10; 61 s',
    );
    const planted = formatRunLine(
      result({
        workload: 'kv',
        check: undefined,
        kv: { ...kv, plantedBug: 'stale-reads', finalMaps: { keys: 2, equal: 1 } },
        passed: false,
      }),
    );
    expect(planted).toMatch(
      /^FAILED seed 7 nodes 3 kv \(planted bug stale-reads\): .*final maps differ on 1 of 2 keys/,
    );
    const table = formatSummaryTable([result({ workload: 'kv', check: undefined, kv })]);
    expect(table.split('\n')[0]).toContain(
      '| ops | ok | fail | info | keys checked | violations | unknown | snapshots | restores |',
    );
    expect(table.split('\n')[2]).toMatch(/\| 3 \| 1 \| 1 \| 1 \| 2 \| 0 \| 0 \| 4 \| 2 \|$/);
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
