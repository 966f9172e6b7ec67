/**
 * `pnpm mutation [--package raft|records|log]... [--mutate <glob>]... [stryker options]`
 *
 * Runs StrykerJS (stryker.config.json) at low priority. With no option it mutates the consensus
 * rules listed in the config; `--package` mutates a whole package's sources instead (slow: hours on
 * two cores), `--mutate` a glob or a `file.ts:from-to` line range (repeatable; wins over
 * `--package`). Anything else is passed to `stryker run` unchanged (`--incrementalFile <path>`,
 * `--force`, `--logLevel debug`). See docs/reliability.md, "Mutation testing".
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PACKAGES = ['raft', 'records', 'log'] as const;
type MutablePackage = (typeof PACKAGES)[number];

export interface MutationArguments {
  readonly mutate: readonly string[];
  readonly strykerArguments: readonly string[];
}

function isMutablePackage(name: string): name is MutablePackage {
  return (PACKAGES as readonly string[]).includes(name);
}

/** A package's production sources: no tests, no test kits. */
export function packageMutatePatterns(name: MutablePackage): string[] {
  return [
    `packages/${name}/src/**/*.ts`,
    `!packages/${name}/src/**/*.test.ts`,
    `!packages/${name}/src/testing/**`,
  ];
}

export function parseMutationArguments(argv: readonly string[]): MutationArguments {
  const packages: MutablePackage[] = [];
  const globs: string[] = [];
  const strykerArguments: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] as string;
    if (argument === '--package' || argument === '--mutate') {
      const value = argv[++index];
      if (value === undefined || value.startsWith('--')) throw new Error(`${argument} needs a value`);
      if (argument === '--mutate') globs.push(value);
      else if (isMutablePackage(value)) packages.push(value);
      else throw new Error(`--package must be one of ${PACKAGES.join(', ')}, not ${value}`);
    } else {
      strykerArguments.push(argument);
    }
  }
  const mutate = globs.length > 0 ? globs : packages.flatMap(packageMutatePatterns);
  return { mutate, strykerArguments };
}

function main(): number {
  const { mutate, strykerArguments } = parseMutationArguments(process.argv.slice(2));
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const stryker = fileURLToPath(
    new URL('../../node_modules/@stryker-mutator/core/bin/stryker.js', import.meta.url),
  );
  const command = [
    '-n',
    '5',
    process.execPath,
    stryker,
    'run',
    'stryker.config.json',
    ...(mutate.length > 0 ? ['--mutate', mutate.join(',')] : []),
    ...strykerArguments,
  ];
  const result = spawnSync('nice', command, { cwd: root, stdio: 'inherit' });
  if (result.error !== undefined) throw result.error;
  return result.status ?? 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main();
