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

/** `PASSED seed 7 nodes 3: faults 9 (kill 2, ...); acked 8123, lost 0, ...; 94 s`, then each failure. */
export function formatRunLine(result: ChaosRunResult): string {
  const counts = result.check?.counts;
  const figures =
    counts === undefined ? 'no history checked' : COUNTS.map((name) => `${name} ${counts[name]}`).join(', ');
  const head = `${result.passed ? 'PASSED' : 'FAILED'} seed ${result.seed} nodes ${result.nodeCount}: faults ${result.injected} (${faultTally(result)}); ${figures}; committed offset ${result.committedOffset}; ${(result.durationMs / 1000).toFixed(0)} s`;
  const details = result.failures.map((failure) => `  ${failure}`);
  if (result.directory !== undefined)
    details.push(`  kept ${result.directory} (configs, histories, server logs)`);
  return [head, ...details].join('\n');
}

function sum(results: readonly ChaosRunResult[], pick: (result: ChaosRunResult) => number): number {
  return results.reduce((total, result) => total + pick(result), 0);
}

/** One row per cluster size and a total: runs, faults by kind, and the summed counts; failed seeds below. */
export function formatSummaryTable(results: readonly ChaosRunResult[]): string {
  const groups = new Map<string, ChaosRunResult[]>();
  for (const result of results) {
    const key = `${result.nodeCount} nodes`;
    groups.set(key, [...(groups.get(key) ?? []), result]);
  }
  groups.set('total', [...results]);
  const header = ['', 'runs', 'passed', 'faults', ...FAULT_KINDS, ...COUNTS];
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
    ...COUNTS.map((name) => String(sum(group, (result) => result.check?.counts[name] ?? 0))),
  ]);
  const lines = [header, header.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`);
  const failed = results.filter((result) => !result.passed).map((result) => result.seed);
  lines.push('', failed.length === 0 ? 'failed seeds: none' : `failed seeds: ${failed.join(', ')}`);
  return lines.join('\n');
}
