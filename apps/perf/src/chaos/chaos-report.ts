import type { ChaosRunResult } from './chaos-run.js';
import { FAULT_KINDS } from './chaos-schedule.js';
import type { HistoryCounts } from './history-checker.js';

/** The Jepsen-style counts of a run, in the order the report prints them. */
const COUNTS: readonly (keyof HistoryCounts)[] = [
  'acked',
  'lost',
  'duplicated',
  'reordered',
  'misplaced',
  'unexpected',
  'indeterminate',
  'indeterminateCommitted',
  'failed',
  'committed',
];

function faultTally(result: ChaosRunResult): string {
  const byKind = new Map<string, number>();
  for (const fault of result.faults.slice(0, result.injected))
    byKind.set(fault.kind, (byKind.get(fault.kind) ?? 0) + 1);
  return [...byKind].map(([kind, count]) => `${kind} ${count}`).join(', ');
}

function appendFigures(result: ChaosRunResult): string {
  const counts = result.check?.counts;
  return counts === undefined
    ? 'no history checked'
    : COUNTS.map((name) => `${name} ${counts[name]}`).join(', ');
}

/**
 * `ops 4312 (ok 3200, fail 1000, info 112); keys 4: k0 1080 ops linearizable, ...; violations 0,
 * unknown 0; final maps equal (4 keys, 3 nodes); snapshots 12 on 3 nodes (newest at 6500), 2 restores, log start up to 5800`.
 */
function kvFigures(result: ChaosRunResult): string {
  const check = result.kv?.check;
  if (check === undefined) return 'no history checked';
  const { counts } = check;
  const keys = [...check.keys]
    .sort((left, right) => left.key.localeCompare(right.key))
    .map((key) => `${key.key} ${key.operations} ops ${key.outcome}`)
    .join(', ');
  const states = check.keys.reduce((total, key) => total + (key.exploredStates ?? 0), 0);
  const finalMaps = result.kv?.finalMaps;
  const maps =
    finalMaps === undefined
      ? 'final maps not read'
      : finalMaps.equal === finalMaps.keys
        ? `final maps equal (${finalMaps.keys} keys, ${result.nodeCount} nodes)`
        : `final maps differ on ${finalMaps.keys - finalMaps.equal} of ${finalMaps.keys} keys`;
  const snapshots = result.kv?.snapshots;
  return [
    `ops ${counts.operations} (ok ${counts.ok}, fail ${counts.fail}, info ${counts.info})`,
    `keys ${check.keys.length}: ${keys} (${states} states)`,
    `violations ${check.violations}, unknown ${check.unknown}`,
    maps,
    snapshots === undefined
      ? 'snapshots not counted'
      : `snapshots ${snapshots.files} on ${snapshots.nodes} nodes (newest at ${snapshots.highestEndOffset}), ` +
        `${result.kv?.restores ?? 0} restores, log start up to ${result.kv?.highestLogStartOffset ?? 0}`,
  ].join('; ');
}

/**
 * `PASSED seed 7 nodes 3: faults 9 (kill 2, ...); acked 8123, lost 0, ...; 94 s` (the kv workload:
 * `nodes 3 kv: ...` with its operations, per-key verdicts and final maps), then each failure.
 */
export function formatRunLine(result: ChaosRunResult): string {
  const workload = result.workload === 'kv' ? ' kv' : '';
  const bug = result.kv?.plantedBug === undefined ? '' : ` (planted bug ${result.kv.plantedBug})`;
  const figures = result.workload === 'kv' ? kvFigures(result) : appendFigures(result);
  const head = `${result.passed ? 'PASSED' : 'FAILED'} seed ${result.seed} nodes ${result.nodeCount}${workload}${bug}: faults ${result.injected} (${faultTally(result)}); ${figures}; committed offset ${result.committedOffset}; ${(result.durationMs / 1000).toFixed(0)} s`;
  const details = result.failures.map((failure) => `  ${failure}`);
  if (result.directory !== undefined)
    details.push(`  kept ${result.directory} (configs, histories, server logs)`);
  return [head, ...details].join('\n');
}

const APPEND_COLUMNS: readonly [string, (result: ChaosRunResult) => number][] = COUNTS.map((name) => [
  name,
  (result) => result.check?.counts[name] ?? 0,
]);

/** The kv workload's summed columns: operations by outcome, keys checked, and the verdicts that fail a run. */
const KV_COLUMNS: readonly [string, (result: ChaosRunResult) => number][] = [
  ['ops', (result) => result.kv?.check?.counts.operations ?? 0],
  ['ok', (result) => result.kv?.check?.counts.ok ?? 0],
  ['fail', (result) => result.kv?.check?.counts.fail ?? 0],
  ['info', (result) => result.kv?.check?.counts.info ?? 0],
  ['keys checked', (result) => result.kv?.check?.keys.length ?? 0],
  ['violations', (result) => result.kv?.check?.violations ?? 0],
  ['unknown', (result) => result.kv?.check?.unknown ?? 0],
  ['snapshots', (result) => result.kv?.snapshots?.files ?? 0],
  ['restores', (result) => result.kv?.restores ?? 0],
];

function sum(results: readonly ChaosRunResult[], pick: (result: ChaosRunResult) => number): number {
  return results.reduce((total, result) => total + pick(result), 0);
}

/** One table per workload (a row per cluster size and a total: runs, faults by kind, the summed counts), failed seeds below. */
export function formatSummaryTable(results: readonly ChaosRunResult[]): string {
  const lines: string[] = [];
  for (const workload of ['append', 'kv'] as const) {
    const ofWorkload = results.filter((result) => result.workload === workload);
    if (ofWorkload.length === 0) continue;
    if (lines.length > 0) lines.push('');
    lines.push(...workloadTable(ofWorkload, workload === 'kv' ? KV_COLUMNS : APPEND_COLUMNS));
  }
  const failed = results.filter((result) => !result.passed).map((result) => result.seed);
  lines.push('', failed.length === 0 ? 'failed seeds: none' : `failed seeds: ${failed.join(', ')}`);
  return lines.join('\n');
}

/** One workload's rows: per cluster size and a total (a kv table's first cell says kv). */
function workloadTable(
  results: readonly ChaosRunResult[],
  columns: readonly [string, (result: ChaosRunResult) => number][],
): string[] {
  const suffix = columns === KV_COLUMNS ? ' kv' : '';
  const groups = new Map<string, ChaosRunResult[]>();
  for (const result of results) {
    const key = `${result.nodeCount} nodes${suffix}`;
    groups.set(key, [...(groups.get(key) ?? []), result]);
  }
  groups.set(`total${suffix}`, [...results]);
  const header = ['', 'runs', 'passed', 'faults', ...FAULT_KINDS, ...columns.map(([name]) => name)];
  const rows = [...groups].map(([name, group]) => [
    name,
    String(group.length),
    String(group.filter((result) => result.passed).length),
    String(sum(group, (result) => result.injected)),
    ...FAULT_KINDS.map((kind) =>
      String(
        sum(
          group,
          (result) => result.faults.slice(0, result.injected).filter((fault) => fault.kind === kind).length,
        ),
      ),
    ),
    ...columns.map(([, pick]) => String(sum(group, pick))),
  ]);
  return [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`);
}
