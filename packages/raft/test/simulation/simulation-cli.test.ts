import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main, parseCliArguments, SIMULATION_USAGE, USAGE_EXIT_CODE } from './simulation-cli.js';

function capture() {
  const written = { stdout: '', stderr: '' };
  const output = {
    stdout: (text: string) => {
      written.stdout += text;
    },
    stderr: (text: string) => {
      written.stderr += text;
    },
  };
  return { written, output };
}

describe('pnpm sim command line', () => {
  it.each([['--help'], ['-h'], ['--seeds', '5', '--help']])(
    '%s prints the usage and exits 0',
    async (...argv) => {
      const { written, output } = capture();
      expect(await main(argv, {}, output)).toBe(0);
      expect(written.stdout).toBe(SIMULATION_USAGE);
      expect(written.stdout).toContain('elect-initial-leader');
      expect(written.stderr).toBe('');
    },
  );

  it.each([
    [['--nosuch'], 'unknown option --nosuch'],
    [['seeds'], "unexpected argument 'seeds'"],
    [['--seeds'], '--seeds needs a value'],
    [['--workers', 'two'], "--workers must be a non-negative integer, got 'two'"],
    [['--scenario', 'nope'], "unknown scenario 'nope'"],
    [
      ['--voter-changes', '--scenario', 'remove-the-leader'],
      '--voter-changes draws the scenario: it cannot be given with --scenario',
    ],
  ])('%j prints what is wrong and the usage, and exits 2', async (argv, problem) => {
    const { written, output } = capture();
    expect(await main(argv, {}, output)).toBe(USAGE_EXIT_CODE);
    expect(written.stderr).toBe(`pnpm sim: ${problem}\n\n${SIMULATION_USAGE}`);
    expect(written.stdout).toBe('');
  });

  it('--voter-changes has each seed draw one of the voter change scenarios', () => {
    const options = parseCliArguments(['--voter-changes', '--seeds', '3'], {});
    expect(options.seedOptions.voterChanges).toBe(true);
    expect(options.seeds).toEqual([1, 2, 3]);
  });

  it('a bad KRAFT_SEED is a usage error too', async () => {
    const { written, output } = capture();
    expect(await main([], { KRAFT_SEED: 'x' }, output)).toBe(USAGE_EXIT_CODE);
    expect(written.stderr).toContain("KRAFT_SEED must be an integer, got 'x'");
  });

  it('the real script prints the usage for --help, with no stack trace', () => {
    const script = join(import.meta.dirname, '..', '..', 'scripts', 'sim.ts');
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--conditions=@kraft/source', script, '--help'],
      { encoding: 'utf8' },
    );
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(SIMULATION_USAGE);
    expect(result.stderr).toBe('');
  });
});
