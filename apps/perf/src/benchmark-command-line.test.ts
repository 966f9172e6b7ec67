import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { benchmarkUsage, parseBenchmarkCommandLine, USAGE_EXIT_CODE } from './benchmark-command-line.js';

const NAMES = ['log', 'protocol', 'records', 'snapshot-catchup', 'transport'];

/** The real runner: `pnpm bench` runs this file (only through lines that exit before any benchmark). */
function runBenchmarks(...args: string[]) {
  const script = join(import.meta.dirname, 'run-benchmarks.ts');
  return spawnSync(process.execPath, ['--import', 'tsx', '--conditions=@kraft/source', script, ...args], {
    encoding: 'utf8',
  });
}

describe('pnpm bench command line', () => {
  it('runs every benchmark with no arguments, and those whose name contains a filter', () => {
    expect(parseBenchmarkCommandLine([], NAMES)).toEqual({ kind: 'run', benchmarks: NAMES });
    expect(parseBenchmarkCommandLine(['--', 'snapshot', 'log'], NAMES)).toEqual({
      kind: 'run',
      benchmarks: ['log', 'snapshot-catchup'],
    });
  });

  it('prints the usage with the benchmark names for --help', () => {
    const command = parseBenchmarkCommandLine(['--help'], NAMES);
    expect(command).toEqual({ kind: 'help', text: benchmarkUsage(NAMES) });
    for (const name of NAMES) expect(benchmarkUsage(NAMES)).toContain(`\n  ${name}\n`);
  });

  it('refuses a name that matches no benchmark, and an unknown option', () => {
    expect(parseBenchmarkCommandLine(['log', 'nosuch'], NAMES)).toEqual({
      kind: 'usage-error',
      text: `pnpm bench: no benchmark matches 'nosuch'\n\n${benchmarkUsage(NAMES)}`,
    });
    expect(parseBenchmarkCommandLine(['--fast'], NAMES)).toMatchObject({
      kind: 'usage-error',
      text: expect.stringContaining('unknown option --fast'),
    });
  });

  it('the runner lists the benchmarks and exits 0 for --help, and exits 2 for an unknown name', () => {
    const help = runBenchmarks('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('  transport\n');
    expect(help.stdout).not.toContain('==');
    const unknown = runBenchmarks('nosuch');
    expect(unknown.status).toBe(USAGE_EXIT_CODE);
    expect(unknown.stderr).toContain("no benchmark matches 'nosuch'");
    expect(unknown.stderr).toContain('  protocol\n');
    expect(unknown.stdout).toBe('');
  });

  it('pnpm bench at the repository root passes the exit code 2 through', () => {
    const root = join(import.meta.dirname, '..', '..', '..');
    const result = spawnSync('pnpm', ['bench', 'nosuch'], { cwd: root, encoding: 'utf8' });
    expect(result.status).toBe(USAGE_EXIT_CODE);
    expect(result.stderr).toContain("no benchmark matches 'nosuch'");
  });
});
